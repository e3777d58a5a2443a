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

  /// An attribute of the last start tag: its name and value as index ranges into the buffer.
  struct Attribute {
    var nameStart: Int
    var nameEnd: Int
    var valueStart: Int
    var valueEnd: Int
    /// The value holds `&` or a literal tab, CR or LF (normalized to a space), so it must be decoded.
    var needsDecoding: Bool
  }

  /// An element whose end tag has not come yet, with where it started (for the error an unmatched end names).
  struct OpenElement {
    var name: [UInt8]
    var line: Int
    var column: Int
  }

  var input: any ByteInput
  var storage: UnsafeMutablePointer<UInt8>
  var capacity: Int
  /// Where decoded attribute values are written (never longer than their raw form).
  private var scratch: UnsafeMutablePointer<UInt8>
  private var scratchCapacity = 256
  /// Valid bytes in `storage`.
  var count = 0
  /// The next unread byte in `storage`.
  var position = 0
  /// The absolute offset of `storage[0]`.
  var base = 0
  var atEndOfInput = false
  var line = 1
  /// The absolute offset where the current line starts.
  var lineStart = 0
  /// The file named in locations.
  package let file: String

  var nameStart = 0
  var nameEnd = 0
  var attributes: [Attribute] = []
  var open: [OpenElement] = []
  /// The name last opened at each depth: an element opened with the same name (most are) shares its bytes instead
  /// of allocating a copy.
  var recentNames: [[UInt8]] = []
  var sawRoot = false
  var rootClosed = false
  private var started = false
  /// The last token's kind.
  package internal(set) var token: Token = .endOfDocument
  /// Whether the last start tag was an empty-element tag (`<x/>`).
  package internal(set) var isSelfClosing = false
  /// The last token's line.
  package internal(set) var tokenLine = 1
  /// The last token's column (bytes, from 1).
  package internal(set) var tokenColumn = 1
  /// The last token's absolute byte offset.
  package internal(set) var tokenOffset = 0
  /// Whether text inside elements is kept in ``text`` (GPX holds its values as text; `export.xml` holds none).
  package var captureText = false
  /// The text met inside elements since ``clearText()`` (entity references are not decoded), at most
  /// ``textLimit`` bytes; ``textOverflowed`` says whether more came.
  package internal(set) var text: [UInt8] = []
  /// Whether more than ``textLimit`` bytes of text came since ``clearText()``.
  package internal(set) var textOverflowed = false
  /// The most text bytes kept (values are numbers and dates).
  package static let maxTextLength = 256
  /// The most text bytes kept by this scanner (``maxTextLength`` unless its reader needs longer text).
  package var textLimit = XMLScanner.maxTextLength

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

  /// Forgets the text kept so far.
  package mutating func clearText() {
    text.removeAll(keepingCapacity: true)
    textOverflowed = false
  }

  /// Keeps the buffered bytes `from..<to` as text, within ``textLimit``.
  mutating func keepText(from: Int, to: Int) {
    guard to > from else { return }
    let room = textLimit - text.count
    if to - from > room { textOverflowed = true }
    let end = from + min(room, to - from)
    if end > from { text.append(contentsOf: UnsafeBufferPointer(start: storage + from, count: end - from)) }
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

  /// What scanning one piece of markup found: not enough bytes buffered yet, something skipped, or a token.
  enum MarkupResult {
    case needMore
    case skipped
    case token(Token)
  }
}
