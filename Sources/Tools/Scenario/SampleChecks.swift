import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// Sample checks: what an app's sample, correlation and anchored queries return (the daemon applies the app's
/// authorization, so these are the samples the app sees, not the store's).
extension RunContext {
  /// `<App> sees <n> <type> samples [query]` / `<App> sees no <type> samples [query]`.
  func checkSeesCount(_ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, _ step: Step) throws {
    for device in devices.list {
      let actual = try samples(device, spec, step, expecting: "\(expected) samples")
      if actual.count != expected {
        throw fail(step, "\(spec.app) sees \(expected) \(spec.type) samples on the \(device)", "\(actual.count)")
      }
    }
  }

  /// `<App> sees <n> <type> correlations [with <n> objects each] [query]`.
  func checkSeesCorrelations(
    _ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, objectsEach: Int?, _ step: Step
  ) throws {
    for device in devices.list {
      let query = CorrelationQuery(
        base: SampleQuery(
          type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
          limit: spec.limit ?? 0, sort: spec.sort))
      let bundle = app(spec.app).bundleID
      let results = try queried(
        step, "\(spec.app)'s correlation query of \(spec.type)", on: device, expecting: expected
      ) { () throws(ClientError) in try client(device).correlationQuery(bundle, query) }
      if results.count != expected {
        throw fail(
          step, "\(spec.app) sees \(expected) \(spec.type) correlations on the \(device)", "\(results.count)")
      }
      if let objectsEach, let odd = results.first(where: { $0.objects.count != objectsEach }) {
        throw fail(
          step, "\(objectsEach) objects in each \(spec.type) correlation on the \(device)",
          "\(odd.objects.count) in \(odd.correlation.uuid)")
      }
    }
  }

  /// `<App> sees <value> <unit> of <type> [on <date>]`: quantities summed, categories by their durations.
  func checkSeesTotal(
    _ devices: Devices, _ name: String, _ type: SampleType, _ value: Double, _ unit: HealthUnit, day: Date?,
    _ step: Step
  ) throws {
    for device in devices.list {
      let actual = try visibleTotal(device, name, type, unit: unit, day: day)
      if !same(actual, value) {
        throw fail(step, "\(name) sees \(show(value, unit)) of \(type) on the \(device)", show(actual, unit))
      }
    }
  }

  /// `<App> sees <type> [query]:` and its lines: the samples in order, each in the unit and with the fields its line
  /// writes.
  func checkSeesSamples(_ device: DeviceKind, _ spec: SampleQuerySpec, _ expected: [ExpectedSample], _ step: Step)
    throws
  {
    let samples = try samples(device, spec, step, expecting: "\(expected.count) samples")
    let actual = samples.map { describeForBlock($0, like: expected.first) }
    let wanted = expected.map { line -> String in
      var text = "\(line.value) at \(formatDate(resolve(line.at, on: device)))"
      if let app = line.app { text += " from \(app)" }
      if let device = line.device { text += " on \(device)" }
      return text
    }
    let actualAligned =
      zip(samples, expected).map { describeForBlock($0.0, like: $0.1) }
      + samples.dropFirst(expected.count).map { describeForBlock($0, like: nil) }
    if actualAligned != wanted {
      throw fail(
        step, wanted.isEmpty ? "no samples" : wanted.joined(separator: "\n"),
        actual.isEmpty ? "no samples" : actualAligned.joined(separator: "\n"))
    }
  }

  /// `<App>'s sample query of <type> [query] <outcome>`: no data, an error, an exception.
  func checkSampleQuery(_ device: DeviceKind, _ spec: SampleQuerySpec, _ expected: QueryOutcome, _ step: Step) throws {
    if spec.type.name == "workout" {
      // A sample query of workouts returns HKWorkouts (WorkoutChecks.swift).
      var workouts = WorkoutQuerySpec(app: spec.app)
      workouts.query = spec
      let result = attempt { () throws(ClientError) in try workoutQuery(device, workouts) }
      try compare(result, expected, step, what: "\(spec.app)'s sample query of workout") { found in
        found.isEmpty ? nil : "it returned \(found.count) workout\(found.count == 1 ? "" : "s")"
      }
      return
    }
    let result = attempt { () throws(ClientError) in try sampleQuery(device, spec) }
    try compare(result, expected, step, what: "\(spec.app)'s sample query of \(spec.type)") { samples in
      samples.isEmpty ? nil : "it returned \(samples.count) sample\(samples.count == 1 ? "" : "s")"
    }
  }

  /// `<App> sees changes of <type>: <n> added, <n> deleted`: an anchored query from the app's previous check of the
  /// type on the device.
  mutating func checkChanges(
    _ device: DeviceKind, _ name: String, _ type: SampleType, added: Int, deleted: Int, _ step: Step
  ) throws {
    let anchorKey = key(device, name) + "/\(type.code)"
    let anchor = anchors[anchorKey] ?? 0
    let bundle = app(name).bundleID
    let found: (added: Int, deleted: Int, newAnchor: UInt64)
    if DeviceState.anchoredApart.contains(type) || type.descriptor.objectKind == .clinicalRecord {
      // The workout family and the special object families are stored apart from samples, with their own anchored
      // query.
      let r = try client(device).anchoredWorkoutQuery(bundle, type: type, anchor: anchor)
      found = (r.addedCount, r.deleted.count, r.newAnchor)
    } else {
      let r = try client(device).anchoredQuery(bundle, type: type, anchor: anchor)
      found = (r.added.count, r.deleted.count, r.newAnchor)
    }
    anchors[anchorKey] = found.newAnchor
    if found.added != added || found.deleted != deleted {
      throw fail(step, "\(added) added, \(deleted) deleted", "\(found.added) added, \(found.deleted) deleted")
    }
  }

  /// `<App>'s queries of <type> fail with <code>`: sample and anchored queries, and statistics and collection
  /// queries when the type aggregates.
  func checkQueriesFail(_ device: DeviceKind, _ name: String, _ type: SampleType, _ code: HealthErrorCode, _ step: Step)
    throws
  {
    let bundle = app(name).bundleID
    let client = client(device)
    var kinds: [(String, () throws(ClientError) -> Void)] = [
      ("sample query", { () throws(ClientError) in _ = try client.sampleQuery(bundle, SampleQuery(type: type)) }),
      (
        "anchored query",
        { () throws(ClientError) in
          _ = try client.anchoredQuery(bundle, type: type, anchor: 0, range: nil, limit: 0)
        }
      ),
    ]
    if ["workout", "workoutRoute", "heartbeatSeries"].contains(type.name) {
      // Workouts, routes and heartbeat series have queries of their own (WorkoutChecks.swift).
      let query: () throws(ClientError) -> Void =
        switch type.name {
        case "workout": { () throws(ClientError) in _ = try client.workoutQuery(bundle, SampleQuery(type: type)) }
        case "workoutRoute":
          { () throws(ClientError) in _ = try client.routeQuery(bundle, workout: nil, SampleQuery(type: type)) }
        default: { () throws(ClientError) in _ = try client.heartbeatSeriesQuery(bundle, SampleQuery(type: type)) }
        }
      kinds = [
        ("sample query", query),
        (
          "anchored query",
          { () throws(ClientError) in _ = try client.anchoredWorkoutQuery(bundle, type: type, anchor: 0) }
        ),
      ]
    }
    if let style = type.descriptor.aggregation {
      let options: StatisticsOptions = style == .cumulative ? .cumulativeSum : .discreteAverage
      kinds.append(
        (
          "statistics query",
          { () throws(ClientError) in
            _ = try client.statistics(bundle, StatisticsQuery(type: type, options: options))
          }
        ))
      kinds.append(
        (
          "statistics collection query",
          { () throws(ClientError) in
            _ = try client.statisticsCollection(
              bundle,
              StatisticsQuery(
                type: type, options: options, interval: CalendarInterval(days: 1),
                anchor: Date(timeIntervalSinceReferenceDate: 0)))
          }
        ))
    }
    for (kind, run) in kinds {
      switch attempt(run) {
      case .success: throw fail(step, "\(name)'s \(kind) of \(type.name) to fail with \(code)", "it succeeded")
      case .failure(let error) where error.healthError?.kind == .healthKit && error.healthError?.code == code:
        continue
      case .failure(let error): throw fail(step, "\(name)'s \(kind) of \(type.name) to fail with \(code)", "\(error)")
      }
    }
  }

  /// Runs the sample query `spec` on `device`; the daemon applies its predicates (metadata, correlations) before the
  /// limit, as HealthKit does.
  func sampleQuery(_ device: DeviceKind, _ spec: SampleQuerySpec) throws(ClientError) -> [Sample] {
    let filters = spec.metadata.map(\.filter) + (spec.outsideCorrelations ? [.notInCorrelation] : [])
    let query = SampleQuery(
      type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
      limit: spec.limit ?? 0, sort: spec.sort,
      filter: filters.count > 1 ? .and(filters) : filters.first)
    return try client(device).sampleQuery(app(spec.app).bundleID, query)
  }

  /// The samples of `spec`; a query that fails is the step's failure (expected `expecting`).
  private func samples(_ device: DeviceKind, _ spec: SampleQuerySpec, _ step: Step, expecting: String) throws
    -> [Sample]
  {
    switch attempt({ () throws(ClientError) in try sampleQuery(device, spec) }) {
    case .success(let samples): return samples
    case .failure(let error):
      guard let health = error.healthError else { throw error }
      throw fail(
        step, "\(spec.app)'s sample query of \(spec.type) on the \(device) to return \(expecting)", show(health))
    }
  }

  /// The app's visible total of a type over a day: a statistics sum for quantities, summed durations for categories.
  private func visibleTotal(_ device: DeviceKind, _ name: String, _ type: SampleType, unit: HealthUnit, day: Date?)
    throws -> Double
  {
    let bundle = app(name).bundleID
    if let canonical = type.descriptor.canonicalUnit {
      let client = client(device)
      let query = StatisticsQuery(type: type, range: dayRange(day, on: device), options: .cumulativeSum)
      switch attempt({ () throws(ClientError) in try client.statistics(bundle, query) }) {
      case .success(let stats): return try canonical.convert(stats.sum ?? 0, to: unit)
      case .failure(let e) where e.healthError?.code == .errorNoData: return 0
      case .failure(let e): throw e
      }
    }
    let range = dayRange(day, on: device)
    let samples = try client(device).sampleQuery(bundle, SampleQuery(type: type, range: range))
    var seconds = 0.0
    for s in samples {
      var start = s.start
      var end = s.end
      if let range, let dayStart = range.start, let dayEnd = range.end {
        start = max(start, dayStart)
        end = min(end, dayEnd)
      }
      seconds += max(0, end.timeIntervalSince(start))
    }
    return try HealthUnit(parsing: "s").convert(seconds, to: unit)
  }

  /// Renders a sample the way a block line writes it, in the same unit as the expected line.
  private func describeForBlock(_ sample: Sample, like line: ExpectedSample?) -> String {
    var text: String
    switch sample.value {
    case .quantity(let v):
      let canonical = sample.type.descriptor.canonicalUnit!
      let unitText = line.flatMap { $0.value.split(separator: " ").last.map(String.init) }
      let unit = unitText.flatMap { try? HealthUnit(parsing: $0) } ?? canonical
      let converted = (try? canonical.convert(v, to: unit)) ?? v
      // The expected line's own spelling of the number when it denotes the same value (typed step by step, which
      // keeps the type checker quick).
      let firstWord: Substring? = line?.value.split(separator: " ").first
      let expected: Double? = firstWord.flatMap { Double($0) }
      let number: String =
        expected.map { same($0, converted) ? $0.formatted : formatNumber(converted) }
        ?? formatNumber(converted)
      text = "\(number) \(unit)"
    case .category(let c):
      text = sample.type.descriptor.categoryValues?.first { $0.value == c }?.name ?? String(c)
    }
    text += " at \(formatDate(sample.start))"
    if line?.app != nil {
      let appName = scenario.apps.values.first { $0.bundleID == sample.source.bundleID }?.name ?? sample.source.bundleID
      text += " from \(appName)"
    }
    if line?.device != nil { text += " on \(sample.source.device)" }
    return text
  }
}

extension Double {
  fileprivate var formatted: String { formatNumber(self) }
}
