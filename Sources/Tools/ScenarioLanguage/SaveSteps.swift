import FoundationEssentials
import HealthEngine
import HealthModel

/// `<device>: <App> saves …`: one row per form of a save, then the sample a form is made of.
extension ParseState {
  /// The forms of `saves`, tried in order: the last takes any sample.
  static let saveForms: [AppVerbRule] = [
    AppVerbRule(["workout"]) { s, c, call throws(Diagnostic) in
      try s.parseSaveWorkout(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["heartbeat", "series"]) { s, c, call throws(Diagnostic) in
      try s.parseSaveHeartbeatSeries(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["audiogram"]) { s, c, call throws(Diagnostic) in
      try s.parseSaveAudiogram(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["glasses", "prescription"]) { s, c, call throws(Diagnostic) in
      try s.parseSavePrescription(&c, device: call.device, app: call.app, kind: .glasses)
    },
    AppVerbRule(["contacts", "prescription"]) { s, c, call throws(Diagnostic) in
      try s.parseSavePrescription(&c, device: call.device, app: call.app, kind: .contacts)
    },
    AppVerbRule(["cda", "document"]) { s, c, call throws(Diagnostic) in
      try s.parseSaveDocument(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["route"]) { s, c, call throws(Diagnostic) in
      try s.parseSaveRoute(&c, device: call.device, app: call.app)
    },
    AppVerbRule(when: { $0.integer(before: ["random"]) }) { s, c, call throws(Diagnostic) in
      try s.parseSaveRandom(&c, device: call.device, app: call.app)
    },
    AppVerbRule(when: { c in
      c.peek.flatMap(Cursor.sampleType)?.descriptor.isCorrelation == true && c.second(is: "correlation")
    }) { s, c, call throws(Diagnostic) in
      try s.parseSaveCorrelation(&c, device: call.device, app: call.app)
    },
    AppVerbRule(when: { _ in true }) { s, c, call throws(Diagnostic) in
      try s.parseSaveSamples(&c, device: call.device, app: call.app)
    },
  ]

  /// `saves …`: the first of ``saveForms`` the line matches.
  mutating func parseSave(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    let parse = c.take(firstOf: Self.saveForms)!
    return try parse(&self, &c, AppCall(device: device, app: app))
  }

  /// `saves <n> random <type> samples over <duration>` (1 to 1,000,000 samples).
  func parseSaveRandom(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    let count = Int(c.peek!.text)!
    c.index += 2
    let type = try c.type()
    _ = c.take("samples")
    try c.expect("over")
    let over = try c.duration()
    try c.finish()
    guard count > 0, count <= 1_000_000 else { throw c.error(.invalidNumber(String(count))) }
    return .saveRandom(device, app: app.name, count: count, type: type, over: over)
  }

  /// `saves <type> correlation [as <name>] [with <key>=<value>…] of <sample> plus <sample>…`.
  mutating func parseSaveCorrelation(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    let type = Cursor.sampleType(c.peek!)!
    c.index += 2
    var spec = CorrelationSpec(type: type, name: nil, metadata: [:], members: [])
    while !c.take("of") {
      if c.take("as") {
        spec.name = try newSampleName(&c)
      } else if c.take("with") {
        repeat {
          let kv = try c.word("key=value metadata")
          let parts = kv.text.split(separator: "=", maxSplits: 1)
          guard parts.count == 2 else { throw c.error(.expected("key=value", found: kv.text), at: kv) }
          let key = MetadataKey.byConstantName[String(parts[0])] ?? String(parts[0])
          spec.metadata[key] = ParseState.metadataValue(String(parts[1]))
        } while c.take("and") || (c.peek.map { $0.text.contains("=") } ?? false)
      } else {
        throw c.error(.expected("'as', 'with' or 'of' and the correlation's samples", found: c.peek?.text))
      }
    }
    spec.members = [try parseSampleSpec(&c)]
    while c.take("plus") { spec.members.append(try parseSampleSpec(&c)) }
    try c.finish()
    return .saveCorrelation(device, app: app.name, spec)
  }

  /// `saves <sample> [plus <sample>…]`: one `save(_:)` of every sample (all saved or none).
  mutating func parseSaveSamples(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    var specs: [SampleSpec] = [try parseSampleSpec(&c)]
    while c.take("plus") { specs.append(try parseSampleSpec(&c)) }
    try c.finish()
    return .save(device, app: app.name, specs)
  }

  /// One sample of a `saves` step: value, type and clauses, up to `plus` or the end of the line.
  mutating func parseSampleSpec(_ c: inout Cursor) throws(Diagnostic) -> SampleSpec {
    let valueToken = try c.word("a value")
    var type: SampleType
    var value: SampleInput.Value
    if let number = Double(valueToken.text) {
      // "250 mL dietaryWater" or "3 sleepAnalysis" (a raw category value)
      guard let next = c.peek else { throw c.error(.expected("a unit or a sample type", found: nil)) }
      if let t = Cursor.sampleType(next), t.descriptor.categoryValues != nil {
        guard let raw = Int(exactly: number), (-1_000_000_000...1_000_000_000).contains(raw) else {
          throw c.error(.invalidNumber(valueToken.text), at: valueToken)
        }
        c.index += 1
        type = t
        value = .category(raw)
      } else {
        let unitToken = next
        let unit = try c.unit(for: nil)
        type = try c.type()
        guard let canonical = type.descriptor.canonicalUnit else {
          throw c.error(.expected("a quantity type after a unit", found: type.name))
        }
        // An incompatible unit parses: on a device it terminates the app, which is what the scenario may test.
        _ = (unit, canonical)
        value = .quantity(number, unit: unitToken.text)
      }
    } else {
      // "notApplicable mindfulSession"; a word followed by a unit means the number is missing.
      if let next = c.peek, Cursor.sampleType(next) == nil, (try? HealthUnit(parsing: next.text)) != nil {
        throw c.error(.invalidNumber(valueToken.text), at: valueToken)
      }
      type = try c.type()
      guard let values = type.descriptor.categoryValues else {
        throw c.error(.invalidNumber(valueToken.text), at: valueToken)
      }
      guard let match = values.first(where: { $0.name.lowercased() == valueToken.text.lowercased() }) else {
        throw c.error(
          .unknownCategoryValue(valueToken.text, type: type.name, valid: values.map(\.name)), at: valueToken)
      }
      value = .category(match.value)
    }
    var spec = SampleSpec(type: type, value: value, start: .now(offset: 0), end: .duration(0), metadata: [:], name: nil)
    while let t = c.peek, t.keyword != "plus" {
      if c.take("at") {
        spec.start = try c.time()
      } else if c.take("from") {
        spec.start = try c.time()
        if c.take("for") {
          spec.end = .duration(try c.duration())
        } else {
          try c.expect("to", what: "'for' or 'to'")
          spec.end = .time(try c.time())
        }
      } else if c.take("for") {
        spec.end = .duration(try c.duration())
      } else if c.take("with") {
        repeat {
          let kv = try c.word("key=value metadata")
          let parts = kv.text.split(separator: "=", maxSplits: 1)
          guard parts.count == 2 else { throw c.error(.expected("key=value", found: kv.text), at: kv) }
          let key = MetadataKey.byConstantName[String(parts[0])] ?? String(parts[0])
          spec.metadata[key] = ParseState.metadataValue(String(parts[1]))
        } while c.take("and") || (c.peek.map { $0.text.contains("=") } ?? false)
      } else if c.take("uuid") {
        // "uuid 6F9619FF-…": the identifier HealthKit would assign, chosen by the test (HealthPair model).
        let t = try c.word("a UUID such as 6F9619FF-8B86-4011-B42D-00C04FC964FF")
        guard let uuid = UUID(uuidString: t.text) else { throw c.error(.invalidUUID(t.text), at: t) }
        spec.uuid = uuid
      } else if c.take("as") {
        spec.name = try newSampleName(&c)
      } else {
        let clauses = ["at", "from", "for", "with", "uuid", "as", "plus"]
        if let near = suggest(t.text, from: clauses), near != t.text {
          throw c.error(.unknownStatus(t.text, valid: clauses, suggestion: near), at: t)
        }
        throw c.error(.expected("'at', 'from', 'for', 'with', 'uuid', 'as' or 'plus'", found: t.text), at: t)
      }
    }
    return spec
  }
}
