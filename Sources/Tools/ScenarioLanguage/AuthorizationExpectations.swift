import HealthEngine
import HealthModel

/// Expectations about authorization: statuses, request statuses, the app's last call, its sheets and the strict
/// model's lockout, and queries refused for it.
extension ParseState {
  /// The names of `AuthorizationStatus`, for suggestions.
  static let statusNames = AuthorizationStatus.allCases.map(\.description)
  /// The names of `AuthorizationRequestStatus`, for suggestions.
  static let requestStatusNames = AuthorizationRequestStatus.allCases.map(\.description)

  /// `<type> is <word>` after `share` or `read`: the type and the status word.
  func typeAndStatus(_ c: inout Cursor) throws(Diagnostic) -> (SampleType, Token) {
    let type = try c.type()
    try c.expect("is")
    let t = try c.word("a status")
    try c.finish()
    return (type, t)
  }

  /// `<App> share <type> is <status>`.
  func parseShareStatus(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let (type, t) = try typeAndStatus(&c)
    guard let status = AuthorizationStatus.allCases.first(where: { $0.description.lowercased() == t.keyword }) else {
      throw c.error(
        .unknownStatus(t.text, valid: Self.statusNames, suggestion: suggest(t.text, from: Self.statusNames)), at: t)
    }
    return .shareStatus(subject.devices, app: subject.app.name, type, status)
  }

  /// `<App> read <type> is authorized|denied|undecided`: the hidden read decision.
  func parseHiddenRead(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let (type, t) = try typeAndStatus(&c)
    let decisions: [String: Decision?] = [
      "authorized": .authorized, "denied": .denied, "undecided": nil, "notdetermined": nil,
    ]
    guard let decision = decisions[t.keyword] else {
      throw c.error(
        .unknownStatus(
          t.text, valid: ["authorized", "denied", "undecided"],
          suggestion: suggest(t.text, from: ["authorized", "denied", "undecided"])), at: t)
    }
    return .hiddenRead(subject.devices, app: subject.app.name, type, decision)
  }

  /// `<App> request status [for] [share <types>] [read <types>] is <status>` / `… would terminate the app [with
  /// "…"]`. Named types: those; none: the app's declaration on each device, when the step runs.
  func parseRequestStatus(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let (devices, app) = (subject.devices, subject.app)
    _ = c.take("for")
    var share: [SampleType]?
    var read: [SampleType]?
    while !c.atEnd, c.peek?.keyword != "is", c.peek?.keyword != "would" {
      if c.take("share") {
        share = try c.types(stoppingAt: ["read", "is", "share", "would"])
      } else if c.take("read") {
        read = try c.types(stoppingAt: ["share", "is", "read", "would"])
      } else {
        throw c.error(.expected("'share', 'read', 'is' or 'would terminate the app'", found: c.peek?.text))
      }
    }
    // Named types: those; none: the app's declaration on each device, when the step runs.
    if share != nil || read != nil {
      share = share ?? []
      read = read ?? []
    }
    if c.take("would", "terminate", "the", "app") {
      _ = c.take("with")
      let fragments = try fragments(&c)
      return .requestStatus(devices, app: app.name, share: share, read: read, .wouldTerminate(fragments))
    }
    try c.expect("is")
    let t = try c.word("a request status")
    try c.finish()
    guard let status = AuthorizationRequestStatus.allCases.first(where: { $0.description.lowercased() == t.keyword })
    else {
      throw c.error(
        .unknownStatus(
          t.text, valid: Self.requestStatusNames, suggestion: suggest(t.text, from: Self.requestStatusNames)), at: t)
    }
    return .requestStatus(devices, app: app.name, share: share, read: read, .status(status))
  }

  /// `<App>'s request is pending`, `… showed no sheet`, `… showed a sheet [listing <permission>…]`.
  func parseRequestSheet(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    if c.take("is", "pending") {
      try c.finish()
      return .lastCall(device, app: subject.app.name, .pending)
    }
    if c.take("showed", "no", "sheet") {
      try c.finish()
      return .noSheet(device, app: subject.app.name)
    }
    try c.expect("showed", "a", "sheet", what: "'showed a sheet', 'showed no sheet' or 'is pending'")
    var listing: [Permission]?
    if c.take("listing") { listing = try c.permissions() }
    try c.finish()
    return .sheetShown(device, app: subject.app.name, listing: listing)
  }

  /// `<App>'s queries of <type> fail with <code>`: every query kind fails with the code.
  func parseQueriesFail(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    let type = try c.type()
    guard c.take("fail", "with") || c.take("fails", "with") else {
      throw c.error(.expected("'fail with <code>'", found: c.peek?.text))
    }
    let t = try c.word("an HKError code such as errorAuthorizationNotDetermined")
    guard let code = HealthErrorCode(name: t.text) else {
      throw c.error(
        .unknownErrorCode(t.text, suggestion: suggest(t.text, from: HealthErrorCode.allCases.map(\.description))),
        at: t)
    }
    try c.finish()
    return .queriesFail(device, app: subject.app.name, type, code)
  }

  /// `succeeded`, `is pending`, `failed [with <code>] ["<fragment>"…]`, `would terminate the app [with
  /// "<fragment>"…]`.
  func parseCallOutcome(_ c: inout Cursor) throws(Diagnostic) -> CallExpectation {
    if c.take("succeeded") { return .succeeded }
    if c.take("is", "pending") { return .pending }
    if c.take("failed") {
      var code: HealthErrorCode?
      if c.take("with"), c.peek?.quoted != true { code = try errorCode(&c) }
      return .failed(code, fragments: try fragments(&c))
    }
    if let t = c.peek, !t.quoted, t.keyword != "would", let near = suggest(t.text, from: ["succeeded", "failed"]) {
      throw c.error(
        .unknownStatus(
          t.text, valid: ["succeeded", "failed", "would terminate the app", "is pending"],
          suggestion: near), at: t)
    }
    try c.expect(
      "would", "terminate", "the", "app",
      what: "'succeeded', 'failed [with <code>]', 'would terminate the app' or 'is pending'")
    _ = c.take("with")
    return .wouldTerminate(try fragments(&c))
  }

  /// `<App>'s requests …`: `showed <n> sheets`, `answered <n>`, `cancelled <n>`, `<n> presentations failed`, any
  /// of them, in any order.
  func sheetCounts(_ c: inout Cursor) throws(Diagnostic) -> SheetCounts {
    var counts = SheetCounts()
    let what = "'showed <n> sheets', 'answered <n>', 'cancelled <n>' or '<n> presentations failed'"
    while !c.atEnd {
      if c.take("and") { continue }
      if c.take("showed") {
        counts.shown = c.take("no") ? 0 : try c.integer()
        guard c.take("sheets") || c.take("sheet") else { throw c.error(.expected("'sheets'", found: c.peek?.text)) }
      } else if c.take("answered") {
        counts.answered = try c.integer()
      } else if c.take("cancelled") || c.take("canceled") {
        counts.cancelled = try c.integer()
      } else if let n = c.peek.flatMap({ Int($0.text) }) {
        c.index += 1
        if c.take("presentations", "failed") || c.take("presentation", "failed") || c.take("failed", "to", "present") {
          counts.failed = n
        } else if c.take("answered") {
          counts.answered = n
        } else if c.take("cancelled") || c.take("canceled") {
          counts.cancelled = n
        } else if c.take("sheets") || c.take("sheet") {
          counts.shown = n
        } else {
          throw c.error(.expected("'presentations failed', 'answered' or 'cancelled'", found: c.peek?.text))
        }
      } else {
        let t = c.peek!
        let words = ["showed", "answered", "cancelled"]
        if let near = suggest(t.text, from: words) {
          throw c.error(.unknownStatus(t.text, valid: words, suggestion: near), at: t)
        }
        throw c.error(.expected(what, found: t.text), at: t)
      }
    }
    if counts.isEmpty { throw c.error(.expected(what, found: nil)) }
    return counts
  }
}
