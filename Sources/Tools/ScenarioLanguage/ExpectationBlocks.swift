import HealthEngine
import HealthModel

/// The blocks under an expectation's line: expected samples, buckets, per-source values and divergences.
extension ParseState {
  /// A cursor on one line of a block.
  func blockCursor(_ line: SourceLine) -> Cursor { Cursor(line, self) }

  /// Expected-sample lines: `<value> at <time> [from <App>] [on <device>]`.
  func parseSampleLines(_ block: [SourceLine], type: SampleType, _ header: Cursor) throws(Diagnostic)
    -> [ExpectedSample]
  {
    if block.isEmpty { throw header.error(.emptyBlock, at: header.line.tokens.last) }
    var result: [ExpectedSample] = []
    for line in block {
      var c = blockCursor(line)
      let first = try c.word("a value")
      var valueText: String
      if type.descriptor.isQuantity {
        guard Double(first.text) != nil else { throw c.error(.invalidNumber(first.text), at: first) }
        let unit = try c.unit(for: type)
        valueText = "\(first.text) \(unit)"
      } else {
        guard let values = type.descriptor.categoryValues, values.contains(where: { $0.name == first.text }) else {
          throw c.error(
            .unknownCategoryValue(
              first.text, type: type.name, valid: type.descriptor.categoryValues?.map(\.name) ?? []), at: first)
        }
        valueText = first.text
      }
      try c.expect("at")
      let at = try c.time()
      var app: String?
      var device: DeviceKind?
      if c.take("from") { app = try c.app().name }
      if c.take("on") { device = try c.device() }
      try c.finish()
      result.append(
        ExpectedSample(
          value: valueText, at: at, app: app, device: device,
          location: SourceLocation(file: file, line: line.number, column: first.column)))
    }
    return result
  }

  /// Bucket lines: `<start> <value> <unit>` or `<start> none`.
  func parseBuckets(_ block: [SourceLine], kind: StatisticKind, type: SampleType, _ header: Cursor) throws(Diagnostic)
    -> [ExpectedBucket]
  {
    if block.isEmpty { throw header.error(.emptyBlock, at: header.line.tokens.last) }
    var result: [ExpectedBucket] = []
    for line in block {
      var c = blockCursor(line)
      let start = try c.time()
      if c.take("none") || c.take("-") {
        try c.finish()
        result.append(ExpectedBucket(start: start, value: nil, unit: nil))
        continue
      }
      let value = try c.number()
      let unit = try statisticUnit(&c, kind: kind, type: type)
      try c.finish()
      result.append(ExpectedBucket(start: start, value: value, unit: unit))
    }
    return result
  }

  /// `by source:` lines: `<App> <value> <unit>`.
  func parseSourceLines(_ block: [SourceLine], kind: StatisticKind, type: SampleType, _ header: Cursor)
    throws(Diagnostic) -> [SourceValue]
  {
    if block.isEmpty { throw header.error(.emptyBlock, at: header.line.tokens.last) }
    var result: [SourceValue] = []
    for line in block {
      var c = blockCursor(line)
      let appToken = c.peek
      let app = try c.app().name
      if result.contains(where: { $0.app == app }) {
        throw c.error(.expected("one line per source", found: app), at: appToken)
      }
      let value = try c.number()
      let unit = try statisticUnit(&c, kind: kind, type: type)
      try c.finish()
      result.append(
        SourceValue(
          app: app, value: value, unit: unit,
          location: SourceLocation(file: file, line: line.number, column: appToken?.column ?? 1)))
    }
    return result
  }

  /// Divergence lines: `only on <device>: <name>…` (or `<device> only: …`).
  func parseDivergences(_ block: [SourceLine], _ header: Cursor) throws(Diagnostic) -> [Divergence] {
    if block.isEmpty { throw header.error(.emptyBlock, at: header.line.tokens.last) }
    var result: [Divergence] = []
    for line in block {
      var c = blockCursor(line)
      let device: DeviceKind
      if c.take("only", "on") {
        device = try c.device()
      } else {
        device = try c.device()
        try c.expect("only", what: "'only on <device>:' or '<device> only:'")
      }
      try c.expect(":")
      var names: [String] = [try c.sampleName(defined: false)]
      while !c.atEnd {
        if c.take("and") { continue }
        names.append(try c.sampleName(defined: false))
      }
      result.append(Divergence(onlyOn: device, names: names))
    }
    return result
  }
}
