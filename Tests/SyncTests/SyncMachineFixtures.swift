import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Sync
@testable import Wire

// What the sync machine's tests share: the pairing secret and nonces, a machine builder, the handshake, and a
// linked pair that plays both shells.

let secret = Array("correct horse battery staple".utf8)
let nonceA = [UInt8](repeating: 0xA1, count: 32)
let nonceB = [UInt8](repeating: 0xB2, count: 32)

/// The phone's and the watch's log identities in these tests.
let phoneLog: UInt64 = 0x100
let watchLog: UInt64 = 0x200

func machine(
  _ role: SyncMachine.Role, secret: [UInt8] = secret, lastSeq: UInt64 = 0, acked: UInt64 = 0, applied: UInt64 = 0,
  log: UInt64? = nil, peerLog: UInt64? = nil, resend: Bool = false
) -> SyncMachine {
  var settings = SyncMachine.Settings()
  settings.window = 4
  return SyncMachine(
    role: role, device: role == .listener ? .phone : .watch, secret: secret,
    logID: log ?? (role == .listener ? phoneLog : watchLog),
    peerLogID: peerLog ?? (role == .listener ? watchLog : phoneLog),
    lastSeq: lastSeq, peerAcked: acked, appliedFromPeer: applied, resendRequested: resend, settings: settings)
}

/// The directives other than store checks (which have their own tests).
func withoutChecks(_ directives: [SyncMachine.Directive]) -> [SyncMachine.Directive] {
  directives.filter { if case .sendCheck = $0 { false } else { true } }
}

func sent(_ directives: [SyncMachine.Directive]) -> [PeerMessage] {
  directives.compactMap { if case .send(let m) = $0 { m } else { nil } }
}

/// Runs the handshake between two machines, delivering every message; returns the directives each produced.
func connect(_ phone: inout SyncMachine, _ watch: inout SyncMachine) -> (
  phone: [SyncMachine.Directive], watch: [SyncMachine.Directive]
) {
  var p = phone.handle(.opened(nonce: nonceA))
  var w = watch.handle(.opened(nonce: nonceB))
  var toWatch = sent(p)
  var toPhone = sent(w)
  while !toWatch.isEmpty || !toPhone.isEmpty {
    let nextToPhone = toWatch.flatMap { m -> [PeerMessage] in
      let d = watch.handle(.received(m))
      w += d
      return sent(d)
    }
    let nextToWatch = toPhone.flatMap { m -> [PeerMessage] in
      let d = phone.handle(.received(m))
      p += d
      return sent(d)
    }
    toPhone = nextToPhone
    toWatch = nextToWatch
  }
  return (p, w)
}

/// Delivers messages between two connected machines until both are quiet, performing the shell's part of each
/// directive the way the daemon does (restart a log, adopt a peer log, apply entries from a model log, evaluate
/// store checks with `differ` deciding whether the stores differ). Returns every directive produced.
struct LinkedPair {
  var phone: SyncMachine
  var watch: SyncMachine
  /// Each side's outbound log length (its entries are opaque here).
  var phoneLog: [UInt64: UInt64] = [:]
  var differ: () -> String? = { nil }
  var restarts: [DeviceKind: Int] = [:]
  var adoptions: [DeviceKind: [UInt64]] = [:]
  /// Logs adopted as the answer to this side's re-send request.
  var answers: [DeviceKind: [UInt64]] = [:]
  /// Re-send requests journaled.
  var requests: [DeviceKind: Int] = [:]
  var concluded: [DeviceKind: [SyncCheckResult.Outcome]] = [:]
  var nextLogID: UInt64 = 0x1000

  mutating func run(phoneFirst p: [SyncMachine.Directive], watchFirst w: [SyncMachine.Directive]) {
    var queue: [(to: DeviceKind, message: PeerMessage)] = []
    func perform(_ device: DeviceKind, _ directives: [SyncMachine.Directive], _ self_: inout LinkedPair) {
      for directive in directives {
        switch directive {
        case .send(let m): queue.append((device.peer, m))
        case .sendEntries(let from, let through):
          queue.append(
            (
              device.peer,
              .entries(
                (from...through).map { SyncEntry(seq: $0, payload: .watchSettings(bundleID: "x", change: .reset)) })
            ))
        case .apply(let entries):
          let next = self_.handle(device, .applied(upTo: entries.last!.seq))
          perform(device, next, &self_)
        case .restartLog:
          self_.restarts[device, default: 0] += 1
          self_.nextLogID += 1
          let next = self_.handle(device, .logRestarted(logID: self_.nextLogID, lastSeq: 2))
          perform(device, next, &self_)
        case .adoptPeerLog(let id): self_.adoptions[device, default: []].append(id)
        case .adoptResentLog(let id):
          self_.adoptions[device, default: []].append(id)
          self_.answers[device, default: []].append(id)
        case .requestResend: self_.requests[device, default: 0] += 1
        case .sendCheck(let cursors):
          queue.append((device.peer, .check(SyncCheck(cursors: cursors, firstDay: .min, days: []))))
        case .evaluateCheck(let check):
          let next = self_.handle(device, .checkEvaluated(check, difference: self_.differ()))
          perform(device, next, &self_)
        case .checkConcluded(let outcome, _): self_.concluded[device, default: []].append(outcome)
        default: break
        }
      }
    }
    perform(.phone, p, &self)
    perform(.watch, w, &self)
    var rounds = 0
    while !queue.isEmpty && rounds < 1000 {
      rounds += 1
      let (to, message) = queue.removeFirst()
      let directives = handle(to, .received(message))
      perform(to, directives, &self)
    }
  }

  mutating func handle(_ device: DeviceKind, _ input: SyncMachine.Input) -> [SyncMachine.Directive] {
    device == .phone ? phone.handle(input) : watch.handle(input)
  }

  mutating func connect() {
    let p = phone.handle(.opened(nonce: nonceA))
    let w = watch.handle(.opened(nonce: nonceB))
    run(phoneFirst: p, watchFirst: w)
  }
}
