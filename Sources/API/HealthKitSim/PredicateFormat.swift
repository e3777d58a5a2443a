import Foundation
import HealthEngine
import HealthModel

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

  /// A token of a format, with the offset (in characters) where it starts kept beside it.
  enum Token: Equatable {
    case word(String)  // an identifier or keyword
    case key(Int)  // %K: the index of its argument, a key path (component)
    case argument(Int)  // %@ or a number specifier: the argument's index
    case number(Double)
    case string(String)
    case symbol(String)  // ( ) { } , . and the operators
    case end
  }

  /// A recursive-descent parser over a format's tokens: the grammar is here, tokenizing in
  /// PredicateFormatTokenizer.swift, what key paths and values mean in PredicateFormatConditions.swift and
  /// PredicateFormatValues.swift.
  struct Parser {
    let arguments: [Any]
    var tokens: [(token: Token, offset: Int)] = []
    var index = 0
    /// How deep parentheses and NOTs nest now (at most ``maxDepth``, so a hostile format cannot overflow the stack).
    var depth = 0
    static let maxDepth = 64
    /// ``PredicateFormat``'s types under the names the parser's extensions (in their own files) use.
    typealias Failure = PredicateFormat.Failure
    typealias Value = PredicateFormat.Value
    typealias Token = PredicateFormat.Token

    /// Tokenizes `format`, whose `%` specifiers take `arguments` in order.
    init(_ format: String, arguments: [Any]) throws(Failure) {
      self.arguments = arguments
      tokens = try Self.tokenize(Array(format), argumentCount: arguments.count)
    }

    /// The current token.
    var token: Token { tokens[index].token }
    /// Where the current token starts.
    var offset: Int { tokens[index].offset }

    /// Whether the current token is the word `word` in any case.
    func keyword(_ word: String) -> Bool {
      if case .word(let w) = token { return w.uppercased() == word }
      return false
    }

    /// Consumes the current token when it is one of `symbols` (a symbol, or a keyword in any case).
    mutating func take(_ symbols: String...) -> Bool {
      for s in symbols {
        if token == .symbol(s) || keyword(s) {
          index += 1
          return true
        }
      }
      return false
    }

    /// A failure at the current token.
    func fail(_ message: String) -> Failure { Failure(message: message, offset: offset) }

    // MARK: Grammar

    /// predicate := or-expression, to the end.
    mutating func predicate() throws(Failure) -> SampleFilter {
      let filter = try disjunction()
      guard token == .end else { throw fail("unexpected text after the predicate") }
      return filter
    }

    /// or-expression := and-expression (OR and-expression)*
    mutating func disjunction() throws(Failure) -> SampleFilter {
      var parts = [try conjunction()]
      while take("OR", "||") { parts.append(try conjunction()) }
      return parts.count == 1 ? parts[0] : .or(parts)
    }

    /// and-expression := not-expression (AND not-expression)*
    mutating func conjunction() throws(Failure) -> SampleFilter {
      var parts = [try negation()]
      while take("AND", "&&") { parts.append(try negation()) }
      return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// not-expression := NOT not-expression | primary
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

    /// primary := ( or-expression ) | TRUEPREDICATE | FALSEPREDICATE | comparison
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

    /// The words that are values, not key paths.
    static let literals: Set<String> = ["YES", "NO", "TRUE", "FALSE", "NIL", "NULL"]

    /// operand := key-path | value
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

    /// value := number | string | argument | YES | NO | NIL | { value, … }
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
  }
}
