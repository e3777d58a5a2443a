import FoundationEssentials
import HealthEngine
import HealthModel

/// A heartbeat series to save, as `saves heartbeat series …` writes it (an `HKHeartbeatSeriesBuilder` that adds a
/// beat at each interval from the start and finishes at the end). The beats derive from these values alone.
package struct HeartbeatSeriesSpec: Hashable, Sendable {
  /// Start of the series (the first beat's offset is 0).
  package var start: TimeSpec
  /// Seconds between two beats.
  package var interval: Double
  /// The series' length in seconds: its end is `start + span`, its last beat at most `span` after the start.
  package var span: Double
  /// `gap at <offset> for <duration>`: no beats with offsets in [offset, offset + length); the first beat after a
  /// gap is `precededByGap`.
  package var gaps: [HeartbeatGapSpec] = []
  /// `as <name>`: the series' name (a sample name).
  package var name: String?

  /// The beats the builder adds: offsets `k × interval` up to `span` (rounded to the millisecond), outside the gaps.
  package var beats: [Heartbeat] {
    let count = Int((span / interval + 1e-9).rounded(.down))
    var beats: [Heartbeat] = []
    var skipped = false
    for k in 0...count {
      let offset = (Double(k) * interval * 1000).rounded() / 1000
      if gaps.contains(where: { offset >= $0.offset && offset < $0.offset + $0.length }) {
        skipped = true
        continue
      }
      beats.append(Heartbeat(offset: offset, precededByGap: skipped))
      skipped = false
    }
    return beats
  }

  /// A series from `start` with a beat every `interval` over `span`.
  package init(start: TimeSpec, interval: Double, span: Double) {
    self.start = start
    self.interval = interval
    self.span = span
  }
}

/// Beats a heartbeat series misses: from `offset` seconds after its start, for `length` seconds.
package struct HeartbeatGapSpec: Hashable, Sendable {
  /// Seconds after the series' start.
  package var offset: Double
  /// Seconds of missed beats.
  package var length: Double
}

/// What `<App> sees <n> heartbeat series …` checks besides the count: each series' beats and gaps as
/// `HKHeartbeatSeriesQuery` would enumerate them.
package struct HeartbeatSeriesCheck: Hashable, Sendable {
  /// `with <m> beats [each]`: the beats of every series returned.
  package var beats: Int?
  /// `and <k> gaps [each]`: how many beats of every series are `precededByGap`.
  package var gaps: Int?

  /// Checks only the count.
  package init() {}
}

/// `saves heartbeat series …` and `sees <n> heartbeat series …` (docs/scenario-language.md; behavior.md E12–E13).
extension ParseState {
  /// `saves heartbeat series at <time> with beats every <duration> for <duration> [gap at <duration> for
  /// <duration>]… [as <name>]`.
  mutating func parseSaveHeartbeatSeries(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration)
    throws(Diagnostic) -> StepKind
  {
    try c.expect("at", what: "'at <time>', the series' start")
    let start = try c.time()
    try c.expect("with", "beats", "every", what: "'with beats every <duration>'")
    let intervalToken = c.peek
    let interval = try c.duration()
    guard interval >= 0.25, interval <= 5 else {
      throw c.error(.expected("a beat interval from 0.25s to 5s", found: intervalToken?.text), at: intervalToken)
    }
    try c.expect("for", what: "'for <duration>', the series' length")
    let spanToken = c.peek
    let span = try c.duration()
    guard span > 0, span <= 3600 else {
      throw c.error(.expected("a series length from 1s to 1h", found: spanToken?.text), at: spanToken)
    }
    var spec = HeartbeatSeriesSpec(start: start, interval: interval, span: span)
    while let t = c.peek {
      if c.take("gap") {
        try c.expect("at", what: "'at <offset>', the gap's start after the series' start")
        let offsetToken = c.peek
        let offset = try c.duration()
        guard offset > 0, offset < span else {
          throw c.error(.expected("a gap inside the series", found: offsetToken?.text), at: offsetToken)
        }
        try c.expect("for", what: "'for <duration>', the gap's length")
        let length = try c.duration()
        spec.gaps.append(HeartbeatGapSpec(offset: offset, length: length))
      } else if c.take("as") {
        spec.name = try newSampleName(&c)
      } else {
        throw c.error(.expected("'gap at <offset> for <duration>' or 'as <name>'", found: t.text), at: t)
      }
    }
    return .saveHeartbeatSeries(device, app: app.name, spec)
  }

  /// `sees <n> heartbeat series [with <m> beats [each]] [and|with <k> gaps [each]] [query]`.
  func parseSeesHeartbeatSeries(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let count = try c.integer()
    guard count >= 0 else { throw c.error(.invalidNumber(String(count)), at: c.line.tokens[c.index - 1]) }
    c.index += 2  // "heartbeat series"
    var check = HeartbeatSeriesCheck()
    while c.peek?.keyword == "with" || c.peek?.keyword == "and" {
      c.index += 1
      let t = c.peek
      let n = try c.integer()
      guard n >= 0 else { throw c.error(.invalidNumber(String(n)), at: t) }
      if c.take("beats") || c.take("beat") {
        check.beats = n
      } else if c.take("gaps") || c.take("gap") {
        check.gaps = n
      } else {
        throw c.error(.expected("'beats' or 'gaps'", found: c.peek?.text))
      }
      _ = c.take("each")
    }
    var query = SampleQuerySpec(app: subject.app.name, type: SampleType.lookup(name: "heartbeatSeries")!)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesHeartbeatSeries(subject.devices, query, count, check)
  }
}
