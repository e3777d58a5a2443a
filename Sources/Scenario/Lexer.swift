/// One word of a scenario line and where it starts.
package struct Token: Hashable, Sendable, CustomStringConvertible {
  /// The word (quotes removed for quoted strings).
  package var text: String
  /// 1-based column of its first character.
  package var column: Int
  /// Its length in the source (quotes included).
  package var length: Int
  /// Whether it was a quoted string.
  package var quoted: Bool

  /// The word.
  package var description: String { text }
  /// The word lower-cased, for keyword matching.
  package var keyword: String { quoted ? "" : text.lowercased() }
}

/// One logical line of a scenario file: its tokens, its indentation and whether it ends with `:` (opening a block).
package struct SourceLine: Sendable {
  /// 1-based line number.
  package var number: Int
  /// The raw text.
  package var text: String
  /// Leading spaces (tabs count as two).
  package var indent: Int
  /// Words, split on whitespace and commas; `word:` yields `word` then `:`.
  package var tokens: [Token]
}

/// Splits scenario text into lines of tokens. Comments start with `#` outside quotes and run to the end of the line.
package enum Lexer {
  /// Tokenizes one line.
  /// - Throws: the column of an unterminated quote.
  package static func tokenize(_ text: String) throws(LexError) -> [Token] {
    var tokens: [Token] = []
    let chars = Array(text)
    var i = 0
    while i < chars.count {
      let c = chars[i]
      if c == "#" { break }
      if c == " " || c == "\t" || c == "," {
        i += 1
        continue
      }
      if c == "\"" {
        let start = i
        i += 1
        var value = ""
        while i < chars.count, chars[i] != "\"" {
          value.append(chars[i])
          i += 1
        }
        guard i < chars.count else { throw LexError(column: start + 1) }
        i += 1
        tokens.append(Token(text: value, column: start + 1, length: i - start, quoted: true))
        continue
      }
      let start = i
      var word = ""
      while i < chars.count, !" \t,\"".contains(chars[i]), !(chars[i] == "#" && word.isEmpty) {
        word.append(chars[i])
        i += 1
      }
      // A trailing ':' (but not in times such as 08:30) is its own token.
      if word.count > 1, word.hasSuffix(":") {
        tokens.append(Token(text: String(word.dropLast()), column: start + 1, length: word.count - 1, quoted: false))
        tokens.append(Token(text: ":", column: start + word.count, length: 1, quoted: false))
      } else {
        tokens.append(Token(text: word, column: start + 1, length: word.count, quoted: false))
      }
    }
    return tokens
  }

  /// An unterminated quoted string at `column`.
  package struct LexError: Error, Sendable {
    /// Where the quote opened.
    package var column: Int
  }
}
