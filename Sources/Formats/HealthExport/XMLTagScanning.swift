/// Start and end tags: names, attributes and the open-element stack, with the eight-bytes-at-a-time searches an
/// attribute value is scanned with.
extension XMLScanner {
  /// Scans the start tag (or empty-element tag) at `p`: its name, its attributes (checked: quoted, unique, with
  /// valid entities, at most ``maxAttributes``), and the open-element stack (at most ``maxDepth`` deep).
  mutating func scanStartTag(_ p: Int) throws(ExportError) -> MarkupResult {
    let storage = self.storage
    let count = self.count
    var i = p + 1
    guard i < count else { return .needMore }
    guard isNameStart(storage[i]) else { throw error(at: i, "expected an element name after '<'") }
    let start = i
    while i < count, isNameChar(storage[i]) { i += 1 }
    guard i < count else { return .needMore }
    let end = i
    // The attribute list is taken out of `self` while it is filled (one exclusivity check per tag, not per byte).
    var attrs = attributes
    attributes = []
    defer { attributes = attrs }
    attrs.removeAll(keepingCapacity: true)
    var selfClosing = false
    var newlines = 0
    var lastNewline = 0
    @inline(__always) func skipSpace() {
      while i < count {
        let c = storage[i]
        guard c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D else { return }
        if c == 0x0A {
          newlines += 1
          lastNewline = i
        }
        i += 1
      }
    }
    while true {
      let before = i
      skipSpace()
      let sawSpace = i > before
      guard i < count else { return .needMore }
      let b = storage[i]
      if b == UInt8(ascii: ">") {
        i += 1
        break
      }
      if b == UInt8(ascii: "/") {
        guard i + 1 < count else { return .needMore }
        guard storage[i + 1] == UInt8(ascii: ">") else { throw error(at: i, "expected '>' after '/' in a tag") }
        selfClosing = true
        i += 2
        break
      }
      guard sawSpace else { throw error(at: i, "expected whitespace before an attribute") }
      guard isNameStart(b) else { throw error(at: i, "expected an attribute name, '>' or '/>'") }
      let attributeStart = i
      while i < count, isNameChar(storage[i]) { i += 1 }
      let attributeEnd = i
      skipSpace()
      guard i < count else { return .needMore }
      guard storage[i] == UInt8(ascii: "=") else { throw error(at: i, "expected '=' after an attribute name") }
      i += 1
      skipSpace()
      guard i < count else { return .needMore }
      let quote = storage[i]
      guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
        throw error(at: i, "expected a quoted attribute value")
      }
      i += 1
      let valueStart = i
      i = Self.find(quote, in: storage, from: i, to: count)
      guard i < count else { return .needMore }
      let valueEnd = i
      i += 1
      // `<`, `&` or a control character: rare but for device descriptions (`&lt;&lt;HKDevice…`), so searched for
      // eight bytes at a time rather than classified byte by byte.
      let needsDecoding = Self.hasSpecialBytes(storage, from: valueStart, to: valueEnd)
      if needsDecoding {
        let lt = Self.find(UInt8(ascii: "<"), in: storage, from: valueStart, to: valueEnd)
        if lt < valueEnd { throw error(at: lt, "'<' is not allowed in an attribute value") }
        var k = Self.find(0x0A, in: storage, from: valueStart, to: valueEnd)
        while k < valueEnd {
          newlines += 1
          lastNewline = k
          k = Self.find(0x0A, in: storage, from: k + 1, to: valueEnd)
        }
      }
      let length = attributeEnd - attributeStart
      for other in attrs where other.nameEnd - other.nameStart == length {
        if memoryEqual(other.nameStart, attributeStart, length) {
          throw error(at: attributeStart, "the attribute appears twice in this tag")
        }
      }
      if needsDecoding { try checkEntities(valueStart, valueEnd) }
      guard attrs.count < Self.maxAttributes else {
        throw error(at: attributeStart, "more than \(Self.maxAttributes) attributes in one tag")
      }
      attrs.append(
        Attribute(
          nameStart: attributeStart, nameEnd: attributeEnd, valueStart: valueStart, valueEnd: valueEnd,
          needsDecoding: needsDecoding))
    }
    if rootClosed { throw error(at: p, "a second root element: an XML document has exactly one") }
    markToken(p)
    nameStart = start
    nameEnd = end
    isSelfClosing = selfClosing
    sawRoot = true
    if !selfClosing {
      let level = open.count
      guard level < Self.maxDepth else {
        throw error(at: p, "elements nested more than \(Self.maxDepth) deep (an Apple Health export nests 4)")
      }
      let length = end - start
      let name: [UInt8]
      if level < recentNames.count, recentNames[level].count == length,
        recentNames[level].withUnsafeBufferPointer({ memcmpBytes($0.baseAddress!, storage + start, length) })
      {
        name = recentNames[level]
      } else {
        name = Array(UnsafeBufferPointer(start: storage + start, count: length))
        if level < recentNames.count { recentNames[level] = name } else if level < 64 { recentNames.append(name) }
      }
      open.append(OpenElement(name: name, line: tokenLine, column: tokenColumn))
    } else if open.isEmpty {
      rootClosed = true
    }
    if newlines > 0 {
      line += newlines
      lineStart = base + lastNewline + 1
    }
    position = i
    return .token(.startTag)
  }

  /// The index of the first `byte` in `storage[from..<to]`, or `to`: eight bytes at a time.
  @inline(__always)
  static func find(_ byte: UInt8, in storage: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int {
    var i = from
    let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
    let raw = UnsafeRawPointer(storage)
    while i + 8 <= to {
      let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern
      let zero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
      if zero != 0 { return i + zero.trailingZeroBitCount / 8 }
      i += 8
    }
    while i < to, storage[i] != byte { i += 1 }
    return i
  }

  /// Whether `storage[from..<to]` holds `<`, `&` or a byte below 0x20 (tab, LF, CR …): eight bytes at a time.
  @inline(__always)
  private static func hasSpecialBytes(_ storage: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Bool {
    var i = from
    let raw = UnsafeRawPointer(storage)
    while i + 8 <= to {
      let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      let lt = word ^ 0x3C3C_3C3C_3C3C_3C3C
      let amp = word ^ 0x2626_2626_2626_2626
      let hits =
        ((lt &- 0x0101_0101_0101_0101) & ~lt) | ((amp &- 0x0101_0101_0101_0101) & ~amp)
        | ((word &- 0x2020_2020_2020_2020) & ~word)
      if hits & 0x8080_8080_8080_8080 != 0 { return true }
      i += 8
    }
    while i < to {
      let c = storage[i]
      if c == UInt8(ascii: "<") || c == UInt8(ascii: "&") || c < 0x20 { return true }
      i += 1
    }
    return false
  }

  /// Scans the end tag at `p`, which must close the innermost open element.
  mutating func scanEndTag(_ p: Int) throws(ExportError) -> MarkupResult {
    var i = p + 2
    guard i < count else { return .needMore }
    guard isNameStart(storage[i]) else { throw error(at: i, "expected an element name after '</'") }
    let start = i
    while i < count, isNameChar(storage[i]) { i += 1 }
    let end = i
    while i < count, isSpace(storage[i]) { i += 1 }
    guard i < count else { return .needMore }
    guard storage[i] == UInt8(ascii: ">") else { throw error(at: i, "expected '>' to end the end tag") }
    guard let top = open.last else {
      throw error(at: p, "end tag '</\(text(start, end))>' without a matching start tag")
    }
    guard top.name.count == end - start,
      top.name.withUnsafeBufferPointer({ expected in
        memcmpBytes(expected.baseAddress!, storage + start, end - start)
      })
    else {
      throw error(
        at: p,
        "end tag '</\(text(start, end))>' does not match '<\(String(decoding: top.name, as: UTF8.self))>' "
          + "opened at line \(top.line), column \(top.column)")
    }
    open.removeLast()
    if open.isEmpty { rootClosed = true }
    markToken(p)
    nameStart = start
    nameEnd = end
    isSelfClosing = false
    attributes.removeAll(keepingCapacity: true)
    consume(upTo: i + 1, from: p)
    return .token(.endTag)
  }
}
