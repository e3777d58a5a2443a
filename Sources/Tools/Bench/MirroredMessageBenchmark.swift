import Dispatch
import FoundationEssentials
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Synchronization
import Wire

/// Row 15: a message's round trip between the watch app and the phone app over a mirrored workout session. The
/// watch app sends `size` bytes with `sendToRemoteWorkoutSession(data:)`; the phone app, on hearing
/// `didReceiveData`, sends them back; the round trip ends when the watch app hears them (each hop: app → its
/// daemon → the peer link → the other daemon → its app). Baseline: a raw Unix-socket echo of the same size, in
/// alternating blocks of the same length so the machine's drift falls on both. The virtual clocks move 11 s between
/// blocks (outside the timing), so no block meets the 100 KB per 10 s limit. Microseconds, medians.
func mirroredMessageMetric(daemon: String, count: Int) throws -> Metric {
  let pair = try preparedPair(daemon: daemon, types: workoutFamily)
  defer { pair.shutdown() }
  let bundle = benchApp.bundleID
  let size = 64
  let message = Data(repeating: 0x5A, count: size)
  let primary = WorkoutSessionID(uuid: UUID())
  let mirrored = Mutex<WorkoutSessionID?>(nil)
  let phoneHeard = DispatchSemaphore(value: 0)
  let watchHeard = DispatchSemaphore(value: 0)
  let phoneToken = pair.phone.addListener { event in
    switch event {
    case .mirroringStarted(_, let id):
      mirrored.withLock { $0 = id }
      phoneHeard.signal()
    case .workoutSession(_, _, .didReceiveData): phoneHeard.signal()
    default: break
    }
  }
  let watchToken = pair.watch.addListener { event in
    if case .workoutSession(_, primary, .didReceiveData) = event { watchHeard.signal() }
  }
  defer {
    pair.phone.removeListener(phoneToken)
    pair.watch.removeListener(watchToken)
  }
  for client in [pair.phone, pair.watch] { try client.subscribe(.sessions) }
  let configuration = WorkoutConfiguration(activityType: .running, location: .outdoor)
  _ = try pair.watch.workoutSession(bundle, .create(uuid: primary.uuid, configuration: configuration))
  _ = try pair.watch.workoutSession(bundle, .setDelegate(primary, true))
  _ = try pair.watch.workoutSession(bundle, .command(primary, .startActivity(benchStart)))
  _ = try pair.watch.workoutSession(bundle, .startMirroring(primary))
  guard phoneHeard.wait(timeout: .now() + 30) == .success, let phoneID = mirrored.withLock({ $0 }) else {
    throw PairError.timeout("the phone app never got the mirrored session")
  }
  _ = try pair.phone.workoutSession(bundle, .setDelegate(phoneID, true))

  func roundTrip() throws {
    _ = try pair.watch.workoutSession(bundle, .sendData(primary, message))
    guard phoneHeard.wait(timeout: .now() + 30) == .success else {
      throw PairError.timeout("the phone app never heard the watch's message")
    }
    _ = try pair.phone.workoutSession(bundle, .sendData(phoneID, message))
    guard watchHeard.wait(timeout: .now() + 30) == .success else {
      throw PairError.timeout("the watch app never heard the phone's answer")
    }
  }
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-mirror-echo")
  defer { Posix.removeTree(root) }
  let echo = try EchoLine(root: root, name: "mirror", size: size)
  defer { echo.server.stop() }

  // Blocks well under the limit: each side sends `block` messages of `size` bytes between clock moves.
  let block = 500
  var counter = 0
  var value: [Double] = []
  var base: [Double] = []
  for start in stride(from: 0, to: count, by: block) {
    let n = min(block, count - start)
    if (start / block) % 2 == 0 {
      value += try timed(n, &counter) { _ in try roundTrip() }
      base += try timed(n, &counter) { _ in try echo.once() }
    } else {
      base += try timed(n, &counter) { _ in try echo.once() }
      value += try timed(n, &counter) { _ in try roundTrip() }
    }
    for client in [pair.phone, pair.watch] { _ = try client.advanceClock(seconds: 11) }
  }
  let (b, v) = (median(base), median(value))
  return Metric(
    name:
      "15. A \(size)-byte message's round trip over a mirrored workout session (watch app → phone app → watch app, "
      + "each hop through both daemons and the peer link) vs a raw UDS echo of \(size) B, medians of \(count)",
    baseline: us(b), value: us(v), ratio: ratioText(v, b), target: "≤ 25×", met: v <= 25 * b,
    numbers: [("roundTripUs", v), ("echoUs", b), ("ratio", b > 0 ? v / b : 0)])
}
