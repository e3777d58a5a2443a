import Foundation
import HealthEngine
import HealthModel
import Synchronization

// MARK: - Key paths

/// The key path of an object's identifier in a predicate format (`UUID`).
public let HKPredicateKeyPathUUID = "UUID"
/// The key path of a sample's source (`source`), compared with an `HKSource`.
public let HKPredicateKeyPathSource = "source"
/// The key path of a sample's source revision (`sourceRevision`), compared with an `HKSourceRevision`.
public let HKPredicateKeyPathSourceRevision = "sourceRevision"
/// The key path of a sample's device (`device`); `device.<property>` compares one of its properties.
public let HKPredicateKeyPathDevice = "device"
/// The key path of an object's metadata (`metadata`): `metadata.<key>` compares one value.
public let HKPredicateKeyPathMetadata = "metadata"
/// The key path of the correlation holding a sample (`correlation`); only `correlation == nil` is understood.
public let HKPredicateKeyPathCorrelation = "correlation"
/// The key path of the workout holding a sample (`workout`); HealthPair stores no workouts.
public let HKPredicateKeyPathWorkout = "workout"
/// The key path of a sample's start date (`startDate`).
public let HKPredicateKeyPathStartDate = "startDate"
/// The key path of a sample's end date (`endDate`).
public let HKPredicateKeyPathEndDate = "endDate"
/// The key path of a category sample's value (`value`).
public let HKPredicateKeyPathCategoryValue = "value"
/// The key path of a quantity sample's quantity (`quantity`), compared with an `HKQuantity`.
public let HKPredicateKeyPathQuantity = "quantity"

#if os(Linux)
  extension NSPredicate {
    /// A predicate from a format string, as published HealthKit code writes them —
    /// `NSPredicate(format: "metadata.%K != YES", HKMetadataKeyWasUserEntered)`. swift-corelibs-foundation has no
    /// format parser, so HealthKitSim reads the subset that describes samples (docs/healthkit-api.md, "Format
    /// predicates"): comparisons of the HealthKit key paths with `%@`, `%K`, `%d`/`%f` arguments or literals, `IN`,
    /// `BETWEEN`, `AND`/`OR`/`NOT`. A query given a format HealthKitSim cannot read fails with
    /// ``HealthKitSimError/unsupported(_:)``, saying where; `evaluate(with:)` on it is false.
    public convenience init(format predicateFormat: String, _ args: Any...) {
      self.init(format: predicateFormat, argumentArray: args)
    }

    /// A predicate from a format string and its arguments in an array (see ``init(format:_:)``).
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
      let condition = PredicateFormat.parse(predicateFormat, arguments: arguments ?? [])
      self.init(block: { object, _ in
        guard case .success(let filter) = condition, let sample = (object as? HKSample)?.engineSample else {
          return false
        }
        return filter.matches(sample)
      })
      FormatPredicates.shared.register(self, condition)
    }
  }
#endif

#if os(Linux)
  /// `date as CVarArg`, as published code passes a date to `NSPredicate(format:)`: on Darwin a `Date` is a `CVarArg`
  /// through `NSDate`; swift-corelibs-foundation does not make it one. `NSPredicate(format:)` reads the date itself;
  /// a C-variadic call (`String(format: "%@", date as CVarArg)`) gets a retained `NSDate`, which it never releases.
  extension Date: @retroactive CVarArg {
    /// A retained `NSDate` of the same instant, as `%@` expects an object.
    public var _cVarArgEncoding: [Int] {
      let object = NSDate(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate)
      return [Int(bitPattern: Unmanaged.passRetained(object).toOpaque())]
    }
  }

  /// `uuid as CVarArg`, as for ``Foundation/Date``: a retained `NSUUID` for a C-variadic call.
  extension UUID: @retroactive CVarArg {
    /// A retained `NSUUID` of the same identifier.
    public var _cVarArgEncoding: [Int] {
      let object = NSUUID(uuidString: uuidString)!
      return [Int(bitPattern: Unmanaged.passRetained(object).toOpaque())]
    }
  }
#endif

// MARK: - The registry

/// What each predicate made from a format string means: `NSPredicate(format:)` is a convenience initializer of
/// Foundation's class, so the condition cannot live in a subclass (as ``HealthKitSimPredicate``'s does); queries find
/// it here by the predicate's identity. Entries hold their predicate weakly and are dropped once it is gone.
final class FormatPredicates: Sendable {
  /// The process's registry.
  static let shared = FormatPredicates()

  /// `@unchecked Sendable`: the predicate is only compared by identity, never called, and an `NSPredicate` is
  /// immutable.
  private struct Entry: @unchecked Sendable {
    weak var predicate: NSPredicate?
    let condition: Result<SampleFilter, HealthKitSimError>
  }

  private struct State {
    var entries: [ObjectIdentifier: Entry] = [:]
    /// When to sweep out entries whose predicate is gone next.
    var sweepAt = 256
  }

  private let state = Mutex(State())

  /// Records what `predicate` means.
  func register(_ predicate: NSPredicate, _ condition: Result<SampleFilter, HealthKitSimError>) {
    let entry = Entry(predicate: predicate, condition: condition)
    let id = ObjectIdentifier(predicate)
    state.withLock { s in
      s.entries[id] = entry
      guard s.entries.count >= s.sweepAt else { return }
      s.entries = s.entries.filter { $0.value.predicate != nil }
      s.sweepAt = max(256, s.entries.count * 2)
    }
  }

  /// What `predicate` means, if it was made from a format string.
  func condition(of predicate: NSPredicate) -> Result<SampleFilter, HealthKitSimError>? {
    let id = ObjectIdentifier(predicate)
    guard let entry = state.withLock({ $0.entries[id] }), entry.predicate === predicate else { return nil }
    return entry.condition
  }
}

// MARK: - The parser

/// NSPredicate's format language, the part that describes HealthKit samples, read into a ``SampleFilter``. Pure:
/// a format and its arguments in, a condition or a located reason out.
enum PredicateFormat {
  /// The condition `format` describes with `arguments`, or why HealthKitSim cannot read it.
  static func parse(_ format: String, arguments: [Any]) -> Result<SampleFilter, HealthKitSimError> {
    do {
      var parser = try Parser(format, arguments: arguments)
      let filter = try parser.predicate()
      return .success(filter)
    } catch {
      return .failure(
        .unsupported(
          "HealthKitSim cannot read the predicate format '\(format)': \(error.message) at offset \(error.offset) "
            + "(docs/healthkit-api.md, \"Format predicates\")"))
    }
  }

  /// A located reason.
  struct Failure: Error {
    var message: String
    var offset: Int
  }

  /// A value in a format: a literal or an argument.
  enum Value {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case date(Date)
    case uuid(UUID)
    case quantity(HKQuantity)
    case source(String)
    case list([Value])
    case other(String)
  }

  enum Token: Equatable {
    case word(String)  // an identifier or keyword
    case key(Int)  // %K: the index of its argument, a key path (component)
    case argument(Int)  // %@ or a number specifier: the argument's index
    case number(Double)
    case string(String)
    case symbol(String)  // ( ) { } , . and the operators
    case end
  }

  struct Parser {
    let arguments: [Any]
    var tokens: [(token: Token, offset: Int)] = []
    var index = 0
    /// How deep parentheses and NOTs nest now (at most ``maxDepth``, so a hostile format cannot overflow the stack).
    var depth = 0
    static let maxDepth = 64

    init(_ format: String, arguments: [Any]) throws(Failure) {
      self.arguments = arguments
      tokens = try Self.tokenize(Array(format), argumentCount: arguments.count)
    }

    // MARK: Tokens

    static func tokenize(_ chars: [Character], argumentCount: Int) throws(Failure) -> [(token: Token, offset: Int)] {
      var tokens: [(token: Token, offset: Int)] = []
      var i = 0
      var nextArgument = 0
      func argument(at offset: Int) throws(Failure) -> Int {
        guard nextArgument < argumentCount else {
          throw Failure(message: "more format specifiers than arguments (\(argumentCount))", offset: offset)
        }
        nextArgument += 1
        return nextArgument - 1
      }
      while i < chars.count {
        let c = chars[i]
        let start = i
        if c.isWhitespace {
          i += 1
          continue
        }
        if c == "%" {
          var j = i + 1
          while j < chars.count, "lhqzjt".contains(chars[j]) { j += 1 }
          guard j < chars.count else { throw Failure(message: "a '%' at the end", offset: i) }
          let spec = chars[j]
          i = j + 1
          switch spec {
          case "K": tokens.append((.key(try argument(at: start)), start))
          case "@", "d", "i", "u", "f", "g", "e", "D", "U", "x", "X", "o", "c", "C", "S":
            tokens.append((.argument(try argument(at: start)), start))
          case "%": throw Failure(message: "'%%' is not a value", offset: start)
          default: throw Failure(message: "unknown format specifier '%\(spec)'", offset: start)
          }
          continue
        }
        if c == "'" || c == "\"" {
          var text = ""
          i += 1
          while i < chars.count, chars[i] != c {
            if chars[i] == "\\", i + 1 < chars.count {
              i += 1
              let escapes: [Character: Character] = ["n": "\n", "t": "\t", "r": "\r", "0": "\0"]
              text.append(escapes[chars[i]] ?? chars[i])
            } else {
              text.append(chars[i])
            }
            i += 1
          }
          guard i < chars.count else { throw Failure(message: "a string without its closing quote", offset: start) }
          i += 1
          tokens.append((.string(text), start))
          continue
        }
        let digitNext = i + 1 < chars.count && chars[i + 1].isNumber
        if c.isNumber || ((c == "-" || c == ".") && digitNext)
          || (c == "-" && i + 2 < chars.count && chars[i + 1] == "." && chars[i + 2].isNumber)
        {
          var j = i + 1
          while j < chars.count, chars[j].isNumber || chars[j] == "." || chars[j] == "e" || chars[j] == "E"
            || ((chars[j] == "-" || chars[j] == "+") && (chars[j - 1] == "e" || chars[j - 1] == "E"))
          {
            j += 1
          }
          guard let value = Double(String(chars[i..<j])) else {
            throw Failure(message: "'\(String(chars[i..<j]))' is not a number", offset: i)
          }
          i = j
          tokens.append((.number(value), start))
          continue
        }
        if c.isLetter || c == "_" {
          var j = i + 1
          while j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" { j += 1 }
          tokens.append((.word(String(chars[i..<j])), start))
          i = j
          continue
        }
        if c == "$" { throw Failure(message: "substitution variables ($name) are not supported", offset: i) }
        let two = i + 1 < chars.count ? String(chars[i...(i + 1)]) : ""
        if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
          tokens.append((.symbol(two), start))
          i += 2
          continue
        }
        guard "()[]{},.=<>!".contains(c) else {
          throw Failure(message: "unexpected '\(c)'", offset: i)
        }
        tokens.append((.symbol(String(c)), start))
        i += 1
      }
      tokens.append((.end, chars.count))
      return tokens
    }

    var token: Token { tokens[index].token }
    var offset: Int { tokens[index].offset }

    func keyword(_ word: String) -> Bool {
      if case .word(let w) = token { return w.uppercased() == word }
      return false
    }

    mutating func take(_ symbols: String...) -> Bool {
      for s in symbols {
        if token == .symbol(s) || keyword(s) {
          index += 1
          return true
        }
      }
      return false
    }

    func fail(_ message: String) -> Failure { Failure(message: message, offset: offset) }

    // MARK: Grammar

    /// predicate := or-expression, to the end.
    mutating func predicate() throws(Failure) -> SampleFilter {
      let filter = try disjunction()
      guard token == .end else { throw fail("unexpected text after the predicate") }
      return filter
    }

    mutating func disjunction() throws(Failure) -> SampleFilter {
      var parts = [try conjunction()]
      while take("OR", "||") { parts.append(try conjunction()) }
      return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func conjunction() throws(Failure) -> SampleFilter {
      var parts = [try negation()]
      while take("AND", "&&") { parts.append(try negation()) }
      return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func negation() throws(Failure) -> SampleFilter {
      if take("NOT", "!") {
        try deeper()
        defer { depth -= 1 }
        return .not(try negation())
      }
      return try primary()
    }

    /// One level deeper, or a failure past ``maxDepth``.
    mutating func deeper() throws(Failure) {
      depth += 1
      if depth > Self.maxDepth { throw fail("the predicate nests deeper than \(Self.maxDepth) levels") }
    }

    mutating func primary() throws(Failure) -> SampleFilter {
      if take("(") {
        try deeper()
        defer { depth -= 1 }
        let inner = try disjunction()
        guard take(")") else { throw fail("expected ')'") }
        return inner
      }
      if take("TRUEPREDICATE") { return .constant(true) }
      if take("FALSEPREDICATE") { return .constant(false) }
      return try comparison()
    }

    /// An operand: a key path (its components) or a value.
    enum Operand {
      case path([String], offset: Int)
      case value(Value, offset: Int)
    }

    static let literals: Set<String> = ["YES", "NO", "TRUE", "FALSE", "NIL", "NULL"]

    mutating func operand() throws(Failure) -> Operand {
      let at = offset
      let isPath: Bool =
        switch token {
        case .word(let w): !Self.literals.contains(w.uppercased())
        case .key: true
        default: false
        }
      switch isPath {
      case true:
        var components: [String] = []
        repeat {
          switch token {
          case .word(let w): components.append(w)
          case .key(let i): components.append(try keyArgument(i))
          default: throw fail("expected a key after '.'")
          }
          index += 1
        } while take(".")
        return .path(components, offset: at)
      case false:
        return .value(try value(), offset: at)
      }
    }

    /// `%K`'s argument: a string naming a key path (a component, or a whole path such as "metadata.key").
    func keyArgument(_ i: Int) throws(Failure) -> String {
      switch arguments[i] {
      case let s as String: return s
      case let s as NSString: return String(describing: s)
      default: throw fail("the argument of %K must be a string, not \(type(of: arguments[i]))")
      }
    }

    mutating func value() throws(Failure) -> Value {
      let current = token
      switch current {
      case .number(let n):
        index += 1
        return .number(n)
      case .string(let s):
        index += 1
        return .string(s)
      case .argument(let i):
        index += 1
        return Self.value(of: arguments[i])
      case .word(let w):
        index += 1
        switch w.uppercased() {
        case "YES", "TRUE": return .bool(true)
        case "NO", "FALSE": return .bool(false)
        case "NIL", "NULL": return .null
        default: throw Failure(message: "expected a value, found '\(w)'", offset: tokens[index - 1].offset)
        }
      case .symbol("{"):
        index += 1
        var items: [Value] = []
        if !take("}") {
          repeat { items.append(try value()) } while take(",")
          guard take("}") else { throw fail("expected '}'") }
        }
        return .list(items)
      default:
        throw fail("expected a key path or a value")
      }
    }

    /// An argument as a value.
    static func value(of any: Any) -> Value {
      switch any {
      case let v as Bool: return .bool(v)
      case let v as Int: return .number(Double(v))
      case let v as Int64: return .number(Double(v))
      case let v as Int32: return .number(Double(v))
      case let v as UInt: return .number(Double(v))
      case let v as Double: return .number(v)
      case let v as Float: return .number(Double(v))
      case let v as String: return .string(v)
      case let v as Date: return .date(v)
      case let v as NSDate: return .date(Date(timeIntervalSinceReferenceDate: v.timeIntervalSinceReferenceDate))
      case let v as UUID: return .uuid(v)
      case let v as NSUUID: return .uuid(UUID(uuidString: v.uuidString)!)
      case let v as HKQuantity: return .quantity(v)
      case let v as HKSource: return .source(v.bundleIdentifier)
      case let v as HKSourceRevision: return .source(v.source.bundleIdentifier)
      case let v as NSNumber:
        return String(cString: v.objCType) == "c" ? .bool(v.boolValue) : .number(v.doubleValue)
      case let v as NSString: return .string(String(describing: v))
      case let v as [Any]: return .list(v.map(value(of:)))
      case let v as Set<UUID>: return .list(v.map { .uuid($0) })
      case let v as Set<String>: return .list(v.sorted().map { .string($0) })
      case let v as Set<HKSource>: return .list(v.map { .source($0.bundleIdentifier) })
      case let v as NSArray: return .list(v.map(value(of:)))
      case let v as NSSet: return .list(v.allObjects.map(value(of:)))
      case Optional<Any>.none: return .null
      default: return .other(String(describing: type(of: any)))
      }
    }

    /// comparison := operand operator operand | operand BETWEEN {low, high}
    mutating func comparison() throws(Failure) -> SampleFilter {
      let left = try operand()
      let opOffset = offset
      if take("BETWEEN") {
        let rangeOffset = offset
        guard case .list(let bounds) = try value(), bounds.count == 2 else {
          throw Failure(message: "BETWEEN takes {low, high}", offset: rangeOffset)
        }
        guard case .path(let path, let at) = left else {
          throw Failure(message: "BETWEEN needs a key path on its left", offset: opOffset)
        }
        return .and([
          try Self.condition(path, at: at, .greaterThanOrEqualTo, bounds[0]),
          try Self.condition(path, at: at, .lessThanOrEqualTo, bounds[1]),
        ])
      }
      let op: String
      switch token {
      case .symbol(let s) where ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>"].contains(s): op = s
      case .word(let w) where w.uppercased() == "IN": op = "IN"
      case .word(let w):
        throw fail("the operator '\(w)' is not supported (==, !=, <, <=, >, >=, IN, BETWEEN are)")
      default: throw fail("expected a comparison operator")
      }
      index += 1
      let right = try operand()
      switch (left, right) {
      case (.path(let path, let at), .value(let value, _)):
        if op == "IN" { return try Self.membership(path, at: at, value) }
        return try Self.condition(path, at: at, Self.comparison(op), value)
      case (.value(let value, _), .path(let path, let at)):
        guard op != "IN" else { throw Failure(message: "IN needs a key path on its left", offset: opOffset) }
        return try Self.condition(path, at: at, Self.comparison(op).mirrored, value)
      default:
        throw Failure(message: "a comparison needs a key path on one side and a value on the other", offset: opOffset)
      }
    }

    static func comparison(_ op: String) -> ComparisonOperator {
      switch op {
      case "<": .lessThan
      case "<=", "=<": .lessThanOrEqualTo
      case ">": .greaterThan
      case ">=", "=>": .greaterThanOrEqualTo
      case "!=", "<>": .notEqualTo
      default: .equalTo
      }
    }

    /// What a key path names.
    enum Subject {
      case date(SampleDateField)
      case uuid
      case source
      case bundleIdentifier
      case metadata(String)
      case quantity
      case categoryValue
      case device(DeviceProperty)
      case correlation
    }

    static func subject(_ path: [String], at offset: Int) throws(Failure) -> Subject {
      // A %K argument may be a whole path ("metadata.HKWasUserEntered"); a metadata key after the root is kept
      // whole, dots and all (`metadata.%K` with "com.example.key").
      var components = path
      if let first = components.first, first.contains(".") {
        components = first.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
          + components.dropFirst()
      }
      let root = components[0]
      let rest = Array(components.dropFirst())
      switch (root, rest.count) {
      case ("startDate", 0): return .date(.start)
      case ("endDate", 0): return .date(.end)
      case ("UUID", 0), ("uuid", 0): return .uuid
      case ("source", 0), ("sourceRevision", 0): return .source
      case ("sourceRevision", 1) where rest[0] == "source": return .source
      case ("source", 1) where rest[0] == "bundleIdentifier": return .bundleIdentifier
      case ("sourceRevision", 2) where rest == ["source", "bundleIdentifier"]: return .bundleIdentifier
      case ("metadata", 1...) where !rest.joined().isEmpty: return .metadata(rest.joined(separator: "."))
      case ("quantity", 0): return .quantity
      case ("value", 0): return .categoryValue
      case ("device", 1):
        let named = DeviceProperty.allCases.first { $0.name == rest[0] }
        guard let property = named ?? DeviceProperty(key: rest[0]) else {
          throw Failure(message: "unknown device property '\(rest[0])'", offset: offset)
        }
        return .device(property)
      case ("correlation", 0): return .correlation
      default:
        throw Failure(
          message: "the key path '\(components.joined(separator: "."))' is not one HealthKitSim reads (startDate, "
            + "endDate, UUID, source, sourceRevision, metadata.<key>, quantity, value, device.<property>, correlation)",
          offset: offset)
      }
    }

    /// `path op value`.
    static func condition(_ path: [String], at offset: Int, _ op: ComparisonOperator, _ value: Value) throws(Failure)
      -> SampleFilter
    {
      func equality(_ filter: SampleFilter) throws(Failure) -> SampleFilter {
        switch op {
        case .equalTo: return filter
        case .notEqualTo: return .not(filter)
        default: throw Failure(message: "\(path.joined(separator: ".")) compares only with == and !=", offset: offset)
        }
      }
      func mismatch(_ expected: String) -> Failure {
        Failure(
          message: "\(path.joined(separator: ".")) compares with \(expected), not \(describe(value))", offset: offset)
      }
      switch try subject(path, at: offset) {
      case .date(let field):
        guard case .date(let date) = value else { throw mismatch("a date") }
        let range: DateRange? =
          switch (field, op) {
          case (.start, .greaterThanOrEqualTo): DateRange(start: date, end: nil, options: .strictStartDate)
          case (.start, .lessThan): DateRange(start: nil, end: date, options: [])
          case (.end, .greaterThanOrEqualTo): DateRange(start: date, end: nil, options: [])
          case (.end, .lessThanOrEqualTo): DateRange(start: nil, end: date, options: .strictEndDate)
          default: nil
          }
        return range.map { .dates($0) } ?? .date(field, op, date.timeIntervalSinceReferenceDate)
      case .uuid:
        guard case .uuid(let uuid) = value else { throw mismatch("a UUID") }
        return try equality(.uuids([uuid]))
      case .source:
        guard case .source(let bundle) = value else { throw mismatch("an HKSource") }
        return try equality(.sources([bundle]))
      case .bundleIdentifier:
        guard case .string(let bundle) = value else { throw mismatch("a string") }
        return try equality(.sources([bundle]))
      case .metadata(let key):
        if case .null = value {
          return try equality(.not(.metadata(key: key, .exists)))
        }
        guard let converted = metadataValue(value) else { throw mismatch("a number, string, date or HKQuantity") }
        return .metadata(key: key, .compare(op, converted))
      case .quantity:
        guard case .quantity(let quantity) = value, quantity.unit.parsed != nil else { throw mismatch("an HKQuantity") }
        return .quantity(op, quantity.value, unit: quantity.unit.unitString)
      case .categoryValue:
        // An NSNumber 0 or 1 reads as a Boolean on Linux (`as? Bool` takes it): a category value compares as 0 or 1.
        switch value {
        case .number(let number): return .value(op, number)
        case .bool(let flag): return .value(op, flag ? 1 : 0)
        default: throw mismatch("a number")
        }
      case .device(let property):
        guard case .string(let text) = value else { throw mismatch("a string") }
        return try equality(.device(property, [text]))
      case .correlation:
        guard case .null = value else { throw mismatch("nil") }
        return try equality(.notInCorrelation)
      }
    }

    /// `path IN collection`.
    static func membership(_ path: [String], at offset: Int, _ value: Value) throws(Failure) -> SampleFilter {
      guard case .list(let items) = value else {
        throw Failure(
          message: "IN takes a collection ({…}, an array or a set), not \(describe(value))", offset: offset)
      }
      switch try subject(path, at: offset) {
      case .uuid:
        var uuids = Set<UUID>()
        for item in items {
          guard case .uuid(let u) = item else { throw Failure(message: "IN of UUID takes UUIDs", offset: offset) }
          uuids.insert(u)
        }
        return .uuids(uuids)
      case .source, .bundleIdentifier:
        var bundles = Set<String>()
        for item in items {
          switch item {
          case .source(let b), .string(let b): bundles.insert(b)
          default: throw Failure(message: "IN of sources takes HKSources or bundle identifiers", offset: offset)
          }
        }
        return .sources(bundles)
      case .metadata(let key):
        var values: [MetadataValue] = []
        for item in items {
          guard let v = metadataValue(item) else {
            throw Failure(message: "IN of metadata takes numbers, strings, dates or quantities", offset: offset)
          }
          values.append(v)
        }
        return .metadata(key: key, .oneOf(values))
      case .device(let property):
        var texts = Set<String>()
        for item in items {
          guard case .string(let t) = item else {
            throw Failure(message: "IN of a device property takes strings", offset: offset)
          }
          texts.insert(t)
        }
        return .device(property, texts)
      default:
        return .or(try items.map { item throws(Failure) in try condition(path, at: offset, .equalTo, item) })
      }
    }

    static func metadataValue(_ value: Value) -> MetadataValue? {
      switch value {
      case .bool(let b): .bool(b)
      case .number(let n): n == n.rounded() && abs(n) < 9e15 ? .int(Int64(n)) : .double(n)
      case .string(let s): .string(s)
      case .date(let d): .date(d)
      case .quantity(let q): .quantity(q.value, unit: q.unit.unitString)
      default: nil
      }
    }

    static func describe(_ value: Value) -> String {
      switch value {
      case .null: "nil"
      case .bool: "a Boolean"
      case .number: "a number"
      case .string: "a string"
      case .date: "a date"
      case .uuid: "a UUID"
      case .quantity: "an HKQuantity"
      case .source: "an HKSource"
      case .list: "a collection"
      case .other(let type): "a \(type)"
      }
    }
  }
}

extension ComparisonOperator {
  /// The operator with its operands swapped (`5 < x` is `x > 5`).
  var mirrored: ComparisonOperator {
    switch self {
    case .lessThan: .greaterThan
    case .lessThanOrEqualTo: .greaterThanOrEqualTo
    case .greaterThan: .lessThan
    case .greaterThanOrEqualTo: .lessThanOrEqualTo
    case .equalTo, .notEqualTo: self
    }
  }
}
