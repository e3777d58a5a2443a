import Foundation
import HealthEngine
import HealthModel

/// The format's tokens: words, `%K` and value specifiers (each taking the next argument), numbers, quoted strings
/// and operator symbols, each with its offset.
extension PredicateFormat.Parser {
  /// The tokens of `chars`, ending with `.end`; a specifier beyond `argumentCount` arguments is a failure.
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
        while j < chars.count,
          chars[j].isNumber || chars[j] == "." || chars[j] == "e" || chars[j] == "E"
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
}
