import HealthEngine
import HealthModel

// The expectation tables: after `expect`, the pair's expectations (no device), then `<devices>:` and the devices'
// own expectations, then `<App>` and the app's (`<App>'s …` possessive forms in their own table). Each table is
// tried first row to last; how to add a form: StepTable.swift's header.

/// What an app's expectation is about: the devices, the app and the block under the line.
struct AppExpectation {
  /// The devices after `expect`.
  let devices: Devices
  /// The app named after the colon.
  let app: AppDeclaration
  /// The indented lines under the line.
  let block: [SourceLine]
}

/// What an `<App>'s …` expectation is about: the app's expectation, checked on one device.
struct PossessiveExpectation {
  /// The devices, app and block.
  let subject: AppExpectation
  /// The one device it is checked on.
  let device: DeviceKind
}

extension ParseState {
  /// An expectation about the pair, after `expect` (its block given).
  typealias PairExpectationRule = Rule<[SourceLine], Expectation>
  /// An expectation about the devices, after `expect <devices>:`.
  typealias DeviceExpectationRule = Rule<Devices, Expectation>
  /// An expectation about an app, after `expect <devices>: <App>`.
  typealias AppExpectationRule = Rule<AppExpectation, Expectation>
  /// An expectation after `expect <device>: <App>'s`, about one device.
  typealias PossessiveExpectationRule = Rule<PossessiveExpectation, Expectation>

  /// `expect converged`, `expect diverged:`, `expect link is up|down`.
  static let pairExpectations: [PairExpectationRule] = [
    PairExpectationRule(["converged"]) { _, c, _ throws(Diagnostic) in
      try c.finish()
      return .converged
    },
    PairExpectationRule(["diverged"]) { s, c, block throws(Diagnostic) in try s.parseDiverged(&c, block) },
    PairExpectationRule(["link", "is"]) { s, c, _ throws(Diagnostic) in try s.parseLinkState(&c) },
  ]

  /// The devices' own expectations, before any app is named (DeviceExpectations.swift, SampleExpectations.swift).
  static let deviceExpectations: [DeviceExpectationRule] = [
    DeviceExpectationRule(["locked"]) { s, c, devices throws(Diagnostic) in try s.parseLocked(&c, devices, true) },
    DeviceExpectationRule(["unlocked"]) { s, c, devices throws(Diagnostic) in try s.parseLocked(&c, devices, false) },
    DeviceExpectationRule(when: { $0.integer(before: ["samples", "sample"]) }) { s, c, devices throws(Diagnostic) in
      try s.parseWaitingForUnlock(&c, devices)
    },
    DeviceExpectationRule(["store"]) { s, c, devices throws(Diagnostic) in try s.parseStore(&c, devices: devices) },
    DeviceExpectationRule(["last", "import", "added"]) { s, c, devices throws(Diagnostic) in
      try s.parseLastImport(&c, devices)
    },
    DeviceExpectationRule(["the", "last", "settings", "change", "was"]) { s, c, devices throws(Diagnostic) in
      try s.parseSettingsRefused(&c, devices)
    },
    DeviceExpectationRule(["clock", "is"]) { s, c, devices throws(Diagnostic) in try s.parseClockIs(&c, devices) },
    DeviceExpectationRule(["earliest", "permitted", "sample", "date", "is"]) { s, c, devices throws(Diagnostic) in
      try s.parseEarliestPermitted(&c, devices)
    },
    DeviceExpectationRule(["no", "sheet", "pending"], ["no", "sheets", "pending"]) { s, c, devices throws(Diagnostic) in
      try c.finish()
      return .pendingSheets(try s.single(devices, c), 0)
    },
    DeviceExpectationRule(when: { $0.integer(before: ["sync"]) }) { s, c, devices throws(Diagnostic) in
      try s.parseSyncConflicts(&c, devices)
    },
    DeviceExpectationRule(when: { $0.peek.flatMap { Int($0.text) } != nil }) { s, c, devices throws(Diagnostic) in
      try s.parsePendingSheets(&c, devices)
    },
  ]

  /// `<App>'s …`, checked on one device (AuthorizationExpectations.swift and the files of their families).
  static let possessiveExpectations: [PossessiveExpectationRule] = [
    PossessiveExpectationRule(["last", "call"]) { s, c, on throws(Diagnostic) in
      let outcome = try s.parseCallOutcome(&c)
      try c.finish()
      return .lastCall(on.device, app: on.subject.app.name, outcome)
    },
    PossessiveExpectationRule(["queries", "of"]) { s, c, on throws(Diagnostic) in
      try s.parseQueriesFail(&c, on.subject, on.device)
    },
    PossessiveExpectationRule(["sample", "query", "of"]) { s, c, on throws(Diagnostic) in
      try s.parseSampleQuery(&c, on.subject, on.device)
    },
    PossessiveExpectationRule(["requests"]) { s, c, on throws(Diagnostic) in
      .sheetHistory(on.device, app: on.subject.app.name, try s.sheetCounts(&c))
    },
    PossessiveExpectationRule(["read", "of"]) { s, c, on throws(Diagnostic) in
      try s.parseCharacteristicFails(&c, on.subject, on.device)
    },
    PossessiveExpectationRule(["preferred", "unit", "for"]) { s, c, on throws(Diagnostic) in
      try s.parsePreferredUnitIs(&c, on.subject, on.device)
    },
    PossessiveExpectationRule(["preferred", "units", "for"]) { s, c, on throws(Diagnostic) in
      try s.parsePreferredUnitsFail(&c, on.subject, on.device)
    },
    PossessiveExpectationRule(["background", "delivery", "of"]) { s, c, on throws(Diagnostic) in
      try s.parseBackgroundState(&c, on.subject, on.device)
    },
    PossessiveExpectationRule(["background", "deliveries", "of"]) { s, c, on throws(Diagnostic) in
      try s.parseBackgroundCounts(&c, on.subject, on.device)
    },
    PossessiveExpectationRule(["workout", "session"]) { s, c, on throws(Diagnostic) in
      try s.parseSessionCheck(&c, on)
    },
    PossessiveExpectationRule(["workout"]) { s, c, on throws(Diagnostic) in try s.parseWorkoutCheck(&c, on) },
    PossessiveExpectationRule(["activity", "summary", "query"]) { s, c, on throws(Diagnostic) in
      try s.parseActivitySummaryQuery(&c, on)
    },
    PossessiveExpectationRule(["request"]) { s, c, on throws(Diagnostic) in
      try s.parseRequestSheet(&c, on.subject, on.device)
    },
  ]

  /// `<App> …` (AuthorizationExpectations.swift, UserSettingExpectations.swift, SampleExpectations.swift,
  /// StatisticsExpectations.swift).
  static let appExpectations: [AppExpectationRule] = [
    AppExpectationRule(["share"]) { s, c, subject throws(Diagnostic) in try s.parseShareStatus(&c, subject) },
    AppExpectationRule(["read"]) { s, c, subject throws(Diagnostic) in try s.parseHiddenRead(&c, subject) },
    AppExpectationRule(["request", "status"]) { s, c, subject throws(Diagnostic) in
      try s.parseRequestStatus(&c, subject)
    },
    AppExpectationRule(["reads"]) { s, c, subject throws(Diagnostic) in try s.parseCharacteristicValue(&c, subject) },
    AppExpectationRule(["is", "locked", "out"]) { _, c, subject throws(Diagnostic) in
      try c.finish()
      return .lockedOut(subject.devices, app: subject.app.name, true)
    },
    AppExpectationRule(["is", "not", "locked", "out"]) { _, c, subject throws(Diagnostic) in
      try c.finish()
      return .lockedOut(subject.devices, app: subject.app.name, false)
    },
    AppExpectationRule(["sees"]) { s, c, subject throws(Diagnostic) in try s.parseSees(&c, subject) },
    AppExpectationRule(["recovers", "workout", "session"]) { s, c, subject throws(Diagnostic) in
      try s.parseRecovers(&c, subject)
    },
    AppExpectationRule(["has", "no", "workout", "session", "to", "recover"]) { s, c, subject throws(Diagnostic) in
      try c.finish()
      return .recovers(try s.single(subject.devices, c), app: subject.app.name, name: nil)
    },
    // "daily sum of stepCount from … to …:": a collection by that interval.
    AppExpectationRule(when: { c in c.peek.flatMap { ParseState.interval(adverb: $0.keyword) } != nil }) {
      s, c, subject throws(Diagnostic) in try s.parseIntervalStatistic(&c, subject)
    },
    AppExpectationRule(when: { c in c.peek.flatMap { StatisticKind(word: $0.keyword) } != nil }) {
      s, c, subject throws(Diagnostic) in
      let kind = StatisticKind(word: c.next()!.keyword)!
      return try s.parseStatistic(&c, subject, kind: kind, interval: nil)
    },
  ]

  /// `expect …` as a step: the expectation, its apps installed where it queries them.
  mutating func parseExpectStep(_ c: inout Cursor, _ step: StepLine) throws(Diagnostic) -> StepKind {
    let expectation = try parseExpectation(&c, block: step.block)
    try checkInstalled(expectation, step.line)
    return .expect(expectation)
  }

  /// The expectation after `expect`: one about the pair, or `<devices>:` and one about them. `expect both:` with an
  /// expectation about one device is read twice: the phone's, then the watch's.
  mutating func parseExpectation(_ c: inout Cursor, block: [SourceLine]) throws(Diagnostic) -> Expectation {
    if let parse = c.take(firstOf: Self.pairExpectations) { return try parse(&self, &c, block) }
    let devices = try c.devices()
    try c.expect(":")
    let start = c
    do {
      return try parseDeviceExpectation(&c, devices: devices, block: block)
    } catch let failure where failure.error == .oneDeviceAtATime && devices == .both {
      var phoneCursor = start
      var watchCursor = start
      let phone = try parseDeviceExpectation(&phoneCursor, devices: .one(.phone), block: block)
      let watch = try parseDeviceExpectation(&watchCursor, devices: .one(.watch), block: block)
      c = phoneCursor
      return .onBoth(phone: phone, watch: watch)
    }
  }

  /// The expectation after `expect <devices>:`: the devices' own, else the app's.
  mutating func parseDeviceExpectation(_ c: inout Cursor, devices: Devices, block: [SourceLine]) throws(Diagnostic)
    -> Expectation
  {
    if let parse = c.take(firstOf: Self.deviceExpectations) { return try parse(&self, &c, devices) }
    var possessive = false
    let app = try c.app(possessive: &possessive)
    let subject = AppExpectation(devices: devices, app: app, block: block)
    if possessive {
      let device = try single(devices, c)
      guard let parse = c.take(firstOf: Self.possessiveExpectations) else {
        throw c.error(.expected(choices(Self.possessiveExpectations.compactMap(\.firstPhrase)), found: c.peek?.text))
      }
      return try parse(&self, &c, PossessiveExpectation(subject: subject, device: device))
    }
    if let parse = c.take(firstOf: Self.appExpectations) { return try parse(&self, &c, subject) }
    if let t = c.peek, c.second(is: "of") {
      throw c.error(
        .unknownStatus(t.text, valid: StatisticKind.words, suggestion: suggest(t.text, from: StatisticKind.words)),
        at: t)
    }
    throw c.error(
      .expected(
        "an expectation ('share', 'read', 'request status', 'sees', 'reads', 'is locked out', 'sum of', 'daily', "
          + "or a possessive such as \(app.name)'s)",
        found: c.peek?.text))
  }
}
