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
  /// The text with its `<name>` placeholders replaced, when it had any (reports show it; diagnostics show ``text``).
  package var shown: String? = nil

  /// The non-blank lines of a file's text (`rawLines` from ``SourceText/lines(_:file:)``), tokenized; a line with
  /// an unterminated quote becomes a diagnostic instead.
  package static func tokenize(_ rawLines: [String], file: String, diagnostics: inout [Diagnostic]) -> [SourceLine] {
    var lines: [SourceLine] = []
    for (offset, raw) in rawLines.enumerated() {
      let rawText = raw.replacingTabs()
      let indent = rawText.prefix { $0 == " " }.count
      do {
        let tokens = try Lexer.tokenize(rawText)
        if !tokens.isEmpty {
          lines.append(SourceLine(number: offset + 1, text: rawText, indent: indent, tokens: tokens))
        }
      } catch {
        diagnostics.append(
          Diagnostic(
            location: SourceLocation(file: file, line: offset + 1, column: error.column), error: .unterminatedString,
            sourceLine: rawText))
      }
    }
    return lines
  }
}

/// Splits scenario text into lines of tokens. Comments start with `#` outside quotes and run to the end of the line.
package enum Lexer {
  /// Tokenizes one line.
  /// - Throws: the column of an unterminated quote.
  package static func tokenize(_ text: String) throws(LexError) -> [Token] {
    // Nearly every line is ASCII, where a character is a byte: read its bytes instead of splitting it into
    // characters (the suite's parse spent most of its time there). Anything else takes the general path below.
    var ascii = text
    switch ascii.withUTF8({ bytes in bytes.allSatisfy { $0 < 0x80 } ? tokenizeASCII(bytes) : nil }) {
    case .success(let tokens)?: return tokens
    case .failure(let error)?: throw error
    case nil: return try tokenizeCharacters(text)
    }
  }

  /// ``tokenize(_:)`` character by character (columns count characters): any line.
  static func tokenizeCharacters(_ text: String) throws(LexError) -> [Token] {
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

  /// ``tokenize(_:)`` of an ASCII line, byte by byte; the same tokens and columns as the general path.
  static func tokenizeASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<[Token], LexError> {
    let (space, tab, comma, quote, hash, colon): (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
      0x20, 0x09, 0x2C, 0x22, 0x23, 0x3A
    )
    func text(_ range: Range<Int>) -> String {
      String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
    var tokens: [Token] = []
    var i = 0
    while i < bytes.count {
      let c = bytes[i]
      if c == hash { break }
      if c == space || c == tab || c == comma {
        i += 1
        continue
      }
      let start = i
      if c == quote {
        i += 1
        while i < bytes.count, bytes[i] != quote { i += 1 }
        guard i < bytes.count else { return .failure(LexError(column: start + 1)) }
        i += 1
        tokens.append(Token(text: text(start + 1..<i - 1), column: start + 1, length: i - start, quoted: true))
        continue
      }
      while i < bytes.count, bytes[i] != space, bytes[i] != tab, bytes[i] != comma, bytes[i] != quote { i += 1 }
      let length = i - start
      // A trailing ':' (but not in times such as 08:30) is its own token.
      if length > 1, bytes[i - 1] == colon {
        tokens.append(Token(text: text(start..<i - 1), column: start + 1, length: length - 1, quoted: false))
        tokens.append(Token(text: ":", column: start + length, length: 1, quoted: false))
      } else {
        tokens.append(Token(text: text(start..<i), column: start + 1, length: length, quoted: false))
      }
    }
    return .success(tokens)
  }

  /// An unterminated quoted string at `column`.
  package struct LexError: Error, Sendable {
    /// Where the quote opened.
    package var column: Int
  }
}

/// A scenario file's bytes checked and split into lines, before any line is tokenized.
///
/// Files are UTF-8. A leading byte order mark (EF BB BF) is skipped, so columns count from the first character
/// after it. Lines end with LF or CRLF (the CR is dropped); a CR not followed by LF (a classic Mac OS line end)
/// and bytes that are not UTF-8 are errors at their line and column: the file is never read with replacement
/// characters, nor as one long line.
package enum SourceText {
  /// The UTF-8 byte order mark, accepted (and skipped) at the start of a file.
  package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// The lines of `bytes` (read from `file`) without their line ends; a trailing line end leaves an empty last
  /// line. Fails with the first encoding error: its line, column and the byte offset in the file.
  package static func lines(_ bytes: [UInt8], file: String) -> Result<[String], Diagnostic> {
    let start = bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
    var lines: [String] = []
    var lineStart = start
    var offset = start
    var carriageReturn: Int?
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes[start...].makeIterator()

    // The error at `spot`, on the line read so far; the line is shown up to its end, anything after `spot`
    // that is not UTF-8 shown as U+FFFD.
    func failure(_ error: ScenarioError, at spot: Int) -> Result<[String], Diagnostic> {
      var end = spot
      while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
      let before = String(decoding: bytes[lineStart..<spot], as: UTF8.self).replacingTabs()
      let shown = String(decoding: bytes[lineStart..<end], as: UTF8.self).replacingTabs()
      let location = SourceLocation(file: file, line: lines.count + 1, column: before.count + 1)
      return .failure(Diagnostic(location: location, error: error, sourceLine: shown))
    }

    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        let scalar = Unicode.UTF8.decode(encoded)
        if let cr = carriageReturn {
          guard scalar == "\n" else { return failure(.loneCarriageReturn, at: cr) }
          lines.append(String(decoding: bytes[lineStart..<cr], as: UTF8.self))
          carriageReturn = nil
          lineStart = offset + 1
        } else if scalar == "\n" {
          lines.append(String(decoding: bytes[lineStart..<offset], as: UTF8.self))
          lineStart = offset + 1
        } else if scalar == "\r" {
          carriageReturn = offset
        }
        offset += encoded.count
      case .error:
        if let cr = carriageReturn { return failure(.loneCarriageReturn, at: cr) }
        return failure(.invalidUTF8(byteOffset: offset, byte: bytes[offset]), at: offset)
      case .emptyInput:
        if let cr = carriageReturn { return failure(.loneCarriageReturn, at: cr) }
        lines.append(String(decoding: bytes[lineStart...], as: UTF8.self))
        return .success(lines)
      }
    }
  }
}

extension String {
  /// The text with each tab replaced by two spaces, as columns count them.
  func replacingTabs() -> String { split(separator: "\t", omittingEmptySubsequences: false).joined(separator: "  ") }
}
