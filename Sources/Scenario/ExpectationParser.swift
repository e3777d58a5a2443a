import FoundationEssentials
import HealthEngine
import HealthModel

extension ParseState {
  static let statusNames = AuthorizationStatus.allCases.map(\.description)
  static let requestStatusNames = AuthorizationRequestStatus.allCases.map(\.description)

  mutating func parseExpectation(_ c: inout Cursor, block: [SourceLine]) throws(Diagnostic) -> Expectation {
    if c.take("converged") {
      try c.finish()
      return .converged
    }
    if c.take("diverged") {
      try c.expect(":")
      try c.finish()
      return .diverged(try parseDivergences(block, c))
    }
    if c.take("link", "is") {
      let t = try c.word("'up' or 'down'")
      guard t.keyword == "up" || t.keyword == "down" else {
        throw c.error(.expected("'up' or 'down'", found: t.text), at: t)
      }
      try c.finish()
      return .linkUp(t.keyword == "up")
    }
    let devices = try c.devices()
    try c.expect(":")
    if c.take("store") {
      return try parseStore(&c, devices: devices)
    }
    if c.take("the", "last", "settings", "change", "was") {
      let device = try single(devices, c)
      let t = try c.word("'refused' or 'applied'")
      guard t.keyword == "refused" || t.keyword == "applied" else {
        throw c.error(.expected("'refused' or 'applied'", found: t.text), at: t)
      }
      try c.finish()
      return .settingsRefused(device, t.keyword == "refused")
    }
    if c.take("clock", "is") {
      let device = try single(devices, c)
      let time = try c.time()
      try c.finish()
      return .clock(device, time)
    }
    if c.take("earliest", "permitted", "sample", "date", "is") {
      let device = try single(devices, c)
      let time = try c.time()
      try c.finish()
      return .earliestPermitted(device, time)
    }
    if c.take("no", "sheet", "pending") || c.take("no", "sheets", "pending") {
      try c.finish()
      return .pendingSheets(try single(devices, c), 0)
    }
    if let n = c.peek.flatMap({ Int($0.text) }), c.line.tokens.count > c.index + 1,
      c.line.tokens[c.index + 1].keyword == "sync"
    {
      c.index += 2
      guard c.take("conflicts") || c.take("conflict") else {
        throw c.error(.expected("'conflicts'", found: c.peek?.text))
      }
      try c.finish()
      return .syncConflicts(devices, n)
    }
    if let n = c.peek.flatMap({ Int($0.text) }) {
      c.index += 1
      guard c.take("sheet", "pending") || c.take("sheets", "pending") else {
        throw c.error(.expected("'sheets pending'", found: c.peek?.text))
      }
      try c.finish()
      return .pendingSheets(try single(devices, c), n)
    }
    var possessive = false
    let app = try c.app(possessive: &possessive)
    if possessive {
      let device = try single(devices, c)
      if c.take("last", "call") {
        let outcome = try parseCallOutcome(&c)
        try c.finish()
        return .lastCall(device, app: app.name, outcome)
      }
      if c.take("queries", "of") {
        // "Water's queries of dietaryWater fail with errorAuthorizationNotDetermined": every query kind.
        let type = try c.type()
        guard c.take("fail", "with") || c.take("fails", "with") else {
          throw c.error(.expected("'fail with <code>'", found: c.peek?.text))
        }
        let t = try c.word("an HKError code such as errorAuthorizationNotDetermined")
        guard let code = HealthErrorCode(name: t.text) else {
          throw c.error(
            .unknownErrorCode(t.text, suggestion: suggest(t.text, from: HealthErrorCode.allCases.map(\.description))),
            at: t)
        }
        try c.finish()
        return .queriesFail(device, app: app.name, type, code)
      }
      try c.expect("request", what: "'last call', 'queries of' or 'request'")
      if c.take("is", "pending") {
        try c.finish()
        return .lastCall(device, app: app.name, .pending)
      }
      if c.take("showed", "no", "sheet") {
        try c.finish()
        return .noSheet(device, app: app.name)
      }
      try c.expect("showed", "a", "sheet", what: "'showed a sheet', 'showed no sheet' or 'is pending'")
      var listing: [Permission]?
      if c.take("listing") { listing = try c.permissions() }
      try c.finish()
      return .sheetShown(device, app: app.name, listing: listing)
    }
    if c.take("share") || c.take("read") {
      let direction: Direction = c.line.tokens[c.index - 1].keyword == "share" ? .share : .read
      let type = try c.type()
      try c.expect("is")
      let t = try c.word("a status")
      try c.finish()
      if direction == .share {
        guard let status = AuthorizationStatus.allCases.first(where: { $0.description.lowercased() == t.keyword })
        else {
          throw c.error(
            .unknownStatus(t.text, valid: Self.statusNames, suggestion: suggest(t.text, from: Self.statusNames)), at: t)
        }
        return .shareStatus(devices, app: app.name, type, status)
      }
      let decisions: [String: Decision?] = [
        "authorized": .authorized, "denied": .denied, "undecided": nil, "notdetermined": nil,
      ]
      guard let decision = decisions[t.keyword] else {
        throw c.error(
          .unknownStatus(
            t.text, valid: ["authorized", "denied", "undecided"],
            suggestion: suggest(t.text, from: ["authorized", "denied", "undecided"])), at: t)
      }
      return .hiddenRead(devices, app: app.name, type, decision)
    }
    if c.take("request", "status") {
      _ = c.take("for")
      var share: [SampleType] = []
      var read: [SampleType] = []
      while !c.atEnd, c.peek?.keyword != "is" {
        if c.take("share") {
          share = try c.types(stoppingAt: ["read", "is", "share"])
        } else if c.take("read") {
          read = try c.types(stoppingAt: ["share", "is", "read"])
        } else {
          throw c.error(.expected("'share', 'read' or 'is'", found: c.peek?.text))
        }
      }
      if share.isEmpty && read.isEmpty {
        share = app.share
        read = app.read
      }
      try c.expect("is")
      let t = try c.word("a request status")
      try c.finish()
      guard let status = AuthorizationRequestStatus.allCases.first(where: { $0.description.lowercased() == t.keyword })
      else {
        throw c.error(
          .unknownStatus(
            t.text, valid: Self.requestStatusNames, suggestion: suggest(t.text, from: Self.requestStatusNames)), at: t)
      }
      return .requestStatus(devices, app: app.name, share: share, read: read, status)
    }
    if c.take("is", "locked", "out") {
      try c.finish()
      return .lockedOut(devices, app: app.name, true)
    }
    if c.take("is", "not", "locked", "out") {
      try c.finish()
      return .lockedOut(devices, app: app.name, false)
    }
    if c.take("sees") {
      return try parseSees(&c, devices: devices, app: app, block: block)
    }
    let intervals = [("daily", "day"), ("weekly", "week"), ("monthly", "month")].map {
      ($0.0, CalendarInterval(unit: $0.1)!)
    }
    if let (_, interval) = intervals.first(where: { c.take($0.0) }) {
      let kind = try statistic(&c)
      try c.expect("of")
      let type = try c.type()
      try c.expect("from")
      let from = try c.date()
      try c.expect("to")
      let to = try c.date()
      try c.expect(":")
      try c.finish()
      return .daily(
        try single(devices, c), app: app.name, kind, type, from: from, to: to, try parseBuckets(block, type: type, c),
        interval: interval)
    }
    if let kind = try? statisticPeek(&c) {
      try c.expect("of")
      let type = try c.type()
      guard type.descriptor.isQuantity else {
        throw c.error(.expected("a quantity type for statistics", found: type.name))
      }
      var day: Date?
      if c.take("on") { day = try c.date() }
      if c.take("would", "terminate", "the", "app") {
        try c.finish()
        return .statisticTerminates(try single(devices, c), app: app.name, kind, type)
      }
      try c.expect("is")
      if c.take("no", "data") {
        try c.finish()
        return .statistic(try single(devices, c), app: app.name, kind, type, value: nil, unit: nil, day: day)
      }
      let value = try c.number()
      let unit = try c.unit(for: type)
      try c.finish()
      return .statistic(try single(devices, c), app: app.name, kind, type, value: value, unit: unit, day: day)
    }
    throw c.error(
      .expected(
        "an expectation ('share', 'read', 'request status', 'sees', 'is locked out', 'sum of', 'daily', or a possessive such as \(app.name)'s)",
        found: c.peek?.text))
  }

  func single(_ devices: Devices, _ c: Cursor) throws(Diagnostic) -> DeviceKind {
    guard case .one(let d) = devices else {
      throw c.error(.expected("one device (phone or watch) for this expectation", found: "both"))
    }
    return d
  }

  func statistic(_ c: inout Cursor) throws(Diagnostic) -> StatisticKind {
    let t = try c.word("sum, average, min or max")
    guard let kind = StatisticKind(rawValue: t.keyword) else {
      throw c.error(
        .unknownStatus(
          t.text, valid: ["sum", "average", "min", "max"],
          suggestion: suggest(t.text, from: ["sum", "average", "min", "max"])), at: t)
    }
    return kind
  }

  func statisticPeek(_ c: inout Cursor) throws(Diagnostic) -> StatisticKind {
    guard let t = c.peek, let kind = StatisticKind(rawValue: t.keyword) else {
      throw c.error(.expected("a statistic", found: c.peek?.text))
    }
    c.index += 1
    return kind
  }

  func parseCallOutcome(_ c: inout Cursor) throws(Diagnostic) -> CallExpectation {
    if c.take("succeeded") { return .succeeded }
    if c.take("is", "pending") { return .pending }
    if c.take("failed", "with") {
      let t = try c.word("an HKError code such as errorAuthorizationDenied")
      guard let code = HealthErrorCode(name: t.text) else {
        throw c.error(
          .unknownErrorCode(t.text, suggestion: suggest(t.text, from: HealthErrorCode.allCases.map(\.description))),
          at: t)
      }
      return .failed(code)
    }
    try c.expect(
      "would", "terminate", "the", "app",
      what: "'succeeded', 'failed with <code>', 'would terminate the app' or 'is pending'")
    if c.take("with") {
      let t = try c.word("a quoted message")
      return .wouldTerminate(t.text)
    }
    return .wouldTerminate(nil)
  }

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

  mutating func parseSees(_ c: inout Cursor, devices: Devices, app: AppDeclaration, block: [SourceLine])
    throws(Diagnostic) -> Expectation
  {
    if c.take("changes", "of") {
      // An anchored object query since this app's previous check of the type (the first check: a nil anchor).
      let type = try c.type()
      try c.expect(":")
      let added = try c.integer()
      try c.expect("added")
      _ = c.take("and")
      let deleted = try c.integer()
      try c.expect("deleted")
      try c.finish()
      return .changes(try single(devices, c), app: app.name, type, added: added, deleted: deleted)
    }
    if c.take("no") {
      let type = try c.type()
      guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      let range = try rangeSpec(&c)
      try c.finish()
      return .seesCount(devices, app: app.name, type, 0, range: range)
    }
    if let t = c.peek, Cursor.sampleType(t) != nil {
      let type = try c.type()
      try c.expect(":")
      try c.finish()
      return .seesSamples(try single(devices, c), app: app.name, type, try parseSampleLines(block, type: type, c))
    }
    let numberToken = c.peek
    let number = try c.number()
    if let t = c.peek, let type = Cursor.sampleType(t) {
      guard let count = Int(exactly: number), count >= 0, count <= 1_000_000_000 else {
        throw c.error(.invalidNumber(numberToken?.text ?? ""), at: numberToken)
      }
      c.index += 1
      guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      let range = try rangeSpec(&c)
      try c.finish()
      return .seesCount(devices, app: app.name, type, count, range: range)
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

  func blockCursor(_ line: SourceLine) -> Cursor { Cursor(line, self) }

  /// `from <time> to <time> [strictly starting] [strictly ending]`, or nothing.
  func rangeSpec(_ c: inout Cursor) throws(Diagnostic) -> RangeSpec? {
    guard c.take("from") else { return nil }
    let start = try c.time()
    try c.expect("to")
    let end = try c.time()
    var options: QueryOptions = []
    while !c.atEnd {
      if c.take("strictly", "starting") {
        options.insert(.strictStartDate)
      } else if c.take("strictly", "ending") {
        options.insert(.strictEndDate)
      } else {
        throw c.error(.expected("'strictly starting' or 'strictly ending'", found: c.peek?.text))
      }
      _ = c.take("and")
    }
    return RangeSpec(start: start, end: end, options: options)
  }

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

  func parseBuckets(_ block: [SourceLine], type: SampleType, _ header: Cursor) throws(Diagnostic) -> [ExpectedBucket] {
    if block.isEmpty { throw header.error(.emptyBlock, at: header.line.tokens.last) }
    var result: [ExpectedBucket] = []
    for line in block {
      var c = blockCursor(line)
      let date = try c.date()
      if c.take("none") || c.take("-") {
        try c.finish()
        result.append(ExpectedBucket(start: date, value: nil, unit: nil))
        continue
      }
      let value = try c.number()
      let unit = try c.unit(for: type)
      try c.finish()
      result.append(ExpectedBucket(start: date, value: value, unit: unit))
    }
    return result
  }

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
