import HealthEngine
import HealthModel

/// The link and faults: `link: …`, `wait until synced`, `kill -9`, `stop`, `restart`, `tear … journal`, `cut …
/// journal by <n> records`.
extension ParseState {
  /// `link: disconnect|reconnect|hold [<device> to <device>]|release [<device> to <device>]|latency <duration>`.
  func parseLinkStep(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    try c.expect(":")
    return .link(try parseLink(&c))
  }

  /// The link action after `link:`.
  func parseLink(_ c: inout Cursor) throws(Diagnostic) -> LinkAction {
    let t = try c.word("'disconnect', 'reconnect', 'hold', 'release' or 'latency'")
    func direction(_ c: inout Cursor) throws(Diagnostic) -> [DeviceKind] {
      if c.atEnd { return [.phone, .watch] }
      let from = try c.device()
      _ = c.take("to") ? try c.device() : from.peer
      return [from]
    }
    let action: LinkAction
    switch t.keyword {
    case "disconnect": action = .disconnect
    case "reconnect", "connect": action = .reconnect
    case "hold": action = .hold(try direction(&c))
    case "release": action = .release(try direction(&c))
    case "latency": action = .latency(try c.duration())
    default:
      throw c.error(
        .unknownStep(
          t.text, suggestion: suggest(t.text, from: ["disconnect", "reconnect", "hold", "release", "latency"])), at: t)
    }
    try c.finish()
    return action
  }

  /// `wait until synced [within <duration>]` (10 s by default).
  func parseWait(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    try c.expect("until", "synced")
    let timeout = c.take("within") ? try c.duration() : 10
    try c.finish()
    return .waitSynced(timeout: timeout)
  }

  /// `kill -9 <device>`.
  func parseKill(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    _ = c.take("-9")
    let d = try c.device()
    try c.finish()
    return .kill(d)
  }

  /// `stop <device>`.
  func parseStop(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let d = try c.device()
    try c.finish()
    return .stop(d)
  }

  /// `restart <device>`.
  func parseRestart(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let d = try c.device()
    try c.finish()
    return .restart(d)
  }

  /// `tear <device> journal`.
  func parseTear(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let d = try c.device()
    try c.expect("journal")
    try c.finish()
    return .tearJournal(d)
  }

  /// `cut <device> journal by <n> records` (1 to 1,000,000).
  func parseCut(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let d = try c.device()
    try c.expect("journal", "by")
    let countToken = try c.word("a number of records")
    guard let count = Int(countToken.text), (1...1_000_000).contains(count) else {
      throw c.error(.invalidNumber(countToken.text), at: countToken)
    }
    guard c.take("records") || c.take("record") else { throw c.error(.expected("'records'", found: c.peek?.text)) }
    try c.finish()
    return .cutJournal(d, records: count)
  }
}
