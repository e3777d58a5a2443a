import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// Statistics checks: `HKStatisticsQuery` and `HKStatisticsCollectionQuery` results, values converted to the unit
/// the expectation writes.
extension RunContext {
  /// `<App> <statistic> of <type> [on <date> | range] [from <App>…] is <value> <unit>`, `… by source:` and its lines,
  /// or `… <outcome>` (no data, an error, an exception).
  func checkStatistic(
    _ device: DeviceKind, _ spec: StatisticsSpec, _ expected: StatisticsOutcome, _ step: Step
  ) throws {
    var options = spec.kind.option
    if case .bySource = expected { options.insert(.separateBySource) }
    let query = StatisticsQuery(
      type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
      options: options)
    let bundle = app(spec.app).bundleID
    let client = client(device)
    let result = attempt { () throws(ClientError) in try client.statistics(bundle, query) }
    let what = "\(spec.app)'s \(spec.kind.optionName) of \(spec.type) on the \(device)"
    switch expected {
    case .failure(let outcome):
      try compare(result, outcome, step, what: what) { stats in
        spec.kind.value(of: stats).map {
          "it returned "
            + show(
              convert($0, spec.kind, spec.type, to: defaultUnit(spec.kind, spec.type)),
              defaultUnit(spec.kind, spec.type))
        }
          ?? (outcome == .noData ? nil : "it returned statistics with no \(spec.kind.optionName)")
      }
    case .value(let value, let unit):
      let actual: String
      switch result {
      case .success(let stats):
        guard let raw = spec.kind.value(of: stats) else {
          actual = "no \(spec.kind.optionName) in the result"
          break
        }
        let converted = convert(raw, spec.kind, spec.type, to: unit)
        if same(converted, value) { return }
        actual = show(converted, unit)
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        actual = health.code == .errorNoData && health.kind == .healthKit ? "no data (errorNoData)" : show(health)
      }
      throw fail(step, "\(what) = \(show(value, unit))", actual)
    case .bySource(let lines):
      let stats: Statistics
      switch result {
      case .success(let s): stats = s
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        throw fail(step, "\(what) by source", health.code == .errorNoData ? "no data (errorNoData)" : show(health))
      }
      let wanted = lines.map { "\($0.app) \(show($0.value, $0.unit))" }
      var actual: [String] = []
      var seen: Set<String> = []
      for line in lines {
        let bundle = app(line.app).bundleID
        guard let part = stats.bySource[bundle] else { continue }
        seen.insert(bundle)
        let value = spec.kind.value(of: part).map { show(convert($0, spec.kind, spec.type, to: line.unit), line.unit) }
        actual.append("\(line.app) \(value ?? "none")")
      }
      for (bundle, part) in stats.bySource.sorted(by: { $0.key < $1.key }) where !seen.contains(bundle) {
        let unit = defaultUnit(spec.kind, spec.type)
        let value = spec.kind.value(of: part).map { show(convert($0, spec.kind, spec.type, to: unit), unit) }
        actual.append("\(appName(bundle)) \(value ?? "none")")
      }
      if wanted != actual {
        throw fail(step, "\(what) by source:\n" + wanted.joined(separator: "\n"), actual.joined(separator: "\n"))
      }
    }
  }

  /// `<App> <statistic> of <type> by hour|day|week|month <range> [from <App>…]:` and its bucket lines, or
  /// `… <outcome>`.
  func checkCollection(
    _ device: DeviceKind, _ spec: CollectionSpec, _ expected: CollectionOutcome, _ step: Step
  ) throws {
    // Intervals of the device's calendar counted from the range's start (behavior.md K3).
    let range = resolve(spec.range, on: device)
    let calendar = calendar(device)
    let query = StatisticsQuery(
      type: spec.type, range: range, sources: sources(spec.sources), options: spec.kind.option,
      interval: spec.interval.calendarInterval, anchor: range.start)
    let bundle = app(spec.app).bundleID
    let client = client(device)
    let result = attempt { () throws(ClientError) in try client.statisticsCollection(bundle, query) }
    let what = "\(spec.app)'s \(spec.interval.adverb) \(spec.kind.optionName) of \(spec.type) on the \(device)"
    func line(_ date: Date, _ value: Double?, _ unit: HealthUnit?) -> String {
      // The device's local date, and time unless it is midnight.
      let local = calendar.local(date)
      let text = local.description
      let shown = local.secondsOfDay == 0 ? String(text.prefix(10)) : text
      return shown + " " + (value.map { show($0, unit ?? defaultUnit(spec.kind, spec.type)) } ?? "none")
    }
    switch expected {
    case .failure(let outcome):
      try compare(result, outcome, step, what: what) { buckets in
        let filled = buckets.filter { spec.kind.value(of: $0) != nil }
        return filled.isEmpty ? nil : "it returned \(filled.count) bucket\(filled.count == 1 ? "" : "s") with a value"
      }
    case .buckets(let expected):
      let buckets: [Statistics]
      switch result {
      case .success(let b): buckets = b
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        throw fail(step, what, show(health))
      }
      let wanted = expected.map { line(resolve($0.start, on: device), $0.value, $0.unit) }
      let actual = buckets.enumerated().map { offset, bucket -> String in
        let unit = offset < expected.count ? expected[offset].unit : nil
        let value = spec.kind.value(of: bucket).map {
          convert($0, spec.kind, spec.type, to: unit ?? defaultUnit(spec.kind, spec.type))
        }
        return line(bucket.start, value, unit)
      }
      if wanted != actual { throw fail(step, wanted.joined(separator: "\n"), actual.joined(separator: "\n")) }
    }
  }

  /// `value` (canonical unit, seconds for a duration) in `unit`.
  private func convert(_ value: Double, _ kind: StatisticKind, _ type: SampleType, to unit: HealthUnit) -> Double {
    let from = kind == .duration ? try? HealthUnit(parsing: "s") : type.descriptor.canonicalUnit
    return from.flatMap { try? $0.convert(value, to: unit) } ?? value
  }

  /// The unit a statistic is shown in when the expectation names none.
  private func defaultUnit(_ kind: StatisticKind, _ type: SampleType) -> HealthUnit {
    kind == .duration ? try! HealthUnit(parsing: "s") : type.descriptor.canonicalUnit!
  }
}
