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
    let start = c
    do {
      return try parseDeviceExpectation(&c, devices: devices, block: block)
    } catch let failure where failure.error == .oneDeviceAtATime && devices == .both {
      // `expect both:` with an expectation about one device: the phone's, then the watch's.
      var phoneCursor = start
      var watchCursor = start
      let phone = try parseDeviceExpectation(&phoneCursor, devices: .one(.phone), block: block)
      let watch = try parseDeviceExpectation(&watchCursor, devices: .one(.watch), block: block)
      c = phoneCursor
      return .onBoth(phone: phone, watch: watch)
    }
  }

  /// An expectation after `expect <devices>:`.
  mutating func parseDeviceExpectation(_ c: inout Cursor, devices: Devices, block: [SourceLine]) throws(Diagnostic)
    -> Expectation
  {
    if c.take("locked") || c.take("unlocked") {
      let locked = c.line.tokens[c.index - 1].keyword == "locked"
      try c.finish()
      return .locked(devices, locked)
    }
    if let n = c.peek.flatMap({ Int($0.text) }), c.line.tokens.count > c.index + 1,
      ["samples", "sample"].contains(c.line.tokens[c.index + 1].keyword)
    {
      // "2 samples wait for unlock": the locked journal (behavior.md L3).
      c.index += 2
      guard c.take("wait", "for", "unlock") || c.take("waits", "for", "unlock") else {
        throw c.error(.expected("'wait for unlock'", found: c.peek?.text))
      }
      try c.finish()
      return .waitingForUnlock(try single(devices, c), n)
    }
    if c.take("store") {
      return try parseStore(&c, devices: devices)
    }
    if c.take("last", "import", "added") {
      let device = try single(devices, c)
      let added = try c.integer()
      guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      var alreadyPresent: Int?
      var beforeRetention: Int?
      while !c.atEnd {
        _ = c.take("and")
        let n = try c.integer()
        if c.take("already", "present") {
          alreadyPresent = n
        } else if c.take("before", "the", "retention", "window") {
          beforeRetention = n
        } else {
          throw c.error(.expected("'already present' or 'before the retention window'", found: c.peek?.text))
        }
      }
      return .lastImport(device, added: added, alreadyPresent: alreadyPresent, beforeRetention: beforeRetention)
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
      if c.take("sample", "query", "of") {
        // "Water's sample query of dietaryWater [modifiers] fails with …": one query and how it ends.
        var spec = SampleQuerySpec(app: app.name, type: try c.type())
        try sampleModifiers(&c, &spec)
        guard let outcome = try queryOutcome(&c) else {
          throw c.error(
            .expected("'is no data', 'fails with <code>' or 'would terminate the app'", found: c.peek?.text))
        }
        try c.finish()
        return .sampleQuery(device, spec, outcome)
      }
      if c.take("requests") {
        let counts = try sheetCounts(&c)
        return .sheetHistory(device, app: app.name, counts)
      }
      if c.take("read", "of") {
        // "Water's read of dateOfBirth fails with errorAuthorizationNotDetermined" (behavior.md C3).
        let type = try c.characteristicType()
        guard c.take("fails", "with") || c.take("fail", "with") else {
          throw c.error(.expected("'fails with <code>'", found: c.peek?.text))
        }
        let code = try errorCode(&c)
        try c.finish()
        return .characteristic(device, app: app.name, type, .fails(code))
      }
      if c.take("preferred", "unit", "for") {
        let typeToken = c.peek
        let type = try c.type()
        guard type.descriptor.isQuantity else {
          throw c.error(.expected("a quantity type", found: type.name), at: typeToken)
        }
        try c.expect("is")
        let unitToken = c.peek
        _ = try c.unit(for: type)
        try c.finish()
        return .preferredUnit(device, app: app.name, type, unitToken!.text)
      }
      if c.take("preferred", "units", "for") {
        let types = try c.types(stoppingAt: ["fail", "fails"])
        guard c.take("fail", "with") || c.take("fails", "with") else {
          throw c.error(.expected("'fail with <code>'", found: c.peek?.text))
        }
        let code = try errorCode(&c)
        try c.finish()
        return .preferredUnitsFail(device, app: app.name, types, code)
      }
      if c.take("background", "delivery", "of") {
        let type = try c.type()
        try c.expect("is")
        let t = try c.word("'on', 'off', 'stopped' or 'waiting'")
        var state: BackgroundState
        switch t.keyword {
        case "on":
          state = .on(nil)
          if let f = c.peek {
            guard let frequency = UpdateFrequency(name: f.keyword) else {
              let names = UpdateFrequency.allCases.map(\.description)
              throw c.error(.unknownStatus(f.text, valid: names, suggestion: suggest(f.text, from: names)), at: f)
            }
            state = .on(frequency)
            c.index += 1
          }
        case "off": state = .off
        case "stopped": state = .stopped
        case "waiting": state = .waiting
        default:
          let names = ["on", "off", "stopped", "waiting"]
          throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
        }
        try c.finish()
        return .backgroundState(devices, app: app.name, type, state)
      }
      if c.take("background", "deliveries", "of") {
        // "Steps's background deliveries of stepCount: 3 woken, 1 completed, 2 missed"
        let type = try c.type()
        try c.expect(":")
        var counts: [String: Int] = [:]
        for word in ["woken", "completed", "missed"] {
          counts[word] = try c.integer()
          try c.expect(word)
        }
        try c.finish()
        return .backgroundCounts(
          devices, app: app.name, type, woken: counts["woken"]!, completed: counts["completed"]!,
          missed: counts["missed"]!)
      }
      try c.expect(
        "request",
        what:
          "'last call', 'queries of', 'sample query of', 'requests', 'read of', 'preferred unit for', "
          + "'preferred units for', 'background delivery of', 'background deliveries of' or 'request'")
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
      var share: [SampleType]?
      var read: [SampleType]?
      while !c.atEnd, c.peek?.keyword != "is", c.peek?.keyword != "would" {
        if c.take("share") {
          share = try c.types(stoppingAt: ["read", "is", "share", "would"])
        } else if c.take("read") {
          read = try c.types(stoppingAt: ["share", "is", "read", "would"])
        } else {
          throw c.error(.expected("'share', 'read', 'is' or 'would terminate the app'", found: c.peek?.text))
        }
      }
      // Named types: those; none: the app's declaration on each device, when the step runs.
      if share != nil || read != nil {
        share = share ?? []
        read = read ?? []
      }
      if c.take("would", "terminate", "the", "app") {
        _ = c.take("with")
        let fragments = try fragments(&c)
        return .requestStatus(devices, app: app.name, share: share, read: read, .wouldTerminate(fragments))
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
      return .requestStatus(devices, app: app.name, share: share, read: read, .status(status))
    }
    if c.take("reads") {
      // "Water reads dateOfBirth as 1990-04-02", "… reads bloodType as notSet" (behavior.md C2).
      let device = try single(devices, c)
      let type = try c.characteristicType()
      try c.expect("as")
      let value = try c.characteristicValue(type)
      try c.finish()
      return .characteristic(device, app: app.name, type, .value(value))
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
    if let t = c.peek, let interval = CollectionInterval.allCases.first(where: { $0.adverb == t.keyword }) {
      // "daily sum of stepCount from … to …:": a collection by that interval.
      c.index += 1
      let kind = try statistic(&c)
      return try parseStatistic(&c, devices: devices, app: app, kind: kind, interval: (interval, t), block: block)
    }
    if let t = c.peek, let kind = StatisticKind(word: t.keyword) {
      c.index += 1
      return try parseStatistic(&c, devices: devices, app: app, kind: kind, interval: nil, block: block)
    }
    if let t = c.peek, c.line.tokens.count > c.index + 1, c.line.tokens[c.index + 1].keyword == "of" {
      throw c.error(
        .unknownStatus(t.text, valid: StatisticKind.words, suggestion: suggest(t.text, from: StatisticKind.words)),
        at: t)
    }
    throw c.error(
      .expected(
        "an expectation ('share', 'read', 'request status', 'sees', 'reads', 'is locked out', 'sum of', 'daily', "
          + "or a possessive such as \(app.name)'s)",
        found: c.peek?.text))
  }

  /// `<statistic> of <type> [on <date> | from <time> to <time>] [from <App>…] [by source | by <interval>]` and
  /// what it gives: a statistics query, or a collection when an interval is given (`interval`: one written before
  /// the statistic, as in `daily sum of`).
  mutating func parseStatistic(
    _ c: inout Cursor, devices: Devices, app: AppDeclaration, kind: StatisticKind,
    interval prefix: (CollectionInterval, Token)?, block: [SourceLine]
  ) throws(Diagnostic) -> Expectation {
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

  /// `is no data`, `fails with <code> ["<fragment>"…]` or `would terminate the app [with "<fragment>"…]`, or nil.
  func queryOutcome(_ c: inout Cursor) throws(Diagnostic) -> QueryOutcome? {
    if c.take("is", "no", "data") { return .noData }
    if c.take("fails", "with") || c.take("fail", "with") {
      return .fails(try errorCode(&c), fragments: try fragments(&c))
    }
    if c.take("would", "terminate", "the", "app") {
      _ = c.take("with")
      return .wouldTerminate(try fragments(&c))
    }
    return nil
  }

  /// An HKError code by name or raw value.
  func errorCode(_ c: inout Cursor) throws(Diagnostic) -> HealthErrorCode {
    let t = try c.word("an HKError code such as errorAuthorizationDenied")
    guard let code = HealthErrorCode(name: t.text) else {
      throw c.error(
        .unknownErrorCode(t.text, suggestion: suggest(t.text, from: HealthErrorCode.allCases.map(\.description))),
        at: t)
    }
    return code
  }

  /// Quoted message fragments up to the end of the line (every one must be in the message).
  func fragments(_ c: inout Cursor) throws(Diagnostic) -> [String] {
    var result: [String] = []
    while let t = c.peek {
      guard t.quoted else {
        throw c.error(.expected("a quoted message fragment such as \"not determined\"", found: t.text), at: t)
      }
      result.append(t.text)
      c.index += 1
    }
    return result
  }

  /// App names after `from`: `Water`, `Water and Return`, `Water, Return`.
  func appNames(_ c: inout Cursor) throws(Diagnostic) -> [String] {
    var names = [try c.app().name]
    while let t = c.peek {
      if t.keyword == "and", c.line.tokens.count > c.index + 1,
        knownApp(c.line.tokens[c.index + 1].text) != nil
      {
        c.index += 1
      } else if knownApp(t.text) == nil {
        break
      }
      names.append(try c.app().name)
    }
    return names
  }

  /// The app a word names, if any.
  func knownApp(_ word: String) -> AppDeclaration? {
    apps[word] ?? apps.values.first { $0.name.lowercased() == word.lowercased() }
  }

  /// Sample-query modifiers, in any order: `from <time> to <time> [strictly …]`, `from <App>…`, `sorted by
  /// startDate|endDate [descending] [then …]`, `limit <n>`, `with <key>=<value> [and …]`, `outside correlations`.
  func sampleModifiers(_ c: inout Cursor, _ spec: inout SampleQuerySpec) throws(Diagnostic) {
    while let t = c.peek {
      if t.keyword == "from" {
        if c.line.tokens.count > c.index + 1, Cursor.time(c.line.tokens[c.index + 1].text) != nil {
          spec.range = try rangeSpec(&c)
        } else {
          c.index += 1
          spec.sources = try appNames(&c)
        }
      } else if c.take("sorted", "by") {
        repeat {
          let key = try c.word("startDate or endDate")
          let keys = ["startDate", "endDate"]
          let field: SampleSort.Field
          switch key.keyword {
          case "startdate", "start": field = .startDate
          case "enddate", "end": field = .endDate
          default:
            throw c.error(.unknownStatus(key.text, valid: keys, suggestion: suggest(key.text, from: keys)), at: key)
          }
          let descending = c.take("descending")
          if !descending { _ = c.take("ascending") }
          spec.sort.append(SampleSort(field, ascending: !descending))
        } while c.take("then")
      } else if c.take("outside", "correlations") {
        spec.outsideCorrelations = true
      } else if c.take("limit") {
        let token = c.peek
        let n = try c.integer()
        guard n >= 0 else {
          throw c.error(.expected("a limit of 0 (no limit) or more", found: token?.text), at: token)
        }
        spec.limit = n
      } else if c.take("with") {
        repeat {
          let kv = try c.word("key=value metadata")
          let bang = kv.text.firstIndex(of: "!")
          let unequal = bang.map { kv.text[kv.text.index(after: $0)...].hasPrefix("=") } ?? false
          let parts =
            unequal
            ? [kv.text[..<bang!], kv.text[kv.text.index(bang!, offsetBy: 2)...]]
            : kv.text.split(separator: "=", maxSplits: 1)
          guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !kv.quoted else {
            throw c.error(
              .expected("key=value or key!=value, such as HKMetadataKeyWasUserEntered=true", found: kv.text), at: kv)
          }
          let key = MetadataKey.byConstantName[String(parts[0])] ?? String(parts[0])
          spec.metadata.append(
            MetadataMatch(key: key, value: ParseState.metadataValue(String(parts[1])), equal: !unequal))
        } while c.take("and") || (c.peek.map { $0.text.contains("=") && !$0.quoted } ?? false)
      } else {
        return
      }
    }
  }

  /// A metadata value as written after `=`: `true`/`false`, an integer, a number, else a string.
  static func metadataValue(_ raw: String) -> MetadataValue {
    if raw == "true" { return .bool(true) }
    if raw == "false" { return .bool(false) }
    if let i = Int64(raw) { return .int(i) }
    if let d = Double(raw) { return .double(d) }
    return .string(raw)
  }

  /// `<App>'s requests …`: `showed <n> sheets`, `answered <n>`, `cancelled <n>`, `<n> presentations failed`, any
  /// of them, in any order.
  func sheetCounts(_ c: inout Cursor) throws(Diagnostic) -> SheetCounts {
    var counts = SheetCounts()
    let what = "'showed <n> sheets', 'answered <n>', 'cancelled <n>' or '<n> presentations failed'"
    while !c.atEnd {
      if c.take("and") { continue }
      if c.take("showed") {
        counts.shown = c.take("no") ? 0 : try c.integer()
        guard c.take("sheets") || c.take("sheet") else { throw c.error(.expected("'sheets'", found: c.peek?.text)) }
      } else if c.take("answered") {
        counts.answered = try c.integer()
      } else if c.take("cancelled") || c.take("canceled") {
        counts.cancelled = try c.integer()
      } else if let n = c.peek.flatMap({ Int($0.text) }) {
        c.index += 1
        if c.take("presentations", "failed") || c.take("presentation", "failed") || c.take("failed", "to", "present") {
          counts.failed = n
        } else if c.take("answered") {
          counts.answered = n
        } else if c.take("cancelled") || c.take("canceled") {
          counts.cancelled = n
        } else if c.take("sheets") || c.take("sheet") {
          counts.shown = n
        } else {
          throw c.error(.expected("'presentations failed', 'answered' or 'cancelled'", found: c.peek?.text))
        }
      } else {
        let t = c.peek!
        let words = ["showed", "answered", "cancelled"]
        if let near = suggest(t.text, from: words) {
          throw c.error(.unknownStatus(t.text, valid: words, suggestion: near), at: t)
        }
        throw c.error(.expected(what, found: t.text), at: t)
      }
    }
    if counts.isEmpty { throw c.error(.expected(what, found: nil)) }
    return counts
  }

  /// The one device of an expectation that checks one at a time; for `both` it signals ``parseExpectation`` to read
  /// the expectation once per device.
  func single(_ devices: Devices, _ c: Cursor) throws(Diagnostic) -> DeviceKind {
    guard case .one(let d) = devices else { throw c.error(.oneDeviceAtATime) }
    return d
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

  /// `succeeded`, `is pending`, `failed [with <code>] ["<fragment>"…]`, `would terminate the app [with
  /// "<fragment>"…]`.
  func parseCallOutcome(_ c: inout Cursor) throws(Diagnostic) -> CallExpectation {
    if c.take("succeeded") { return .succeeded }
    if c.take("is", "pending") { return .pending }
    if c.take("failed") {
      var code: HealthErrorCode?
      if c.take("with"), c.peek?.quoted != true { code = try errorCode(&c) }
      return .failed(code, fragments: try fragments(&c))
    }
    if let t = c.peek, !t.quoted, t.keyword != "would", let near = suggest(t.text, from: ["succeeded", "failed"]) {
      throw c.error(
        .unknownStatus(
          t.text, valid: ["succeeded", "failed", "would terminate the app", "is pending"],
          suggestion: near), at: t)
    }
    try c.expect(
      "would", "terminate", "the", "app",
      what: "'succeeded', 'failed [with <code>]', 'would terminate the app' or 'is pending'")
    _ = c.take("with")
    return .wouldTerminate(try fragments(&c))
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
      var spec = SampleQuerySpec(app: app.name, type: try c.type())
      guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      try sampleModifiers(&c, &spec)
      try c.finish()
      return .seesCount(devices, spec, 0)
    }
    if let t = c.peek, Cursor.sampleType(t) != nil {
      var spec = SampleQuerySpec(app: app.name, type: try c.type())
      try sampleModifiers(&c, &spec)
      try c.expect(":", what: "':' and a block of samples")
      try c.finish()
      let device = try single(devices, c)
      return .seesSamples(device, spec, try parseSampleLines(block, type: spec.type, c))
    }
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

  func blockCursor(_ line: SourceLine) -> Cursor { Cursor(line, self) }

  /// `from <time> to <time> [strictly starting] [strictly ending]`, or nothing. A bare date after `to` means the end
  /// of that day: `from 2026-01-04 to 2026-01-06` covers three days.
  func rangeSpec(_ c: inout Cursor) throws(Diagnostic) -> RangeSpec? {
    guard c.take("from") else { return nil }
    let start = try c.time()
    try c.expect("to")
    let endToken = c.peek
    var end = try c.time()
    if let endToken, ParseState.isBareDate(endToken.text), case .local(let day) = end {
      end = .local(day.addingTimeInterval(86_400))  // the next local midnight
    }
    var options: QueryOptions = []
    while c.peek?.keyword == "strictly"
      || (c.peek?.keyword == "and" && c.line.tokens.count > c.index + 1
        && c.line.tokens[c.index + 1].keyword == "strictly")
    {
      _ = c.take("and")
      if c.take("strictly", "starting") {
        options.insert(.strictStartDate)
      } else if c.take("strictly", "ending") {
        options.insert(.strictEndDate)
      } else {
        c.index += 1
        throw c.error(.expected("'strictly starting' or 'strictly ending'", found: c.peek?.text))
      }
    }
    return RangeSpec(start: start, end: end, options: options)
  }

  /// Whether `text` is a date without a time (`2026-01-06`).
  static func isBareDate(_ text: String) -> Bool {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    return parts.count == 3 && parts[0].count == 4 && parts[1].count == 2 && parts[2].count == 2
      && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
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
