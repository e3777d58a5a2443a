import DeviceCore
import FoundationEssentials
import HealthEngine
import HealthModel
import Posix
import Sync
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon as the core's shell: each input fed to ``DeviceCore`` and its actions performed in order, and the
/// timers the actions arm.
extension DeviceDaemon {
  /// Feeds one input to the core and performs the actions it returns, in order. False when a journal write failed:
  /// what follows it is not performed, and the daemon must stop.
  @discardableResult
  func step(_ input: DeviceCore.Input) -> Bool {
    var actions: [DeviceCore.Action] = []
    swap(&actions, &actionBuffer)
    var random = KernelRandom()
    core.turn(input, state: &durable.state, wall: wall, using: &random, into: &actions)
    defer {
      actions.removeAll(keepingCapacity: true)
      if actionBuffer.capacity < actions.capacity { swap(&actions, &actionBuffer) }
    }
    for index in actions.indices {
      // Taken out of the buffer, so a queued reply is the outbox's alone (written and reused without a copy).
      var action = DeviceCore.Action.flushPeer
      swap(&action, &actions[index])
      guard perform(action) else { return false }
    }
    return true
  }

  func perform(_ action: DeviceCore.Action) -> Bool {
    switch action {
    case .send(let id, let bytes): clients[id]?.outbox.append(bytes)
    case .closeAfterFlush(let id): clients[id]?.closeAfterFlush = true
    case .helloAccepted(let id): clients[id]?.decoder.maxFrameLength = WireProtocol.maxClientFrame
    case .journal(let events, let encoded):
      do { try durable.persist(events, encoded: encoded) } catch {
        log.log(.fault, "journal append failed; stopping without acknowledging: \(error)")
        return false
      }
    case .raiseChangeMark:
      do { try durable.raiseChangeMark() } catch {
        log.log(.fault, "change mark write failed; stopping: \(error)")
        return false
      }
    case .flushClients: flushClients()
    case .flushPeer: flushPeer()
    case .peerSend(let message, let latency): queuePeer(message, latency: latency)
    case .peerClose(let reason): _ = closeTransport(reason: reason)
    case .peerConnect: connectPeer()
    case .peerReconnect(let seconds):
      timers.removeAll { $0.timer == .reconnect }
      timers.append((Self.deadline(after: seconds), .reconnect))
    case .latencyChanged: rescheduleDelayed()
    case .backgroundTimer(let seconds):
      timers.removeAll { $0.timer == .background }
      if let seconds { timers.append((Self.deadline(after: seconds), .background)) }
    case .armTimer(let timer, let due):
      timers.removeAll { $0.timer == .core(timer) }
      if let due { timers.append((due, .core(timer))) }
    case .log(let level, let message, let fields):
      if fields.isEmpty { log.log(level, message) } else { log.log(level, message, fields: fields) }
    }
    return true
  }

  /// The monotonic instant `seconds` after `now`, saturating instead of trapping on huge or invalid durations.
  static func deadline(after seconds: Double, from now: UInt64 = Posix.monotonicNanoseconds()) -> UInt64 {
    DeviceCore.instant(after: seconds, from: now)
  }

  /// A random, non-zero sync log identity.
  static func freshLogID() -> UInt64 {
    var random = KernelRandom()
    return PeerCore.freshLogID(using: &random)
  }

  func nextTimeout() -> Int32 {
    guard let next = timers.map(\.due).min() else { return -1 }
    let now = Posix.monotonicNanoseconds()
    if next <= now { return 0 }
    return Int32(min(60_000, (next - now + 999_999) / 1_000_000))
  }

  func fireTimers() {
    let now = Posix.monotonicNanoseconds()
    let due = timers.filter { $0.due <= now }
    timers.removeAll { $0.due <= now }
    for entry in due {
      switch entry.timer {
      case .reconnect:
        feed(.reconnectTimer)
      case .peerDelayed:
        guard let connection = peer else { continue }
        while let first = connection.delayed.first, first.due <= now {
          connection.outbox.append(first.bytes)
          connection.delayed.removeFirst()
        }
        rescheduleDelayed()
      case .core(let timer):
        step(.timer(timer, at: now))
      case .background:
        break
      case .acceptResume:
        resumeAccepting(descriptorFreed: false)
      }
    }
  }
}

/// Random numbers from the kernel (``Posix/randomBytes(_:)``), for the sync log identities the peer core draws.
struct KernelRandom: RandomNumberGenerator {
  mutating func next() -> UInt64 { Posix.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
}
