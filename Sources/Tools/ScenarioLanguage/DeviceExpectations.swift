import HealthEngine
import HealthModel

/// Expectations about the pair and the devices themselves: convergence, the link, the lock, imports, Settings
/// changes, clocks, pending sheets and sync conflicts.
extension ParseState {
  /// `expect diverged:` + lines `only on <device>: <name>…`.
  func parseDiverged(_ c: inout Cursor, _ block: [SourceLine]) throws(Diagnostic) -> Expectation {
    try c.expect(":")
    try c.finish()
    return .diverged(try parseDivergences(block, c))
  }

  /// `expect link is up|down`.
  func parseLinkState(_ c: inout Cursor) throws(Diagnostic) -> Expectation {
    let t = try c.word("'up' or 'down'")
    guard t.keyword == "up" || t.keyword == "down" else {
      throw c.error(.expected("'up' or 'down'", found: t.text), at: t)
    }
    try c.finish()
    return .linkUp(t.keyword == "up")
  }

  /// `locked` / `unlocked`.
  func parseLocked(_ c: inout Cursor, _ devices: Devices, _ locked: Bool) throws(Diagnostic) -> Expectation {
    try c.finish()
    return .locked(devices, locked)
  }

  /// `<n> samples wait for unlock`: the locked journal (behavior.md L3).
  func parseWaitingForUnlock(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> Expectation {
    let n = Int(c.peek!.text)!
    c.index += 2
    guard c.take("wait", "for", "unlock") || c.take("waits", "for", "unlock") else {
      throw c.error(.expected("'wait for unlock'", found: c.peek?.text))
    }
    try c.finish()
    return .waitingForUnlock(try single(devices, c), n)
  }

  /// `last import added <n> samples [and <m> already present] [and <k> before the retention window]`.
  func parseLastImport(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> Expectation {
    let device = try single(devices, c)
    let added = try c.integer()
    guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
    var alreadyPresent: Int?
    var beforeRetention: Int?
    while !c.atEnd {
      _ = c.take("and")
      let n = try c.integer()
      if c.take("already", "present") {
        alreadyPresent = n
      } else if c.take("before", "the", "retention", "window") {
        beforeRetention = n
      } else {
        throw c.error(.expected("'already present' or 'before the retention window'", found: c.peek?.text))
      }
    }
    return .lastImport(device, added: added, alreadyPresent: alreadyPresent, beforeRetention: beforeRetention)
  }

  /// `the last settings change was refused|applied`.
  func parseSettingsRefused(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> Expectation {
    let device = try single(devices, c)
    let t = try c.word("'refused' or 'applied'")
    guard t.keyword == "refused" || t.keyword == "applied" else {
      throw c.error(.expected("'refused' or 'applied'", found: t.text), at: t)
    }
    try c.finish()
    return .settingsRefused(device, t.keyword == "refused")
  }

  /// `clock is <time>`.
  func parseClockIs(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> Expectation {
    let device = try single(devices, c)
    let time = try c.time()
    try c.finish()
    return .clock(device, time)
  }

  /// `earliest permitted sample date is <time>`.
  func parseEarliestPermitted(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> Expectation {
    let device = try single(devices, c)
    let time = try c.time()
    try c.finish()
    return .earliestPermitted(device, time)
  }

  /// `<n> sync conflicts`.
  func parseSyncConflicts(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> Expectation {
    let n = Int(c.peek!.text)!
    c.index += 2
    guard c.take("conflicts") || c.take("conflict") else {
      throw c.error(.expected("'conflicts'", found: c.peek?.text))
    }
    try c.finish()
    return .syncConflicts(devices, n)
  }

  /// `<n> sheets pending`.
  func parsePendingSheets(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> Expectation {
    let n = Int(c.peek!.text)!
    c.index += 1
    guard c.take("sheet", "pending") || c.take("sheets", "pending") else {
      throw c.error(.expected("'sheets pending'", found: c.peek?.text))
    }
    try c.finish()
    return .pendingSheets(try single(devices, c), n)
  }
}
