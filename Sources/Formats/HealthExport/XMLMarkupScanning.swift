/// What lies between tags: text (only whitespace outside the root), processing instructions, comments, CDATA
/// sections and the document type declaration, each skipped; and the end of the document.
extension XMLScanner {
  /// Consumes text up to the next `<` (or the end of what is buffered), counting lines. Only whitespace may stand
  /// outside the root element; text inside elements is ignored (exports have none) unless ``captureText`` is set.
  mutating func scanText() throws(ExportError) {
    let storage = self.storage
    let count = self.count
    var i = position
    let outside = open.isEmpty
    let from = position
    defer { if captureText && !outside { keepText(from: from, to: i) } }
    while i < count {
      let b = storage[i]
      if b == UInt8(ascii: "<") { break }
      if b == 0x0A {
        line += 1
        lineStart = base + i + 1
      } else if outside, b != 0x20, b != 0x09, b != 0x0D {
        throw error(at: i, rootClosed ? "text after the root element" : "text before the root element")
      }
      i += 1
    }
    position = i
  }

  /// Scans the markup at `position` (a `<`): a processing instruction, comment, CDATA section or DTD is skipped;
  /// a start or end tag is a token.
  mutating func scanMarkup() throws(ExportError) -> MarkupResult {
    let p = position
    guard p + 1 < count else { return .needMore }
    switch storage[p + 1] {
    case UInt8(ascii: "?"):
      guard let end = find("?>", from: p + 2) else { return .needMore }
      if p + 5 <= count, equal(p + 2, p + 5, "xml"), base + p > 3, end > p + 5,
        isSpace(storage[p + 5])
      {
        throw error(at: p, "the XML declaration must be the first thing in the file")
      }
      consume(upTo: end + 2, from: p)
      return .skipped
    case UInt8(ascii: "!"):
      guard p + 4 <= count else { return .needMore }
      if storage[p + 2] == UInt8(ascii: "-") {
        guard storage[p + 3] == UInt8(ascii: "-") else { throw error(at: p, "malformed comment: expected '<!--'") }
        guard let end = find("-->", from: p + 4) else { return .needMore }
        consume(upTo: end + 3, from: p)
        return .skipped
      }
      guard p + 9 <= count else { return .needMore }
      if equal(p, p + 9, "<![CDATA[") {
        guard !open.isEmpty else { throw error(at: p, "a CDATA section outside the root element") }
        guard let end = find("]]>", from: p + 9) else { return .needMore }
        consume(upTo: end + 3, from: p)
        return .skipped
      }
      if equal(p, p + 9, "<!DOCTYPE") {
        guard !sawRoot else { throw error(at: p, "a document type declaration after the root element started") }
        guard let end = try scanDoctype(from: p + 9) else { return .needMore }
        consume(upTo: end, from: p)
        return .skipped
      }
      throw error(at: p, "unknown markup: expected '<!--', '<![CDATA[' or '<!DOCTYPE'")
    case UInt8(ascii: "/"):
      return try scanEndTag(p)
    default:
      return try scanStartTag(p)
    }
  }

  /// Skips a document type declaration from just after `<!DOCTYPE`: the name and external identifier (quoted
  /// strings may hold `>`), then the internal subset in `[…]` (markup declarations, comments and quoted strings may
  /// hold `]` or `>`). Returns the index after the closing `>`, or nil when more input is needed.
  private func scanDoctype(from start: Int) throws(ExportError) -> Int? {
    var i = start
    var inSubset = false
    while i < count {
      let b = storage[i]
      if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
        var j = i + 1
        while j < count, storage[j] != b { j += 1 }
        guard j < count else { return nil }
        i = j + 1
        continue
      }
      if inSubset {
        if b == UInt8(ascii: "<"), i + 4 <= count, equal(i, i + 4, "<!--") {
          guard let end = find("-->", from: i + 4) else { return nil }
          i = end + 3
          continue
        }
        if b == UInt8(ascii: "<"), i + 4 > count { return nil }
        if b == UInt8(ascii: "]") { inSubset = false }
      } else {
        if b == UInt8(ascii: "[") { inSubset = true }
        if b == UInt8(ascii: ">") { return i + 1 }
      }
      i += 1
    }
    return nil
  }

  /// The end of the input: the document must have had a root element, and it must be closed.
  mutating func finishDocument() throws(ExportError) -> Token {
    if let unclosed = open.last {
      throw ExportError(
        .malformedXML, at: location(ofIndex: count),
        "unexpected end of file: '<\(String(decoding: unclosed.name, as: UTF8.self))>' opened at line "
          + "\(unclosed.line), column \(unclosed.column) is not closed")
    }
    guard sawRoot else {
      throw ExportError(.malformedXML, at: location(ofIndex: count), "the file has no root element")
    }
    token = .endOfDocument
    return .endOfDocument
  }
}
