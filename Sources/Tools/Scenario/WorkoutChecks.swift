import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import Render
import ScenarioLanguage

/// What an app's workout, route and activity summary queries return (the daemon applies the app's authorization:
/// these are what the app sees, not the store's).
extension RunContext {
  /// `<App> sees <n> workouts [of <activity>…] [lasting at least <duration>] [query]`.
  func checkSeesWorkouts(_ devices: Devices, _ spec: WorkoutQuerySpec, _ expected: Int, _ step: Step) throws {
    let what = spec.activities.isEmpty ? "workouts" : spec.activities.map(\.description).joined(separator: " or ")
    for device in devices.list {
      let found = try queried(step, "\(spec.query.app)'s workout query", on: device, expecting: expected) {
        () throws(ClientError) in try workoutQuery(device, spec)
      }
      if found.count != expected {
        throw fail(step, "\(spec.query.app) sees \(expected) \(what) on the \(device)", "\(found.count)")
      }
    }
  }

  /// The workout query `spec` on `device`: its activity types, minimum duration and the sample-query modifiers.
  func workoutQuery(_ device: DeviceKind, _ spec: WorkoutQuerySpec) throws(ClientError) -> [Workout] {
    var filters = spec.query.metadata.map(\.filter)
    if !spec.activities.isEmpty { filters.append(.workoutActivityType(Set(spec.activities.map(\.rawValue)))) }
    if !spec.withActivities.isEmpty {
      filters.append(.workoutActivity(.workoutActivityType(Set(spec.withActivities.map(\.rawValue)))))
    }
    if let minimum = spec.minimumDuration { filters.append(.workoutDuration(.greaterThanOrEqualTo, minimum)) }
    let q = spec.query
    let query = SampleQuery(
      type: q.type, range: q.range.map { resolve($0, on: device) }, sources: sources(q.sources), limit: q.limit ?? 0,
      sort: q.sort, filter: filters.count > 1 ? .and(filters) : filters.first)
    return try client(device).workoutQuery(app(q.app).bundleID, query)
  }

  /// `<App>'s workout <name> …`: the workout as the app's query by its identifier returns it; its samples by
  /// `predicateForObjects(from:)`; its routes by a route query of the workout.
  func checkWorkout(_ device: DeviceKind, _ name: String, _ workout: String, _ check: WorkoutCheck, _ step: Step)
    throws
  {
    let bundle = app(name).bundleID
    let uuid = workouts[workout]?.uuid ?? names[workout] ?? UUID()
    let c = client(device)
    let subject = "\(name)'s workout \(workout) on the \(device)"
    func run<T>(_ what: String, _ body: () throws(ClientError) -> T) throws -> T {
      switch attempt(body) {
      case .success(let value): return value
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        throw fail(step, "\(name)'s \(what) on the \(device) to succeed", show(health))
      }
    }
    switch check {
    case .routes(let count, let locations):
      let routes = try run("route query") { () throws(ClientError) in
        try c.routeQuery(bundle, workout: uuid, SampleQuery(type: SampleType.lookup(name: "workoutRoute")!))
      }
      let expected = "\(count) route\(count == 1 ? "" : "s")" + (locations.map { " with \($0) locations" } ?? "")
      let actual =
        "\(routes.count) route\(routes.count == 1 ? "" : "s")"
        + (routes.isEmpty
          ? ""
          : " with " + routes.map { String($0.locations.count) }.joined(separator: ", ")
            + " locations")
      if routes.count != count || (locations.map { n in routes.contains { $0.locations.count != n } } ?? false) {
        throw fail(step, "\(subject) has \(expected)", actual)
      }
      return
    case .samples(let type, let count):
      let types = type.map { [$0] } ?? (workouts[workout]?.sampleTypes ?? []).sorted { $0.code < $1.code }
      var total = 0
      for t in types {
        total += try run("sample query of \(t.name) from the workout") { () throws(ClientError) in
          try c.sampleQuery(bundle, SampleQuery(type: t, filter: .associatedWith(uuid))).count
        }
      }
      if total != count {
        throw fail(step, "\(subject) has \(count) \(type.map { "\($0.name) " } ?? "")samples", "\(total)")
      }
      return
    default: break
    }
    let found = try run("workout query") { () throws(ClientError) in
      try c.workoutQuery(bundle, SampleQuery(type: SampleType.lookup(name: "workout")!, filter: .uuids([uuid])))
    }
    if case .notFound = check {
      if !found.isEmpty { throw fail(step, "\(subject) is not found", "the query returned it") }
      return
    }
    guard let w = found.first else { throw fail(step, "\(subject) to be found", "the query returned no workout") }
    switch check {
    case .duration(let seconds):
      if !same(w.duration, seconds) {
        throw fail(step, "\(subject) lasts \(formatDuration(seconds))", formatDuration(w.duration))
      }
    case .activity(let type):
      if w.activityType != type { throw fail(step, "\(subject) is \(type)", "\(w.activityType)") }
    case .events(let count):
      if w.events.count != count {
        throw fail(
          step, "\(subject) has \(count) events",
          "\(w.events.count): " + w.events.map { "\($0.type) at \(formatDate($0.start))" }.joined(separator: ", "))
      }
    case .eventsOfType(let type, let count):
      let matching = w.events.filter { $0.type == type }
      if matching.count != count {
        throw fail(
          step, "\(subject) has \(count) \(type) events",
          "\(matching.count) (events: " + w.events.map { "\($0.type)" }.joined(separator: ", ") + ")")
      }
    case .activities(let count, let type):
      let matching = w.activities.filter { a in type.map { a.configuration.activityType == $0 } ?? true }
      if matching.count != count {
        throw fail(
          step, "\(subject) has \(count) activities" + (type.map { " of \($0)" } ?? ""),
          "\(matching.count) (activities: "
            + w.activities.map { "\($0.configuration.activityType)" }.joined(separator: ", ") + ")")
      }
    case .noStatistic(let type):
      if let s = w.statistic(for: type) {
        throw fail(step, "\(subject) has no \(type.name) statistics", "it has \(describe(s))")
      }
    case .leg(let index, let leg):
      try checkActivity(w, index, leg, subject, step)
    case .statistic(let kind, let type, let value, let unit):
      try checkStatistic(w.statistic(for: type), kind, type, value, unit, subject, step)
    case .routes, .samples, .notFound: break
    }
  }

  /// The `kind` of `statistic` (of `type`) is `value` in `unit`, else the step fails naming `subject`.
  func checkStatistic(
    _ statistic: WorkoutStatistic?, _ kind: StatisticKind, _ type: SampleType, _ value: Double, _ unit: HealthUnit,
    _ subject: String, _ step: Step
  ) throws {
    let canonical = type.descriptor.canonicalUnit!
    let stored: Double? = statistic.flatMap { s in
      switch kind {
      case .sum: s.sum
      case .average: s.average
      case .min: s.minimum
      case .max: s.maximum
      case .mostRecent: s.mostRecent
      case .duration: nil
      }
    }
    let actual = try stored.map { try canonical.convert($0, to: unit) }
    if actual.map({ !same($0, value) }) ?? true {
      throw fail(
        step, "\(subject): \(kind.rawValue) of \(type.name) is \(show(value, unit))",
        actual.map { show($0, unit) } ?? "no \(kind.rawValue) of \(type.name) recorded")
    }
  }

  /// `activity <k> …`: the k-th (1-based) of the workout's activities.
  private func checkActivity(_ w: Workout, _ index: Int, _ leg: WorkoutLegCheck, _ subject: String, _ step: Step)
    throws
  {
    let what = "\(subject): activity \(index)"
    guard index <= w.activities.count else {
      throw fail(step, "\(what) to exist", "the workout has \(w.activities.count) activities")
    }
    let a = w.activities[index - 1]
    switch leg {
    case .activity(let type):
      if a.configuration.activityType != type {
        throw fail(step, "\(what) is \(type)", "\(a.configuration.activityType)")
      }
    case .duration(let seconds):
      let actual = (a.end ?? a.start).timeIntervalSince(a.start)
      if !same(actual, seconds) { throw fail(step, "\(what) lasts \(formatDuration(seconds))", formatDuration(actual)) }
    case .statistic(let kind, let type, let value, let unit):
      try checkStatistic(a.statistics.first { $0.type == type }, kind, type, value, unit, what, step)
    }
  }

  /// A workout statistic as a failure shows it.
  func describe(_ s: WorkoutStatistic) -> String {
    let parts: [(String, Double?)] = [
      ("sum", s.sum), ("min", s.minimum), ("max", s.maximum), ("average", s.average), ("mostRecent", s.mostRecent),
    ]
    let unit = s.type.descriptor.canonicalUnit.map { " \($0)" } ?? ""
    return parts.compactMap { name, v in v.map { "\(name) \(formatNumber($0))\(unit)" } }.joined(separator: ", ")
  }

  /// Seconds as a scenario writes a duration (`40m`, `1h30m`, `90s`).
  func formatDuration(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded())
    guard Double(whole) == seconds || same(Double(whole), seconds) else { return "\(formatNumber(seconds))s" }
    let (h, m, s) = (whole / 3600, whole % 3600 / 60, whole % 60)
    var text = (h > 0 ? "\(h)h" : "") + (m > 0 ? "\(m)m" : "") + (s > 0 ? "\(s)s" : "")
    if text.isEmpty { text = "0s" }
    return text
  }

  /// `<App> sees [no] activity summary <date> …`: `HKActivitySummaryQuery` for that day.
  func checkActivitySummary(
    _ devices: Devices, _ name: String, _ day: LocalDay, _ check: ActivitySummaryCheck?, _ step: Step
  ) throws {
    let bundle = app(name).bundleID
    for device in devices.list {
      let summaries: [ActivitySummary]
      switch attempt({ () throws(ClientError) in try client(device).activitySummaryQuery(bundle, from: day, to: day) })
      {
      case .success(let s): summaries = s
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        throw fail(step, "\(name)'s activity summary query for \(day) on the \(device) to succeed", show(health))
      }
      guard let check else {
        if !summaries.isEmpty {
          throw fail(step, "\(name) sees no activity summary for \(day) on the \(device)", describe(summaries[0]))
        }
        continue
      }
      guard let summary = summaries.first(where: { $0.day == day }) else {
        throw fail(step, "\(name) sees an activity summary for \(day) on the \(device)", "none")
      }
      let wrong =
        check.values.contains { !same(value(of: $0.ring, in: summary), $0.value) }
        || check.paused.map { $0 != summary.isPaused } == true
      if wrong {
        let expected =
          check.values.map { "\($0.ring.rawValue) \(formatNumber($0.value)) \(shownUnit($0.ring))" }
          + (check.paused.map { [$0 ? "paused" : "not paused"] } ?? [])
        throw fail(
          step, "\(name) sees activity summary \(day) on the \(device): " + expected.joined(separator: ", "),
          describe(summary))
      }
    }
  }

  /// The value of `ring` in `summary` (kcal, minutes, hours).
  private func value(of ring: ActivityRing, in summary: ActivitySummary) -> Double {
    switch ring {
    case .move: summary.activeEnergy
    case .moveGoal: summary.activeEnergyGoal
    case .moveTime: summary.moveTime
    case .moveTimeGoal: summary.moveTimeGoal
    case .exercise: summary.exerciseTime
    case .exerciseGoal: summary.exerciseTimeGoal
    case .stand: summary.standHours
    case .standGoal: summary.standHoursGoal
    }
  }

  /// The unit a ring's value is shown in: stand hours as `h`, the others in their canonical unit.
  private func shownUnit(_ ring: ActivityRing) -> String {
    ring == .stand || ring == .standGoal ? "h" : ring.canonicalUnit
  }

  /// A summary as a failure shows it: every ring and goal.
  private func describe(_ summary: ActivitySummary) -> String {
    let rings = ActivityRing.allCases.map { ring in
      "\(ring.rawValue) \(formatNumber((value(of: ring, in: summary) * 1e6).rounded() / 1e6)) \(shownUnit(ring))"
    }
    return "\(summary.day): " + rings.joined(separator: ", ") + (summary.isPaused ? ", paused" : "")
  }

  /// `<App>'s activity summary query [for <date>] <outcome>`.
  func checkActivitySummaryQuery(
    _ device: DeviceKind, _ name: String, _ day: LocalDay?, _ outcome: QueryOutcome, _ step: Step
  ) throws {
    let bundle = app(name).bundleID
    let c = client(device)
    let result = attempt { () throws(ClientError) in try c.activitySummaryQuery(bundle, from: day, to: day) }
    try compare(result, outcome, step, what: "\(name)'s activity summary query") { summaries in
      summaries.isEmpty ? nil : "it returned \(summaries.count) summar\(summaries.count == 1 ? "y" : "ies")"
    }
  }
}
