/// A streaming XML tokenizer over bytes, purpose-built for Apple Health exports: it hands out start and end tags with
/// their attributes, and checks well-formedness as it goes — names, quoting, entities (`&lt; &gt; &amp; &quot;
/// &apos; &#NN; &#xNN;`), matching end tags, one root element — while it skips the XML declaration, processing
/// instructions, comments, CDATA sections, text between elements and the document type declaration with its
/// internal subset (the export's DTD).
///
/// It reads through a buffer that holds the current markup, so memory stays flat whatever the file's size (a tag
/// longer than ``maxTokenLength`` is refused). Attribute values are views into that buffer, valid until the next
/// call to ``next()``; entities are decoded only when a value is asked for. Every error carries the line, the column
/// (in bytes) and the byte offset where it is.
///
/// A noncopyable struct (it owns its buffer): the reader that drives it holds it as a stored property, so neither
/// pays for the dynamic exclusivity checks a class's properties need on every access.
package struct XMLScanner: ~Copyable {
  /// What ``next()`` found.
  package enum Token: Equatable, Sendable {
    /// A start tag (also reported for an empty-element tag `<x/>`, with ``isSelfClosing`` set; no end tag follows).
    case startTag
    /// An end tag; it matched the element it closes.
    case endTag
    /// The end of the document (the root element was closed and only whitespace, comments or processing
    /// instructions followed).
    case endOfDocument
  }

  /// The longest single piece of markup accepted (a tag, a comment, the DTD).
  package static let maxTokenLength = 16 << 20

  private struct Attribute {
    var nameStart: Int
    var nameEnd: Int
    var valueStart: Int
    var valueEnd: Int
    /// The value holds `&` or a literal tab, CR or LF (normalized to a space), so it must be decoded.
    var needsDecoding: Bool
  }

  private struct OpenElement {
    var name: [UInt8]
    var line: Int
    var column: Int
  }

  private var input: any ByteInput
  private var storage: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// Where decoded attribute values are written (never longer than their raw form).
  private var scratch: UnsafeMutablePointer<UInt8>
  private var scratchCapacity = 256
  /// Valid bytes in `storage`.
  private var count = 0
  /// The next unread byte in `storage`.
  private var position = 0
  /// The absolute offset of `storage[0]`.
  private var base = 0
  private var atEndOfInput = false
  private var line = 1
  /// The absolute offset where the current line starts.
  private var lineStart = 0
  /// The file named in locations.
  package let file: String

  private var nameStart = 0
  private var nameEnd = 0
  private var attributes: [Attribute] = []
  private var open: [OpenElement] = []
  /// The name last opened at each depth: an element opened with the same name (most are) shares its bytes instead
  /// of allocating a copy.
  private var recentNames: [[UInt8]] = []
  private var sawRoot = false
  private var rootClosed = false
  private var started = false
  /// The last token's kind.
  package private(set) var token: Token = .endOfDocument
  /// Whether the last start tag was an empty-element tag (`<x/>`).
  package private(set) var isSelfClosing = false
  /// The last token's line.
  package private(set) var tokenLine = 1
  /// The last token's column (bytes, from 1).
  package private(set) var tokenColumn = 1
  /// The last token's absolute byte offset.
  package private(set) var tokenOffset = 0

  /// Scans `input`, naming `file` in locations; reads `bufferSize` bytes at a time.
  package init(_ input: any ByteInput, file: String, bufferSize: Int = 1 << 20) {
    self.input = input
    self.file = file
    capacity = max(64, bufferSize)
    storage = .allocate(capacity: capacity)
    scratch = .allocate(capacity: 256)
  }

  deinit {
    storage.deallocate()
    scratch.deallocate()
  }

  /// Open elements: 0 outside the root, 1 directly inside it.
  package var depth: Int { open.count }
  /// Bytes consumed so far (the absolute offset of the next unread byte).
  package var bytesRead: Int { base + position }

  /// The last token's location.
  package var tokenLocation: ExportLocation {
    ExportLocation(file: file, line: tokenLine, column: tokenColumn, offset: tokenOffset)
  }

  // MARK: - Reading the current token

  /// The last tag's element name.
  package var name: String {
    String(decoding: UnsafeBufferPointer(start: storage + nameStart, count: nameEnd - nameStart), as: UTF8.self)
  }

  /// Whether the last tag's element name is `expected`.
  package func nameIs(_ expected: StaticString) -> Bool { equal(nameStart, nameEnd, expected) }

  /// The name bytes of the last tag (valid until the next call to ``next()``).
  package var nameBytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: storage + nameStart, count: nameEnd - nameStart)
  }

  /// How many attributes the last start tag has.
  package var attributeCount: Int { attributes.count }

  /// The index of the attribute called `name`, if the last start tag has it.
  package func attribute(_ name: StaticString) -> Int? {
    for (index, attribute) in attributes.enumerated() where equal(attribute.nameStart, attribute.nameEnd, name) {
      return index
    }
    return nil
  }

  /// The name bytes of attribute `index` (valid until the next call to ``next()``).
  package func attributeNameBytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    let a = attributes[index]
    return UnsafeBufferPointer(start: storage + a.nameStart, count: a.nameEnd - a.nameStart)
  }

  /// The bytes of attribute `index` as they are in the file (entities not replaced): equal raw values decode to
  /// equal values, so caches key on these without decoding. Valid until the next call to ``next()``.
  package func rawValue(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    let a = attributes[index]
    return UnsafeBufferPointer(start: storage + a.valueStart, count: a.valueEnd - a.valueStart)
  }

  /// The name of attribute `index`.
  package func attributeName(_ index: Int) -> String {
    let a = attributes[index]
    return String(
      decoding: UnsafeBufferPointer(start: storage + a.nameStart, count: a.nameEnd - a.nameStart), as: UTF8.self)
  }

  /// The decoded bytes of attribute `index` (entities replaced, literal whitespace normalized to spaces as XML
  /// requires): a view into the buffer when nothing needed decoding, else into a scratch area. Valid until the next
  /// call to ``value(_:)`` or ``next()``.
  package mutating func value(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    let a = attributes[index]
    let raw = UnsafeBufferPointer(start: storage + a.valueStart, count: a.valueEnd - a.valueStart)
    if !a.needsDecoding { return raw }
    if raw.count > scratchCapacity {
      scratch.deallocate()
      scratchCapacity = raw.count * 2
      scratch = .allocate(capacity: scratchCapacity)
    }
    return UnsafeBufferPointer(start: scratch, count: decode(raw, into: scratch))
  }

  /// The decoded value of attribute `index` as a string.
  /// - Throws: ``ExportError`` (`malformedXML`) when the value is not valid UTF-8.
  package mutating func string(_ index: Int) throws(ExportError) -> String {
    guard let text = String(validating: value(index), as: UTF8.self) else {
      throw ExportError(.malformedXML, at: valueLocation(index), "attribute value is not valid UTF-8")
    }
    return text
  }

  /// Where attribute `index`'s value starts (the byte after its opening quote).
  package func valueLocation(_ index: Int) -> ExportLocation { location(ofIndex: attributes[index].valueStart) }

  // MARK: - Scanning

  /// Reads the next start or end tag (text, comments, processing instructions, CDATA and the DTD are consumed on
  /// the way).
  /// - Throws: ``ExportError`` (`malformedXML`) at the first thing that is not well-formed XML, or whatever the
  ///   input throws.
  package mutating func next() throws(ExportError) -> Token {
    while true {
      if position >= count {
        if try !refill(keeping: position) { return try finishDocument() }
        continue
      }
      if !started {
        // A UTF-8 byte order mark before anything else is skipped.
        while count < 3, try refill(keeping: 0) {}
        started = true
        if count >= 3, storage[0] == 0xEF, storage[1] == 0xBB, storage[2] == 0xBF {
          position = 3
          lineStart = 3
        }
        continue
      }
      if storage[position] != UInt8(ascii: "<") {
        try scanText()
        continue
      }
      switch try scanMarkup() {
      case .needMore:
        if try !refill(keeping: position) {
          throw error(at: position, "unexpected end of file inside markup that starts here")
        }
      case .skipped: continue
      case .token(let kind):
        token = kind
        return kind
      }
    }
  }

  private enum MarkupResult {
    case needMore
    case skipped
    case token(Token)
  }

  /// Consumes text up to the next `<` (or the end of what is buffered), counting lines. Only whitespace may stand
  /// outside the root element; text inside elements is ignored (exports have none).
  private mutating func scanText() throws(ExportError) {
    let storage = self.storage
    let count = self.count
    var i = position
    let outside = open.isEmpty
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

  private mutating func scanMarkup() throws(ExportError) -> MarkupResult {
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

  private mutating func scanStartTag(_ p: Int) throws(ExportError) -> MarkupResult {
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
  private static func find(_ byte: UInt8, in storage: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int {
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

  private mutating func scanEndTag(_ p: Int) throws(ExportError) -> MarkupResult {
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

  /// Checks every `&` in a value is one of the five predefined entities or a character reference to a character
  /// XML allows.
  private func checkEntities(_ start: Int, _ end: Int) throws(ExportError) {
    let storage = self.storage
    var i = start
    while i < end {
      i = Self.find(UInt8(ascii: "&"), in: storage, from: i, to: end)
      guard i < end else { return }
      // The common ones first: &lt; &gt; (device descriptions hold them on every record), &amp; &quot; &apos;.
      if i + 3 < end, storage[i + 3] == UInt8(ascii: ";"), storage[i + 2] == UInt8(ascii: "t"),
        storage[i + 1] == UInt8(ascii: "l") || storage[i + 1] == UInt8(ascii: "g")
      {
        i += 4
        continue
      }
      guard let semicolon = (i + 1..<min(end, i + 12)).first(where: { storage[$0] == UInt8(ascii: ";") }) else {
        throw error(at: i, "'&' must start an entity such as '&amp;' (none ends with ';' here)")
      }
      let body = UnsafeBufferPointer(start: storage + i + 1, count: semicolon - i - 1)
      guard Self.entityValue(body) != nil else {
        throw error(
          at: i,
          "unknown entity '&\(String(decoding: body, as: UTF8.self));': expected &lt; &gt; &amp; &quot; &apos; "
            + "&#NN; or &#xNN;")
      }
      i = semicolon + 1
    }
  }

  /// The Unicode scalar an entity body (between `&` and `;`) stands for, or nil when it is not a predefined entity
  /// or a valid character reference.
  static func entityValue(_ body: UnsafeBufferPointer<UInt8>) -> UInt32? {
    func named(_ s: StaticString) -> Bool {
      s.utf8CodeUnitCount == body.count
        && s.withUTF8Buffer { memcmpBytes($0.baseAddress!, body.baseAddress!, body.count) }
    }
    if named("lt") { return 0x3C }
    if named("gt") { return 0x3E }
    if named("amp") { return 0x26 }
    if named("quot") { return 0x22 }
    if named("apos") { return 0x27 }
    guard body.count >= 2, body[0] == UInt8(ascii: "#") else { return nil }
    var value: UInt32 = 0
    let hex = body[1] == UInt8(ascii: "x")
    let digits = body[(hex ? 2 : 1)...]
    guard !digits.isEmpty, digits.count <= 8 else { return nil }
    for d in digits {
      let v: UInt32
      switch d {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(d - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: v = UInt32(d - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: v = UInt32(d - UInt8(ascii: "A") + 10)
      default: return nil
      }
      value = value * (hex ? 16 : 10) + v
    }
    // XML's Char production: tab, LF, CR, and the ranges below (no surrogates, no U+FFFE/U+FFFF).
    let allowed =
      value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
      || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
    return allowed ? value : nil
  }

  /// Replaces entities (already checked) and normalizes literal tab, CR and LF to spaces, writing into `out`
  /// (which has room for `raw.count` bytes: decoding never lengthens a value); returns the decoded length.
  private func decode(_ raw: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
    var n = 0
    var i = 0
    while i < raw.count {
      let b = raw[i]
      if b == 0x09 || b == 0x0A || b == 0x0D {
        out[n] = 0x20
        n += 1
        i += 1
        continue
      }
      guard b == UInt8(ascii: "&"), let semicolon = raw[(i + 1)...].firstIndex(of: UInt8(ascii: ";")) else {
        out[n] = b
        n += 1
        i += 1
        continue
      }
      let body = UnsafeBufferPointer(rebasing: raw[(i + 1)..<semicolon])
      if let scalar = Self.entityValue(body).flatMap(Unicode.Scalar.init) {
        for byte in String(Character(scalar)).utf8 {
          out[n] = byte
          n += 1
        }
      }
      i = semicolon + 1
    }
    return n
  }

  private mutating func finishDocument() throws(ExportError) -> Token {
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

  // MARK: - Buffer

  /// Moves the bytes from `keep` on to the front, grows the buffer when they fill it, and reads until it is full or
  /// the input ends. False when nothing was left to read.
  private mutating func refill(keeping keep: Int) throws(ExportError) -> Bool {
    if atEndOfInput { return false }
    if keep > 0 {
      let remaining = count - keep
      if remaining > 0 { storage.update(from: storage + keep, count: remaining) }
      base += keep
      count = remaining
      position -= keep
      nameStart -= keep
      nameEnd -= keep
      for i in attributes.indices {
        attributes[i].nameStart -= keep
        attributes[i].nameEnd -= keep
        attributes[i].valueStart -= keep
        attributes[i].valueEnd -= keep
      }
    }
    if count == capacity {
      guard capacity < Self.maxTokenLength else {
        throw error(at: position, "markup longer than \(Self.maxTokenLength) bytes")
      }
      let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
      bigger.update(from: storage, count: count)
      storage.deallocate()
      storage = bigger
      capacity *= 2
    }
    // The buffer is filled (or the input ends): a token is rescanned once per refill, so refills must not be as
    // small as the input's reads (a 16 MiB tag read 4 KiB at a time was rescanned 4,096 times).
    var total = 0
    while count < capacity {
      let n = try input.read(into: UnsafeMutableRawBufferPointer(start: storage + count, count: capacity - count))
      if n == 0 {
        atEndOfInput = true
        break
      }
      count += n
      total += n
    }
    return total > 0
  }

  /// Records the location of a token starting at `p` (every line before it is counted).
  private mutating func markToken(_ p: Int) {
    tokenOffset = base + p
    tokenLine = line
    tokenColumn = base + p - lineStart + 1
  }

  /// Moves past a token `[from, to)`, counting its lines.
  private mutating func consume(upTo to: Int, from: Int) {
    let storage = self.storage
    var i = from
    var lines = 0
    var lastNewline = -1
    while i < to {
      if storage[i] == 0x0A {
        lines += 1
        lastNewline = i
      }
      i += 1
    }
    if lines > 0 {
      line += lines
      lineStart = base + lastNewline + 1
    }
    position = to
  }

  /// The location of buffer index `index` (lines before the current position are counted; those between it and
  /// `index` are counted here).
  private func location(ofIndex index: Int) -> ExportLocation {
    var l = line
    var start = lineStart
    var i = position
    while i < min(index, count) {
      if storage[i] == 0x0A {
        l += 1
        start = base + i + 1
      }
      i += 1
    }
    return ExportLocation(file: file, line: l, column: base + index - start + 1, offset: base + index)
  }

  private func error(at index: Int, _ message: String) -> ExportError {
    ExportError(.malformedXML, at: location(ofIndex: index), message)
  }

  private func find(_ terminator: StaticString, from start: Int) -> Int? {
    let n = terminator.utf8CodeUnitCount
    let first = terminator.utf8Start.pointee
    var i = start
    while i + n <= count {
      if storage[i] == first, equal(i, i + n, terminator) { return i }
      i += 1
    }
    return nil
  }

  private func equal(_ start: Int, _ end: Int, _ expected: StaticString) -> Bool {
    expected.utf8CodeUnitCount == end - start
      && expected.withUTF8Buffer { memcmpBytes($0.baseAddress!, storage + start, end - start) }
  }

  private func memoryEqual(_ a: Int, _ b: Int, _ n: Int) -> Bool { memcmpBytes(storage + a, storage + b, n) }

  private func text(_ start: Int, _ end: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: storage + start, count: end - start), as: UTF8.self)
  }

  @inline(__always) private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

  // Name characters as bitmaps over the byte values 0-63 and 64-127 (every byte from 0x80 on, UTF-8, is allowed):
  // letters, `_` and `:` start a name; digits, `-` and `.` may follow.
  private static let nameStartLow: UInt64 = 1 << 58  // ':'
  private static let nameStartHigh: UInt64 = 0x03FF_FFFF << 33 | 1 << 31 | 0x07FF_FFFE  // a-z, '_', A-Z
  private static let nameCharLow: UInt64 = nameStartLow | 0x03FF << 48 | 1 << 46 | 1 << 45  // 0-9, '.', '-'

  @inline(__always) private func isNameStart(_ b: UInt8) -> Bool {
    b >= 0x80 || (b < 64 ? Self.nameStartLow >> UInt64(b) : Self.nameStartHigh >> UInt64(b - 64)) & 1 == 1
  }

  @inline(__always) private func isNameChar(_ b: UInt8) -> Bool {
    b >= 0x80 || (b < 64 ? Self.nameCharLow >> UInt64(b) : Self.nameStartHigh >> UInt64(b - 64)) & 1 == 1
  }
}

/// Whether `n` bytes at `a` and `b` are equal.
@inline(__always) func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
  var i = 0
  while i < n {
    if a[i] != b[i] { return false }
    i += 1
  }
  return true
}
