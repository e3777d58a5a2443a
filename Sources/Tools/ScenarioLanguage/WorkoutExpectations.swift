import FoundationEssentials
import HealthEngine
import HealthModel

/// Expectations about workouts and activity summaries as an app reads them: how many workouts a query returns,
/// one named workout's duration, statistics, samples, routes and events, a day's activity summary
/// (docs/scenario-language.md, "Expectations"; behavior.md section E).
extension ParseState {
  /// `<App> sees …` forms about workouts and summaries, tried before the sample forms of ``seesForms``.
  static let workoutSeesForms: [AppExpectationRule] = [
    AppExpectationRule(when: { c in
      c.integer(before: ["workout"]) && c.line.tokens.count > c.index + 2
        && ["routes", "route"].contains(c.line.tokens[c.index + 2].keyword)
    }) { s, c, subject throws(Diagnostic) in
      try s.parseSeesRoutes(&c, subject)
    },
    // "sees 2 workouts", not "sees 0 workout samples" (a sample query of the workout type).
    AppExpectationRule(when: { c in
      c.integer(before: ["workouts", "workout"])
        && !(c.line.tokens.count > c.index + 2 && ["samples", "sample"].contains(c.line.tokens[c.index + 2].keyword))
    }) { s, c, subject throws(Diagnostic) in
      try s.parseSeesWorkouts(&c, subject)
    },
    AppExpectationRule(when: { $0.integer(before: ["heartbeat"]) && $0.line.tokens.count > $0.index + 2 }) {
      s, c, subject throws(Diagnostic) in try s.parseSeesHeartbeatSeries(&c, subject)
    },
    AppExpectationRule(when: { $0.integer(before: ["electrocardiograms", "electrocardiogram"]) }) {
      s, c, subject throws(Diagnostic) in try s.parseSeesElectrocardiograms(&c, subject)
    },
    AppExpectationRule(["no", "electrocardiograms"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesElectrocardiograms(&c, subject, count: 0)
    },
    AppExpectationRule(when: { $0.integer(before: ["audiograms", "audiogram"]) }) {
      s, c, subject throws(Diagnostic) in try s.parseSeesAudiograms(&c, subject)
    },
    AppExpectationRule(["no", "audiograms"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesAudiograms(&c, subject, count: 0)
    },
    AppExpectationRule(when: { ParseState.isClinicalRecordsForm($0) }) { s, c, subject throws(Diagnostic) in
      try s.parseSeesClinicalRecords(&c, subject)
    },
    AppExpectationRule(when: { $0.integer(before: ["states", "state"]) }) {
      s, c, subject throws(Diagnostic) in try s.parseSeesStatesOfMind(&c, subject)
    },
    AppExpectationRule(["no", "states", "of", "mind"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesStatesOfMind(&c, subject, count: 0)
    },
    AppExpectationRule(when: { $0.integer(before: ["gad-7", "phq-9"]) }) { s, c, subject throws(Diagnostic) in
      try s.parseSeesAssessments(&c, subject)
    },
    AppExpectationRule(["no", "gad-7"], ["no", "phq-9"]) { s, c, subject throws(Diagnostic) in
      c.index -= 1  // the kind, read again
      return try s.parseSeesAssessments(&c, subject, count: 0)
    },
    AppExpectationRule(when: { $0.integer(before: ["vision"]) }) { s, c, subject throws(Diagnostic) in
      try s.parseSeesPrescriptions(&c, subject)
    },
    AppExpectationRule(when: { $0.integer(before: ["medications", "medication"]) }) {
      s, c, subject throws(Diagnostic) in try s.parseSeesMedications(&c, subject)
    },
    AppExpectationRule(["no", "medications"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesMedications(&c, subject, count: 0)
    },
    AppExpectationRule(when: { $0.integer(before: ["dose"]) }) { s, c, subject throws(Diagnostic) in
      try s.parseSeesDoses(&c, subject)
    },
    AppExpectationRule(["no", "dose", "events"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesDoses(&c, subject, count: 0)
    },
    AppExpectationRule(when: { $0.integer(before: ["cda"]) }) { s, c, subject throws(Diagnostic) in
      try s.parseSeesDocuments(&c, subject)
    },
    AppExpectationRule(["no", "cda", "documents"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesDocuments(&c, subject, count: 0)
    },
    AppExpectationRule(["no", "vision", "prescriptions"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesPrescriptions(&c, subject, count: 0)
    },
    AppExpectationRule(["no", "workouts"]) { s, c, subject throws(Diagnostic) in
      try s.parseWorkoutQuery(&c, subject, count: 0)
    },
    AppExpectationRule(["activity", "summary"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesActivitySummary(&c, subject, exists: true)
    },
    AppExpectationRule(["no", "activity", "summary"]) { s, c, subject throws(Diagnostic) in
      try s.parseSeesActivitySummary(&c, subject, exists: false)
    },
  ]

  /// `sees <n> workouts …`.
  func parseSeesWorkouts(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let count = try c.integer()
    guard count >= 0 else { throw c.error(.invalidNumber(String(count)), at: c.line.tokens[c.index - 1]) }
    c.index += 1  // "workouts"
    return try parseWorkoutQuery(&c, subject, count: count)
  }

  /// `sees <n> workout routes [with <m> locations [each]] [query]`.
  func parseSeesRoutes(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let count = try c.integer()
    guard count >= 0 else { throw c.error(.invalidNumber(String(count)), at: c.line.tokens[c.index - 1]) }
    c.index += 2  // "workout routes"
    var locations: Int?
    if c.take("with") {
      let t = c.peek
      let n = try c.integer()
      guard n >= 0 else { throw c.error(.invalidNumber(String(n)), at: t) }
      guard c.take("locations") || c.take("location") else {
        throw c.error(.expected("'locations'", found: c.peek?.text))
      }
      _ = c.take("each")
      locations = n
    }
    var query = SampleQuerySpec(app: subject.app.name, type: SampleType.lookup(name: "workoutRoute")!)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesRoutes(subject.devices, query, count, locations: locations)
  }

  /// `[of <activity> [or <activity>…]] [lasting at least <duration>] [query]` after `sees <n> workouts`.
  func parseWorkoutQuery(_ c: inout Cursor, _ subject: AppExpectation, count: Int) throws(Diagnostic)
    -> Expectation
  {
    var spec = WorkoutQuerySpec(app: subject.app.name)
    if c.take("of") {
      repeat { spec.activities.append(try c.activityType()) } while c.take("or") || c.take("and")
    }
    if c.take("with", "activity") {
      repeat { spec.withActivities.append(try c.activityType()) } while c.take("or")
    }
    if c.take("lasting", "at", "least") { spec.minimumDuration = try c.duration() }
    try sampleModifiers(&c, &spec.query)
    try c.finish()
    return .seesWorkouts(subject.devices, spec, count)
  }

  /// `<App>'s workout <name> lasts <duration> | is <activity> | is not found | has … | <statistic> of <type> is
  /// <value> <unit>`.
  func parseWorkoutCheck(_ c: inout Cursor, _ on: PossessiveExpectation) throws(Diagnostic) -> Expectation {
    let name = try c.workoutName()
    let check: WorkoutCheck
    if c.take("lasts") {
      check = .duration(try c.duration())
    } else if c.take("is", "not", "found") {
      check = .notFound
    } else if c.take("is") {
      check = .activity(try c.activityType())
    } else if c.take("has") {
      check = try workoutHas(&c)
    } else if c.take("activity") {
      let t = c.peek
      let index = try c.integer()
      guard index >= 1 else { throw c.error(.invalidNumber(String(index)), at: t) }
      if c.take("is") {
        check = .leg(index, .activity(try c.activityType()))
      } else if c.take("lasts") {
        check = .leg(index, .duration(try c.duration()))
      } else {
        let (kind, type, value, unit) = try workoutStatistic(&c)
        check = .leg(index, .statistic(kind, type, value: value, unit: unit))
      }
    } else if let t = c.peek, StatisticKind(word: t.keyword) != nil {
      let (kind, type, value, unit) = try workoutStatistic(&c)
      check = .statistic(kind, type, value: value, unit: unit)
    } else {
      throw c.error(
        .expected(
          "'lasts', 'is', 'is not found', 'has', 'activity <k>' or a statistic such as 'sum of'", found: c.peek?.text))
    }
    try c.finish()
    return .workout(on.device, app: on.subject.app.name, name: name, check)
  }

  /// `<statistic> of <type> is <value> <unit>` of a workout or one of its activities (a quantity type; not
  /// `duration`).
  func workoutStatistic(_ c: inout Cursor) throws(Diagnostic) -> (StatisticKind, SampleType, Double, HealthUnit) {
    let t = c.peek
    guard let t, let kind = StatisticKind(word: t.keyword), kind != .duration else {
      throw c.error(.expected("'is', 'lasts' or a statistic such as 'sum of'", found: t?.text), at: t)
    }
    c.index += 1
    try c.expect("of")
    let typeToken = c.peek
    let type = try c.type()
    guard type.descriptor.isQuantity else {
      throw c.error(.expected("a quantity type", found: type.name), at: typeToken)
    }
    try c.expect("is")
    let value = try c.number()
    let unit = try c.unit(for: type)
    return (kind, type, value, unit)
  }

  /// After `has`: `no <type> statistics`, `no route`, `no [<type>] samples`, `no events`, `<n> routes [with <m>
  /// locations [each]]`, `<n> events`, `<n> <event type> events`, `<n> activities [of <activity>]`, `<n> [<type>]
  /// samples`.
  func workoutHas(_ c: inout Cursor) throws(Diagnostic) -> WorkoutCheck {
    if c.take("no") {
      if c.take("route") || c.take("routes") { return .routes(0, locations: nil) }
      if c.take("events") || c.take("event") { return .events(0) }
      if c.take("samples") || c.take("sample") { return .samples(nil, 0) }
      let type = try c.type()
      if c.take("statistics") || c.take("statistic") { return .noStatistic(type) }
      guard c.take("samples") || c.take("sample") else {
        throw c.error(.expected("'statistics' or 'samples'", found: c.peek?.text))
      }
      return .samples(type, 0)
    }
    let count = try c.integer()
    guard count >= 0 else { throw c.error(.invalidNumber(String(count)), at: c.line.tokens[c.index - 1]) }
    if c.take("routes") || c.take("route") {
      guard c.take("with") else { return .routes(count, locations: nil) }
      let locations = try c.integer()
      guard c.take("locations") || c.take("location") else {
        throw c.error(.expected("'locations'", found: c.peek?.text))
      }
      _ = c.take("each")
      return .routes(count, locations: locations)
    }
    if c.take("events") || c.take("event") { return .events(count) }
    if c.take("activities") || c.take("activity") {
      return .activities(count, c.take("of") ? try c.activityType() : nil)
    }
    if let t = c.peek, let type = WorkoutEventType(name: t.text), c.second(is: "events") || c.second(is: "event") {
      c.index += 2
      return .eventsOfType(type, count)
    }
    if c.take("samples") || c.take("sample") { return .samples(nil, count) }
    let type = try c.type()
    guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
    return .samples(type, count)
  }

  /// `sees activity summary [for] <date>[:] [<ring> <value> <unit>…] [paused | not paused]`, `sees no activity
  /// summary [for] <date>`.
  func parseSeesActivitySummary(_ c: inout Cursor, _ subject: AppExpectation, exists: Bool) throws(Diagnostic)
    -> Expectation
  {
    _ = c.take("for")
    let day = try c.localDay()
    guard exists else {
      try c.finish()
      return .activitySummary(subject.devices, app: subject.app.name, day, nil)
    }
    var check = ActivitySummaryCheck()
    _ = c.take(":")
    while !c.atEnd {
      if c.take("not", "paused") {
        check.paused = false
      } else if c.take("paused") {
        check.paused = true
      } else {
        check.values.append(try ringValue(&c))
      }
    }
    return .activitySummary(subject.devices, app: subject.app.name, day, check)
  }

  /// `move|move goal|move time|move time goal|exercise|exercise goal|stand|stand goal <value> [<unit>]`.
  func ringValue(_ c: inout Cursor) throws(Diagnostic) -> ActivityRingValue {
    let rings = ActivityRing.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
    guard let ring = rings.first(where: { c.take(words: $0.rawValue.split(separator: " ").map(String.init)) }) else {
      let names = ActivityRing.allCases.map(\.rawValue)
      let t = c.peek
      throw c.error(
        .unknownStatus(t?.text ?? "", valid: names, suggestion: t.flatMap { suggest($0.text, from: names) }), at: t)
    }
    let value = try c.number()
    let target = try! HealthUnit(parsing: ring.canonicalUnit)
    if ring == .stand || ring == .standGoal {
      // Stand hours are a count: `2`, `2 h`, `2 hr`, `2 hours`.
      if c.take("h") || c.take("hr") || c.take("hours") || c.take("hour") || c.take("count") {}
      return ActivityRingValue(ring: ring, value: value)
    }
    let unitToken = c.peek
    let unit = try c.unit(for: nil)
    guard unit.isCompatible(with: target), let converted = try? unit.convert(value, to: target) else {
      throw c.error(.incompatibleUnit(unit: unitToken?.text ?? "", type: "the \(ring.rawValue) ring"), at: unitToken)
    }
    return ActivityRingValue(ring: ring, value: converted)
  }

  /// `<App>'s activity summary query [for <date>] fails with <code> …|would terminate the app …|is no data`.
  func parseActivitySummaryQuery(_ c: inout Cursor, _ on: PossessiveExpectation) throws(Diagnostic) -> Expectation {
    var day: LocalDay?
    if c.take("for") { day = try c.localDay() }
    guard let outcome = try queryOutcome(&c) else {
      throw c.error(.expected("'is no data', 'fails with <code>' or 'would terminate the app'", found: c.peek?.text))
    }
    try c.finish()
    return .activitySummaryQuery(on.device, app: on.subject.app.name, day, outcome)
  }
}

extension Cursor {
  /// A Gregorian day written `YYYY-MM-DD` (an activity summary's day, local to the device).
  mutating func localDay() throws(Diagnostic) -> LocalDay {
    let t = try word("a day such as 2026-01-05")
    let parts = t.text.split(separator: "-").compactMap { Int($0) }
    guard ParseState.isBareDate(t.text), parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]),
      parseDate(t.text) != nil
    else { throw error(.invalidDate(t.text), at: t) }
    return LocalDay(year: parts[0], month: parts[1], day: parts[2])
  }
}
