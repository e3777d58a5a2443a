import HealthEngine
import HealthModel

/// Expectations about statistics: a statistics query's value, per-source values or outcome, and a collection's
/// buckets or outcome.
extension ParseState {
  /// The interval an adverb names before a statistic (`daily`), if any.
  static func interval(adverb word: String) -> CollectionInterval? {
    CollectionInterval.allCases.first { $0.adverb == word }
  }

  /// `<App> daily|hourly|weekly|monthly <statistic> of <type> …`: a collection by that interval.
  func parseIntervalStatistic(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let t = c.next()!
    let interval = Self.interval(adverb: t.keyword)!
    let kind = try statistic(&c)
    return try parseStatistic(&c, subject, kind: kind, interval: (interval, t))
  }

  /// `<statistic> of <type> [on <date> | from <time> to <time>] [from <App>…] [by source | by <interval>]` and
  /// what it gives: a statistics query, or a collection when an interval is given (`interval`: one written before
  /// the statistic, as in `daily sum of`).
  func parseStatistic(
    _ c: inout Cursor, _ subject: AppExpectation, kind: StatisticKind, interval prefix: (CollectionInterval, Token)?
  ) throws(Diagnostic) -> Expectation {
    let (devices, app, block) = (subject.devices, subject.app, subject.block)
    try c.expect("of")
    let typeToken = c.peek
    let type = try c.type()
    guard type.descriptor.isQuantity else {
      throw c.error(.expected("a quantity type for statistics", found: type.name), at: typeToken)
    }
    var range: RangeSpec?
    var sources: [String] = []
    var interval = prefix
    var bySource = false
    while let t = c.peek {
      if c.take("on") {
        let day = try c.date()
        // The device's local day (behavior.md K2): its local midnight to the next.
        range = RangeSpec(start: .local(day), end: .local(day.addingTimeInterval(86_400)), options: [])
      } else if t.keyword == "from" {
        if c.line.tokens.count > c.index + 1, Cursor.time(c.line.tokens[c.index + 1].text) != nil {
          range = try rangeSpec(&c)
        } else {
          c.index += 1
          sources = try appNames(&c)
        }
      } else if c.take("separateBySource") || c.take("by", "source") || c.take("by", "sources") {
        bySource = true
      } else if c.take("by") {
        let word = try c.word("an interval: hour, day, week or month")
        let names = CollectionInterval.allCases.map(\.rawValue)
        guard
          let value = CollectionInterval(rawValue: word.keyword)
            ?? CollectionInterval(rawValue: String(word.keyword.dropLast()))
        else {
          let valid = names + ["source"]
          throw c.error(.unknownStatus(word.text, valid: valid, suggestion: suggest(word.text, from: valid)), at: word)
        }
        interval = (value, word)
      } else {
        break
      }
    }
    let device = try single(devices, c)
    if case (let interval, let token)? = interval {
      if bySource {
        throw c.error(
          .notSupportedYet("'by source' in a collection", instead: "check per-source values with a statistics query"),
          at: token)
      }
      guard let range else {
        throw c.error(
          .expected("'from <time> to <time>' for a collection by \(interval.rawValue)", found: c.peek?.text))
      }
      var spec = CollectionSpec(app: app.name, kind: kind, type: type, interval: interval, range: range)
      spec.sources = sources
      if let outcome = try queryOutcome(&c) {
        try c.finish()
        return .collection(device, spec, .failure(outcome))
      }
      try c.expect(
        ":", what: "':' and a block of buckets, 'is no data', 'fails with <code>' or 'would terminate the app'")
      try c.finish()
      return .collection(device, spec, .buckets(try parseBuckets(block, kind: kind, type: type, c)))
    }
    var spec = StatisticsSpec(app: app.name, kind: kind, type: type)
    spec.range = range
    spec.sources = sources
    if bySource {
      try c.expect(":", what: "':' and a line per source")
      try c.finish()
      return .statistic(device, spec, .bySource(try parseSourceLines(block, kind: kind, type: type, c)))
    }
    if let outcome = try queryOutcome(&c) {
      try c.finish()
      return .statistic(device, spec, .failure(outcome))
    }
    try c.expect(
      "is", what: "'is <value> <unit>', 'is no data', 'fails with <code>', 'would terminate the app' or 'by source:'")
    let value = try c.number()
    let unit = try statisticUnit(&c, kind: kind, type: type)
    try c.finish()
    return .statistic(device, spec, .value(value, unit))
  }

  /// The unit of a statistic's value: a time unit for `duration`, else one that measures the type.
  func statisticUnit(_ c: inout Cursor, kind: StatisticKind, type: SampleType) throws(Diagnostic) -> HealthUnit {
    guard kind == .duration else { return try c.unit(for: type) }
    let token = c.peek
    let unit = try c.unit(for: nil)
    guard unit.dimension == HealthUnit.Dimension.duration else {
      throw c.error(
        .incompatibleUnit(unit: token?.text ?? "\(unit)", type: "durations (use a time unit such as min)"), at: token)
    }
    return unit
  }

  /// A statistic's name: `sum`, `average`, `min`, `max`, `mostRecent`, `duration` or HealthKit's option name.
  func statistic(_ c: inout Cursor) throws(Diagnostic) -> StatisticKind {
    let t = try c.word("a statistic such as sum or cumulativeSum")
    guard let kind = StatisticKind(word: t.keyword) else {
      throw c.error(
        .unknownStatus(t.text, valid: StatisticKind.words, suggestion: suggest(t.text, from: StatisticKind.words)),
        at: t)
    }
    return kind
  }
}
