import HealthModel

/// A position in a scenario file (1-based line and column).
package struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The file's path as given on the command line.
  package var file: String
  /// 1-based line.
  package var line: Int
  /// 1-based column.
  package var column: Int

  /// Creates a location.
  package init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// `file:line:column`.
  package var description: String { "\(file):\(line):\(column)" }
  /// Orders by file, line, column.
  package static func < (a: SourceLocation, b: SourceLocation) -> Bool {
    (a.file, a.line, a.column) < (b.file, b.line, b.column)
  }
}

/// Everything that can be wrong in a scenario file, each case carrying the offending text.
package enum ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
  // MARK: Encoding
  /// Bytes that are not UTF-8, starting at this offset in the file (a byte order mark counted).
  case invalidUTF8(byteOffset: Int, byte: UInt8)
  /// A carriage return not followed by a line feed (a classic Mac OS line end).
  case loneCarriageReturn

  // MARK: Syntactic
  /// The line starts with a word no step starts with.
  case unknownStep(String, suggestion: String?)
  /// A specific word was required.
  case expected(String, found: String?)
  /// A quoted string is not closed.
  case unterminatedString
  /// The line has words after a complete step.
  case unexpectedWords(String)
  /// A block (lines indented under an `expect … :`) is empty.
  case emptyBlock
  /// An indented line that belongs to no block.
  case strayIndentedLine
  /// The file has no step (it is empty, or only comments and settings).
  case noSteps
  /// The file has steps but no `expect`: it would pass whatever the devices did.
  case noExpectations

  // MARK: Semantic
  /// An app that no earlier `install` declared.
  case unknownApp(String, suggestion: String?)
  /// An app used on a device it is not installed on at that point of the file: where it is installed (phone
  /// first, empty: nowhere) and, when an `uninstall` removed it from that device, where that `uninstall` is.
  case appNotInstalled(String, device: DeviceKind, installedOn: [DeviceKind], uninstalledAt: SourceLocation?)
  /// A sample type HealthPair does not know.
  case unknownType(String, suggestion: String?)
  /// A unit string that does not parse.
  case invalidUnit(String, reason: String, suggestion: String?)
  /// A unit that does not fit the type.
  case incompatibleUnit(unit: String, type: String)
  /// A device name other than phone, watch or both.
  case unknownDevice(String, suggestion: String?)
  /// A value that is not a number.
  case invalidNumber(String)
  /// A date or time that does not parse.
  case invalidDate(String)
  /// A duration that does not parse.
  case invalidDuration(String)
  /// A category value not valid for the type.
  case unknownCategoryValue(String, type: String, valid: [String])
  /// An authorization status, request status or decision name that does not exist.
  case unknownStatus(String, valid: [String], suggestion: String?)
  /// An HKError code name that does not exist.
  case unknownErrorCode(String, suggestion: String?)
  /// A sample name used before any `as <name>` defined it.
  case unknownSampleName(String, suggestion: String?)
  /// An activity type HealthKit does not name (`HKWorkoutActivityType`'s Swift case names).
  case unknownActivityType(String, suggestion: String?)
  /// A workout name used before any `saves workout … as <name>` defined it.
  case unknownWorkout(String, suggestion: String?)
  /// A workout session name used before any `starts|prepares a workout session … as <name>` defined it.
  case unknownSession(String, suggestion: String?)
  /// A sample name defined twice.
  case duplicateSampleName(String)
  /// An app installed twice under the same name with different identifiers.
  case conflictingApp(String)
  /// Something only the phone has (Settings, the Watch app) was used on the watch.
  case phoneOnly(String)
  /// `seed` must be a non-negative integer.
  case invalidSeed(String)
  /// A time zone HealthPair does not know.
  case unknownTimeZone(String, suggestion: String?)

  // MARK: Reuse and new forms
  /// A `<name>` placeholder no `for` block or `examples:` table binds.
  case unknownPlaceholder(String, suggestion: String?)
  /// A `for` variable or `examples:` column named twice.
  case duplicateVariable(String)
  /// An `examples:` row with another number of cells than the header.
  case exampleRowWidth(expected: Int, found: Int)
  /// An `include` whose file does not exist or cannot be read (the nearest file in that directory suggested).
  case includeNotFound(String, suggestion: String?)
  /// An `include` that includes itself, directly or through other files (the chain, outermost first).
  case includeCycle([String])
  /// A line that is valid elsewhere but not where it is (`what`, and where it belongs).
  case misplaced(String, belongs: String)
  /// A form the language has but the engine cannot evaluate yet (what, and what to use instead).
  case notSupportedYet(String, instead: String)
  /// A sample identifier that is not a UUID.
  case invalidUUID(String)
  /// `for` blocks, includes and example rows that would make more lines than a scenario can sensibly have.
  case expansionTooLarge(limit: Int)
  /// Internal to the parser, never reported: an expectation about one device was written for `both`, so it is
  /// read once per device.
  case oneDeviceAtATime

  /// A lowercase, one-phrase message without trailing period.
  package var description: String {
    func hint(_ s: String?) -> String { s.map { " (did you mean '\($0)'?)" } ?? "" }
    switch self {
    case .invalidUTF8(let offset, let byte):
      let hex = String(byte, radix: 16, uppercase: true)
      let shown = "0x" + String(repeating: "0", count: 2 - hex.count) + hex
      return "invalid UTF-8 at byte offset \(offset) (\(shown)): scenario files must be UTF-8"
    case .loneCarriageReturn:
      return "carriage return without a line feed (a classic Mac OS line end): use LF or CRLF line ends"
    case .noSteps: return "the file has no steps: a scenario needs at least one step and one 'expect'"
    case .noExpectations: return "the scenario checks nothing: add at least one 'expect' step"
    case .unknownStep(let w, let s): return "unknown step '\(w)'\(hint(s))"
    case .expected(let what, let found):
      return "expected \(what)" + (found.map { ", found '\($0)'" } ?? " at the end of the line")
    case .unterminatedString: return "unterminated quoted string"
    case .unexpectedWords(let w): return "unexpected '\(w)' after a complete step"
    case .emptyBlock: return "a block ending in ':' needs at least one indented line under it"
    case .strayIndentedLine: return "indented line does not belong to a block (blocks follow a line ending in ':')"
    case .unknownApp(let a, let s): return "unknown app '\(a)': install it in an earlier step\(hint(s))"
    case .appNotInstalled(let a, let device, let on, let line):
      let now =
        on.isEmpty ? "installed on no device" : "installed on the " + on.map(\.description).joined(separator: ", ")
      let removed = line.map { ", uninstalled from the \(device) at \($0.file):\($0.line)" } ?? ""
      return "app '\(a)' is not installed on the \(device) at this step (\(now)\(removed)): add "
        + "'install \(a) on \(device)' before it"
    case .unknownType(let t, let s): return "unknown sample type '\(t)'\(hint(s))"
    case .invalidUnit(let u, let r, let s): return "invalid unit '\(u)': \(r)\(hint(s))"
    case .incompatibleUnit(let u, let t): return "unit '\(u)' does not measure \(t)"
    case .unknownDevice(let d, let s): return "unknown device '\(d)': expected phone, watch or both\(hint(s))"
    case .invalidNumber(let n): return "'\(n)' is not a number"
    case .invalidDate(let d):
      return "invalid date '\(d)': expected 2026-01-05, 2026-01-05T08:00, 08:00 or now[+-]<duration>"
    case .invalidDuration(let d): return "invalid duration '\(d)': expected e.g. 30s, 10m, 2h, 7d"
    case .unknownCategoryValue(let v, let t, let valid):
      return "'\(v)' is not a \(t) value: expected one of \(valid.joined(separator: ", "))"
    case .unknownStatus(let s, let valid, let h):
      return "unknown status '\(s)': expected one of \(valid.joined(separator: ", "))\(hint(h))"
    case .unknownErrorCode(let c, let s): return "unknown HKError code '\(c)'\(hint(s))"
    case .unknownSampleName(let n, let s):
      return "no sample is named '\(n)' (name one with 'as \(n)' when saving it)\(hint(s))"
    case .unknownActivityType(let a, let s): return "unknown activity type '\(a)'\(hint(s))"
    case .unknownWorkout(let n, let s):
      return "no workout is named '\(n)' (name one with 'saves workout … as \(n)')\(hint(s))"
    case .unknownSession(let n, let s):
      return "no workout session is named '\(n)' (name one with 'starts a workout session … as \(n)')\(hint(s))"
    case .duplicateSampleName(let n): return "a sample is already named '\(n)'"
    case .conflictingApp(let a): return "app '\(a)' is already installed with another bundle identifier"
    case .phoneOnly(let what): return "\(what) exists only on the phone"
    case .invalidSeed(let s): return "invalid seed '\(s)': expected a non-negative integer"
    case .unknownTimeZone(let z, let s):
      return "unknown time zone '\(z)': expected UTC, a fixed offset such as UTC+05:30 or a zone such as "
        + "Europe/Paris\(hint(s))"
    case .unknownPlaceholder(let p, let s):
      return "unknown placeholder '<\(p)>': bind it with 'for \(p) in …:' or an 'examples:' column"
        + (s.map { " (did you mean '<\($0)>'?)" } ?? "")
    case .duplicateVariable(let v): return "'\(v)' is already bound: give this variable another name"
    case .exampleRowWidth(let expected, let found):
      return "this example row has \(found) cell\(found == 1 ? "" : "s"); the header has \(expected)"
    case .includeNotFound(let f, let s): return "cannot include '\(f)': no such file\(hint(s))"
    case .includeCycle(let chain): return "include cycle: \(chain.joined(separator: " includes "))"
    case .misplaced(let what, let belongs): return "\(what) is not allowed here: \(belongs)"
    case .notSupportedYet(let what, let instead): return "\(what) is not supported yet: \(instead)"
    case .invalidUUID(let u): return "invalid UUID '\(u)': expected e.g. 6F9619FF-8B86-4011-B42D-00C04FC964FF"
    case .oneDeviceAtATime: return "this expectation checks one device at a time"
    case .expansionTooLarge(let limit):
      return "'for' blocks, includes and example rows make more than \(limit) lines here: split the scenario"
    }
  }
}

/// An error at a location, with the source line for rendering.
package struct Diagnostic: Hashable, Sendable, Error, CustomStringConvertible {
  /// Where.
  package var location: SourceLocation
  /// What.
  package var error: ScenarioError
  /// The whole source line.
  package var sourceLine: String
  /// How many characters the caret underline spans.
  package var length: Int
  /// For an error in an included file: the `include` lines that led to it, innermost first.
  package var includedFrom: [SourceLocation] = []

  /// Creates a diagnostic.
  package init(location: SourceLocation, error: ScenarioError, sourceLine: String, length: Int = 1) {
    self.location = location
    self.error = error
    self.sourceLine = sourceLine
    self.length = max(1, length)
  }

  /// `file:line:col: error: message`, the source line, a caret under the spot, and for an included file a
  /// `note:` line per `include` that led there.
  package var description: String {
    let caret =
      String(repeating: " ", count: max(0, location.column - 1)) + "^" + String(repeating: "~", count: length - 1)
    let notes = includedFrom.map { "\n\($0): note: included from here" }.joined()
    return "\(location): error: \(error)\n\(sourceLine)\n\(caret)\(notes)"
  }
}

/// Every diagnostic of a file, in order.
package struct Diagnostics: Error, Hashable, Sendable, CustomStringConvertible {
  /// The diagnostics.
  package var items: [Diagnostic]
  /// Each rendered diagnostic, separated by blank lines.
  package var description: String { items.map(\.description).joined(separator: "\n") }
}
