import FoundationEssentials
import HealthEngine
import HealthModel

/// The clauses expectations share: date ranges, sample-query modifiers, query outcomes, error codes, message
/// fragments, app lists, metadata values and the one-device rule.
extension ParseState {
  /// The one device of an expectation that checks one at a time; for `both` it signals ``parseExpectation`` to read
  /// the expectation once per device.
  func single(_ devices: Devices, _ c: Cursor) throws(Diagnostic) -> DeviceKind {
    guard case .one(let d) = devices else { throw c.error(.oneDeviceAtATime) }
    return d
  }

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
}
