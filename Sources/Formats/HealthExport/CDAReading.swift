import FoundationEssentials
import HealthModel

/// What HealthKit reads from a CDA document's header when an `HKCDADocumentSample` is made: its title, the
/// patient's, author's and custodian's names, and its `effectiveTime`.
package struct CDAHeader: Hashable, Sendable {
  /// `ClinicalDocument/title` ("" when absent).
  package var title = ""
  /// The patient's legal name (`name` with `use="L"`), else their first name, as "Given Family" ("" when absent).
  package var patientName = ""
  /// The author's name, else the authoring software's ("" when absent).
  package var authorName = ""
  /// The custodian organization's name ("" when absent).
  package var custodianName = ""
  /// `ClinicalDocument/effectiveTime/@value`, when it parses.
  package var effectiveTime: Date?
}

/// Why a CDA document does not validate: HealthKit's error description and the detail it puts under
/// `HKDetailedCDAValidationErrorKey`.
package struct CDAValidationError: Error, Hashable, Sendable {
  /// The error's description ("Failed to validate XML: unable to read XML content", "… error code N").
  package var message: String
  /// What is wrong and where.
  package var detail: String
}

/// Reads and checks a CDA document as HealthKit does when an `HKCDADocumentSample` is made (behavior.md O1): the
/// XML must be well-formed, its root `ClinicalDocument`, and the root must hold the header elements CDA R2
/// requires (`typeId`, `id`, `code`, `effectiveTime`, `confidentialityCode`, `recordTarget`, `author`, `custodian`,
/// `component`). HealthKit validates against the whole CDA schema; HealthPair checks these. Names are matched
/// without their namespace prefix.
package enum CDAReader {
  /// The root's children CDA R2 requires, in schema order.
  package static let requiredElements = [
    "typeId", "id", "code", "effectiveTime", "confidentialityCode", "recordTarget", "author", "custodian",
    "component",
  ]

  /// The header of `data`, or why it does not validate.
  package static func read(_ data: [UInt8]) -> Result<CDAHeader, CDAValidationError> {
    var scanner = XMLScanner(MemoryInput(data), file: "CDA document", bufferSize: 1 << 14)
    scanner.captureText = true
    scanner.textLimit = CDADocument.maxFieldLength
    do throws(ExportError) {
      return try read(&scanner)
    } catch {
      return .failure(
        CDAValidationError(message: "Failed to validate XML: unable to read XML content", detail: error.description))
    }
  }

  /// A person's name being read: its given and family parts and whether it is the legal one.
  private struct Name {
    var given: [String] = []
    var family: [String] = []
    var legal = false
    var formatted: String { (given + family).joined(separator: " ") }
  }

  private static func read(_ scanner: inout XMLScanner) throws(ExportError) -> Result<CDAHeader, CDAValidationError> {
    guard try scanner.next() == .startTag else {
      return .failure(schemaError(1845, "the document has no root element"))
    }
    let root = localName(scanner.name)
    guard root == "ClinicalDocument" else {
      return .failure(
        schemaError(1845, "Element '\(root)': No matching global declaration available for the validation root."))
    }
    var header = CDAHeader()
    var path = ["ClinicalDocument"]
    var children: Set<String> = []
    var patientNames: [Name] = []
    var authorName: Name?
    var software = ""
    var titleSeen = false
    var custodianSeen = false
    var name: Name?
    if scanner.isSelfClosing { return .failure(missing(requiredElements)) }
    while true {
      switch try scanner.next() {
      case .endOfDocument:
        let absent = requiredElements.filter { !children.contains($0) }
        guard absent.isEmpty else { return .failure(missing(absent)) }
        header.patientName = (patientNames.first(where: \.legal) ?? patientNames.first)?.formatted ?? ""
        header.authorName = authorName.map(\.formatted) ?? software
        return .success(header)
      case .startTag:
        let element = localName(scanner.name)
        if path.count == 1 { children.insert(element) }
        if path == ["ClinicalDocument"], element == "effectiveTime", let index = scanner.attribute("value") {
          header.effectiveTime = parseTime(try scanner.string(index))
        }
        if element == "name", path == patientPath || (path == authorPath && authorName == nil) {
          var started = Name()
          if let index = scanner.attribute("use") {
            started.legal = try scanner.string(index).split(separator: " ").contains("L")
          }
          name = started
        }
        scanner.clearText()
        if !scanner.isSelfClosing { path.append(element) }
      case .endTag:
        let element = path.removeLast()
        let text = decodedText(scanner)
        let overflowed = scanner.textOverflowed
        var readField = true
        switch (element, path) {
        case ("title", ["ClinicalDocument"]) where !titleSeen:
          header.title = text
          titleSeen = true
        case ("given", _) where name != nil: name?.given.append(text)
        case ("family", _) where name != nil: name?.family.append(text)
        case ("name", patientPath):
          if let done = name { patientNames.append(done) }
          name = nil
        case ("name", authorPath) where authorName == nil && name != nil:
          authorName = name
          name = nil
        case ("softwareName", softwarePath) where software.isEmpty: software = text
        case ("name", custodianPath) where !custodianSeen:
          header.custodianName = text
          custodianSeen = true
        default: readField = false
        }
        if readField, overflowed {
          return .failure(
            schemaError(
              1824, "Element '\(element)': text longer than \(CDADocument.maxFieldLength) bytes (a HealthPair limit)"))
        }
      }
    }
  }

  private static let patientPath = ["ClinicalDocument", "recordTarget", "patientRole", "patient"]
  private static let authorPath = ["ClinicalDocument", "author", "assignedAuthor", "assignedPerson"]
  private static let softwarePath = ["ClinicalDocument", "author", "assignedAuthor", "assignedAuthoringDevice"]
  private static let custodianPath = [
    "ClinicalDocument", "custodian", "assignedCustodian", "representedCustodianOrganization",
  ]

  private static func localName(_ name: String) -> String {
    name.split(separator: ":").last.map(String.init) ?? name
  }

  /// The text since the last start tag, entity and character references decoded, runs of whitespace made one space
  /// and trimmed.
  private static func decodedText(_ scanner: borrowing XMLScanner) -> String {
    let text = decodeReferences(String(decoding: scanner.text, as: UTF8.self))
    let kept = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
    return kept.joined(separator: " ")
  }

  /// `text` with `&lt; &gt; &quot; &apos; &amp; &#NN; &#xNN;` replaced by what they stand for (the scanner checked
  /// them); anything else is kept.
  static func decodeReferences(_ text: String) -> String {
    guard text.contains("&") else { return text }
    var out = ""
    var rest = Substring(text)
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
      let body = rest[rest.index(after: amp)..<semicolon]
      let named = ["lt": "<", "gt": ">", "quot": "\"", "apos": "'", "amp": "&"][String(body)]
      var scalar: Unicode.Scalar?
      if body.hasPrefix("#x") || body.hasPrefix("#X") {
        scalar = UInt32(body.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
      } else if body.hasPrefix("#") {
        scalar = UInt32(body.dropFirst()).flatMap(Unicode.Scalar.init)
      }
      if let named {
        out += named
      } else if let scalar {
        out.unicodeScalars.append(scalar)
      } else {
        out += rest[amp...semicolon]
      }
      rest = rest[rest.index(after: semicolon)...]
    }
    return out + rest
  }

  private static func schemaError(_ code: Int, _ detail: String) -> CDAValidationError {
    CDAValidationError(message: "Failed to validate XML, error code \(code)", detail: detail)
  }

  private static func missing(_ absent: [String]) -> CDAValidationError {
    schemaError(
      1871,
      "Element 'ClinicalDocument': Missing child element(s). Expected is ( \(absent.joined(separator: ", ")) ).")
  }

  /// An HL7 time stamp: `yyyyMMddHHmmss` with an optional `Z`, `±HHMM` or `±HH:MM` offset, `yyyyMMddHHmm` or
  /// `yyyyMMdd`;
  /// without an offset, UTC (a HealthPair model). Nil for anything else.
  package static func parseTime(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    var digits = 0
    while digits < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[digits]) { digits += 1 }
    guard [8, 12, 14].contains(digits) else { return nil }
    func number(_ from: Int, _ count: Int) -> Int {
      bytes[from..<(from + count)].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
    var offset = 0
    let rest = Array(bytes[digits...])
    if rest == [UInt8(ascii: "Z")] {
      guard digits == 14 else { return nil }
    } else if !rest.isEmpty {
      guard digits == 14, rest[0] == UInt8(ascii: "+") || rest[0] == UInt8(ascii: "-") else { return nil }
      var zone = Array(rest.dropFirst())
      if zone.count == 5, zone[2] == UInt8(ascii: ":") { zone.remove(at: 2) }
      guard zone.count == 4, zone.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
        return nil
      }
      let z = zone.map { Int($0 - UInt8(ascii: "0")) }
      offset = (z[0] * 10 + z[1]) * 3600 + (z[2] * 10 + z[3]) * 60
      if rest[0] == UInt8(ascii: "-") { offset = -offset }
    }
    let (year, month, day) = (number(0, 4), number(4, 2), number(6, 2))
    let hour = digits >= 12 ? number(8, 2) : 0
    let minute = digits >= 12 ? number(10, 2) : 0
    let second = digits == 14 ? number(12, 2) : 0
    guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
    let days = daysFromCivil(Int64(year), Int64(month), Int64(day))
    let (y, m, d) = civilFromDays(days)
    guard (y, m, d) == (Int64(year), Int64(month), Int64(day)) else { return nil }  // 31 February
    return Date(timeIntervalSince1970: Double(days * 86_400) + Double(hour * 3600 + minute * 60 + second - offset))
  }
}
