import HealthEngine
import HealthModel

/// How a row of an ordered dispatch table is chosen: by the words the line continues with (taken when they match),
/// or by a look at what follows (nothing taken; the row's parser reads it).
enum RuleSelector: Sendable {
  /// Any one of these phrases, compared case-insensitively, first to last.
  case words([[String]])
  /// A test of the cursor that takes nothing.
  case when(@Sendable (Cursor) -> Bool)
}

/// One row of a dispatch table: what selects it and the function that reads the rest of the line. Tables are
/// tried first row to last, so a longer phrase goes before a shorter one it starts with (`allows all` before
/// `allows`).
struct Rule<Context, Result>: Sendable {
  /// Reads the rest of the line, given what the table's caller knows (`Context`).
  typealias Parse = @Sendable (inout ParseState, inout Cursor, Context) throws(Diagnostic) -> Result
  /// What selects the row.
  let selector: RuleSelector
  /// The parser of the rest of the line.
  let parse: Parse

  /// A row chosen by any one of `phrases`.
  init(_ phrases: [String]..., parse: @escaping Parse) {
    selector = .words(phrases)
    self.parse = parse
  }

  /// A row chosen by `test`, which takes nothing.
  init(when test: @escaping @Sendable (Cursor) -> Bool, parse: @escaping Parse) {
    selector = .when(test)
    self.parse = parse
  }
}

extension Rule {
  /// The first word of the row's first phrase (nil for a row chosen by a test).
  var firstWord: String? {
    guard case .words(let phrases) = selector else { return nil }
    return phrases.first?.first
  }

  /// The row's first phrase as a message names it (`last call`; nil for a row chosen by a test).
  var firstPhrase: String? {
    guard case .words(let phrases) = selector else { return nil }
    return phrases.first?.joined(separator: " ")
  }
}

extension Cursor {
  /// The parser of the first row of `rules` the line continues with, its phrase taken; nil, with nothing taken,
  /// when no row matches.
  mutating func take<Context, Result>(firstOf rules: [Rule<Context, Result>]) -> Rule<Context, Result>.Parse? {
    for rule in rules {
      switch rule.selector {
      case .words(let phrases):
        for phrase in phrases where take(words: phrase) { return rule.parse }
      case .when(let test):
        if test(self) { return rule.parse }
      }
    }
    return nil
  }

  /// Whether the next token is a whole number and the one after it is one of `words`.
  func integer(before words: Set<String>) -> Bool {
    guard let t = peek, Int(t.text) != nil, line.tokens.count > index + 1 else { return false }
    return words.contains(line.tokens[index + 1].keyword)
  }

  /// The count of `sees <n> <noun> …`: `known` when the rule read `no <noun>` already, else the integer, then the
  /// `noun` tokens skipped.
  /// - Throws: a diagnostic for a missing or negative count.
  mutating func seesCount(known: Int?, noun words: Int) throws(Diagnostic) -> Int {
    if let known { return known }
    let count = try integer()
    guard count >= 0 else { throw error(.invalidNumber(String(count)), at: line.tokens[index - 1]) }
    index += words
    return count
  }

  /// Whether the token after the next one is `word`.
  func second(is word: String) -> Bool { line.tokens.count > index + 1 && line.tokens[index + 1].keyword == word }
}

/// `'a', 'b' or 'c'`: the words as a message lists the choices.
func choices(_ words: [String]) -> String {
  let quoted = words.map { "'\($0)'" }
  guard quoted.count > 1 else { return quoted.joined() }
  return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
}
