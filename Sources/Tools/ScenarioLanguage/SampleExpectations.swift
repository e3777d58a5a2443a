import FoundationEssentials
import HealthEngine
import HealthModel

/// Expectations about samples: what an app's queries see, one sample query's outcome, and the raw store.
extension ParseState {
  /// The forms of `<App> sees …`, tried in order: workouts and activity summaries (WorkoutExpectations.swift), then
  /// samples; the last reads a number.
  static let seesForms: [AppExpectationRule] =
    workoutSeesForms + [
      AppExpectationRule(["changes", "of"]) { s, c, subject throws(Diagnostic) in try s.parseSeesChanges(&c, subject) },
      AppExpectationRule(["no"]) { s, c, subject throws(Diagnostic) in try s.parseSeesNone(&c, subject) },
      AppExpectationRule(when: { c in c.peek.flatMap(Cursor.sampleType) != nil }) { s, c, subject throws(Diagnostic) in
        try s.parseSeesSamples(&c, subject)
      },
      AppExpectationRule(when: { _ in true }) { s, c, subject throws(Diagnostic) in try s.parseSeesNumber(&c, subject)
      },
    ]

  /// `<App> sees …`: the first of ``seesForms`` the line matches.
  mutating func parseSees(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let parse = c.take(firstOf: Self.seesForms)!
    return try parse(&self, &c, subject)
  }

  /// `sees changes of <type>: <n> added, <n> deleted`: an anchored object query since this app's previous check of
  /// the type (the first check: a nil anchor).
  func parseSeesChanges(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let type = try c.type()
    try c.expect(":")
    let added = try c.integer()
    try c.expect("added")
    _ = c.take("and")
    let deleted = try c.integer()
    try c.expect("deleted")
    try c.finish()
    return .changes(try single(subject.devices, c), app: subject.app.name, type, added: added, deleted: deleted)
  }

  /// `sees no <type> samples [query]`.
  func parseSeesNone(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    var spec = SampleQuerySpec(app: subject.app.name, type: try c.type())
    guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
    try sampleModifiers(&c, &spec)
    try c.finish()
    return .seesCount(subject.devices, spec, 0)
  }

  /// `sees <type> [query]:` + a line per sample, in order.
  func parseSeesSamples(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    var spec = SampleQuerySpec(app: subject.app.name, type: try c.type())
    try sampleModifiers(&c, &spec)
    try c.expect(":", what: "':' and a block of samples")
    try c.finish()
    let device = try single(subject.devices, c)
    return .seesSamples(device, spec, try parseSampleLines(subject.block, type: spec.type, c))
  }

  /// `sees <n> <type> samples [query]`, `sees <n> <type> correlations [with <n> objects each] [query]`, `sees
  /// <value> <unit> of <type> [on <date>]`.
  func parseSeesNumber(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let (devices, app) = (subject.devices, subject.app)
    let numberToken = c.peek
    let number = try c.number()
    if let t = c.peek, let type = Cursor.sampleType(t) {
      guard let count = Int(exactly: number), count >= 0, count <= 1_000_000_000 else {
        throw c.error(.invalidNumber(numberToken?.text ?? ""), at: numberToken)
      }
      c.index += 1
      if c.take("correlations") || c.take("correlation") {
        // "sees 1 bloodPressure correlation with 2 objects each": a correlation query (behavior.md T11).
        var objects: Int?
        if c.take("with") {
          objects = try c.integer()
          guard c.take("objects") || c.take("object") else {
            throw c.error(.expected("'objects'", found: c.peek?.text))
          }
          try c.expect("each")
        }
        var spec = SampleQuerySpec(app: app.name, type: type)
        try sampleModifiers(&c, &spec)
        try c.finish()
        return .seesCorrelations(devices, spec, count, objectsEach: objects)
      }
      guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      var spec = SampleQuerySpec(app: app.name, type: type)
      try sampleModifiers(&c, &spec)
      try c.finish()
      return .seesCount(devices, spec, count)
    }
    // "sees 750 mL of dietaryWater [on 2026-01-05]" or "sees 10 min of mindfulSession"
    let unitIndex = c.index
    let unit = try c.unit(for: nil)
    try c.expect("of")
    let type = try c.type()
    if let canonical = type.descriptor.canonicalUnit, !unit.isCompatible(with: canonical) {
      throw c.error(.incompatibleUnit(unit: unit.description, type: type.name), at: c.line.tokens[unitIndex])
    }
    if type.descriptor.categoryValues != nil, unit.dimension != HealthUnit.Dimension.duration {
      throw c.error(
        .incompatibleUnit(unit: unit.description, type: "\(type.name) durations"), at: c.line.tokens[unitIndex])
    }
    var day: Date?
    if c.take("on") { day = try c.date() }
    try c.finish()
    return .seesTotal(devices, app: app.name, type, value: number, unit: unit, day: day)
  }

  /// `<App>'s sample query of <type> [query] is no data|fails with <code>|would terminate the app`.
  func parseSampleQuery(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    var spec = SampleQuerySpec(app: subject.app.name, type: try c.type())
    try sampleModifiers(&c, &spec)
    guard let outcome = try queryOutcome(&c) else {
      throw c.error(.expected("'is no data', 'fails with <code>' or 'would terminate the app'", found: c.peek?.text))
    }
    try c.finish()
    return .sampleQuery(device, spec, outcome)
  }

  /// `store has <n> [<type>] samples [from <source>] [with <key>=<value>…]`, `store has no [<type>] samples`,
  /// `store has <name>`, `store lacks <name>`: the raw store, every app's samples.
  func parseStore(_ c: inout Cursor, devices: Devices) throws(Diagnostic) -> Expectation {
    if c.take("lacks") {
      let name = try c.sampleName(defined: false)
      try c.finish()
      return .storeHas(devices, name: name, false)
    }
    try c.expect("has")
    if let t = c.peek, let n = Int(t.text) {
      c.index += 1
      var type: SampleType?
      if let next = c.peek, !["sample", "samples"].contains(next.keyword) { type = try c.type() }
      guard c.take("sample") || c.take("samples") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      var source: String?
      var metadata: Metadata = [:]
      if c.take("from") { source = try c.word("a source name (quoted) or bundle identifier").text }
      if c.take("with") {
        repeat {
          let kv = try c.word("key=value metadata")
          let parts = kv.text.split(separator: "=", maxSplits: 1)
          guard parts.count == 2 else { throw c.error(.expected("key=value", found: kv.text), at: kv) }
          let key = MetadataKey.byConstantName[String(parts[0])] ?? String(parts[0])
          let raw = String(parts[1])
          metadata[key] =
            raw == "true"
            ? .bool(true)
            : raw == "false"
              ? .bool(false) : Int64(raw).map { .int($0) } ?? Double(raw).map { .double($0) } ?? .string(raw)
        } while c.take("and") || (c.peek.map { $0.text.contains("=") } ?? false)
      }
      if source != nil || !metadata.isEmpty {
        try c.finish()
        return .storeCountMatching(devices, type, n, source: source, metadata: metadata)
      }
      try c.finish()
      return .storeCount(devices, type, n)
    }
    if c.take("no") {
      var type: SampleType?
      if let next = c.peek, !["sample", "samples"].contains(next.keyword) { type = try c.type() }
      guard c.take("sample") || c.take("samples") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      try c.finish()
      return .storeCount(devices, type, 0)
    }
    let name = try c.sampleName(defined: false)
    try c.finish()
    return .storeHas(devices, name: name, true)
  }
}
