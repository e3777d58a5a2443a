import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix
@testable import Wire

let water = SampleType.lookup(name: "dietaryWater")!
let mindful = SampleType.lookup(name: "mindfulSession")!
let steps = SampleType.lookup(name: "stepCount")!
let t0 = parseDate("2026-01-05T08:00:00Z")!
let waterApp = AppRecord(
  bundleID: "com.example.water", displayName: "Water", writeUsageDescription: "Water logs what you drink.",
  readUsageDescription: "Water shows today's total.")
let returnApp = AppRecord(
  bundleID: "com.example.return", displayName: "Return", writeUsageDescription: "Return saves mindful minutes.",
  readUsageDescription: nil)

/// Launches a fresh pair with the clock at t0 and both apps installed on both devices; always torn down.
func withPair<T>(_ body: (Pair) throws -> T) throws -> T {
  let pair = try Pair()
  defer { pair.shutdown() }
  for client in [pair.phone, pair.watch] {
    try client.setClock(t0)
    try client.installApp(waterApp)
    try client.installApp(returnApp)
  }
  return try body(pair)
}

/// Requests authorization and answers the sheet that must appear.
func grant(
  _ client: DeviceClient, _ app: String, share: [SampleType], read: [SampleType] = [], answer: PromptAnswer = .allowAll
) throws {
  let ticket = try client.beginAuthorization(app, share: share, read: read)
  guard case .sheet = try ticket.waitFirst(timeout: 10) else {
    Issue.record("expected a sheet")
    return
  }
  try client.answerPrompt(answer)
  _ = try ticket.wait(timeout: 10)
}

/// The error the daemon rejected `body`'s request with; records an issue (and returns nil) when `body` succeeded or
/// failed any other way — a lost connection or a timeout is not a refusal.
func rejection(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> HealthError? {
  do {
    try body()
    Issue.record("expected the daemon to refuse the request", sourceLocation: sourceLocation)
  } catch ClientError.rejected(let error) {
    return error
  } catch {
    Issue.record("expected the daemon to refuse the request, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

func waterSample(_ mL: Double, at date: Date = t0, uuid: UUID = UUID()) -> SampleInput {
  SampleInput(uuid: uuid, type: water, value: .quantity(mL, unit: "mL"), start: date, end: date)
}

func mindfulSample(minutes: Double, at date: Date = t0, uuid: UUID = UUID()) -> SampleInput {
  SampleInput(uuid: uuid, type: mindful, value: .category(0), start: date, end: date.addingTimeInterval(minutes * 60))
}

/// Waits until `condition` holds, re-checking after each round trip of `probe` to its daemon (a state the daemon
/// reaches without pushing an event — a log line, a dropped connection — is reached while it serves requests).
func waitUntil(_ what: String, timeout: Double = 20, probe: DeviceClient, _ condition: () throws -> Bool) throws {
  let deadline = Posix.monotonicNanoseconds() + UInt64(timeout * 1e9)
  while true {
    if try condition() { return }
    guard Posix.monotonicNanoseconds() < deadline else { throw PairError.timeout(what) }
    try probe.ping()
  }
}

/// A raw socket to a daemon, for sending bytes no well-behaved client would.
final class RawConnection {
  /// The socket, closed when the connection object goes.
  let socket: FileDescriptor
  var fd: Int32 { socket.rawValue }
  var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxPeerFrame)
  init(_ path: String) throws { socket = try Posix.connectUnix(path) }

  func send(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { buffer in try catching { () throws(SystemError) in try Posix.sendAll(fd, buffer) }.get()
    }
  }

  func send(_ frame: Frame) throws { try send(frame.framed()) }

  /// The next frame, or nil when the daemon closed the connection; fails after `timeout` seconds.
  func nextFrame(timeout: Double = 10) throws -> Frame? {
    let deadline = Posix.monotonicNanoseconds() + UInt64(timeout * 1e9)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      if let body = try decoder.next() { return try Frame.decode(body) }
      let now = Posix.monotonicNanoseconds()
      guard now < deadline, Posix.waitReadable(fd, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1) else {
        throw PairError.timeout("a frame from the daemon")
      }
      let result = try buffer.withUnsafeMutableBytes { b in
        try catching { () throws(SystemError) in try Posix.read(fd, into: b) }.get()
      }
      switch result {
      case .bytes(let n): decoder.append(Array(buffer[0..<n]))
      case .endOfFile: return nil
      case .wouldBlock: continue
      }
    }
  }

  /// Decodes every frame that has already arrived, without waiting; returns how many (stops at a close).
  func framesAvailableNow() throws -> Int {
    var count = 0
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      while try decoder.next() != nil { count += 1 }
      guard Posix.waitReadable(fd, timeoutMilliseconds: 0) else { return count }
      let result = try buffer.withUnsafeMutableBytes { b in
        try catching { () throws(SystemError) in try Posix.read(fd, into: b) }.get()
      }
      guard case .bytes(let n) = result else { return count }
      decoder.append(Array(buffer[0..<n]))
    }
  }

  /// Waits until the daemon closes the connection, discarding whatever it sends; true when it did.
  func waitClosed(timeout: Double = 10) throws -> Bool {
    let deadline = Posix.monotonicNanoseconds() + UInt64(timeout * 1e9)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let now = Posix.monotonicNanoseconds()
      guard now < deadline, Posix.waitReadable(fd, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1) else {
        throw PairError.timeout("the daemon to close the connection")
      }
      let result = buffer.withUnsafeMutableBytes { b in
        catching { () throws(SystemError) in try Posix.read(fd, into: b) }
      }
      switch result {
      case .success(.endOfFile): return true
      case .failure(let e) where e.errno == .connectionReset: return true
      case .failure(let e): throw e
      default: continue
      }
    }
  }
}

/// The final response of `frame`, or nil.
func responseError(_ frame: Frame?) -> HealthError? {
  if case .response(_, .failure(let e))? = frame { return e }
  return nil
}
