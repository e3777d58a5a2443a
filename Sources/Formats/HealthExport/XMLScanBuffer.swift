/// The scanner's buffer: refilling it (the only reads of the input), locating buffer indices as line, column and
/// offset, and the byte comparisons and character classes the scanning files share.
extension XMLScanner {
  /// Moves the bytes from `keep` on to the front, grows the buffer when they fill it, and reads until it is full or
  /// the input ends. False when nothing was left to read.
  mutating func refill(keeping keep: Int) throws(ExportError) -> Bool {
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
    // A refill fills the buffer (or reaches the input's end), however small the input's reads: a token is rescanned
    // once per refill, so a long tag costs a rescan per doubling of the buffer, not per read
    // (HostileInputTests.aHugeTagReadInSmallPiecesIsRefusedWithoutRescanningPerRead).
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
  mutating func markToken(_ p: Int) {
    tokenOffset = base + p
    tokenLine = line
    tokenColumn = base + p - lineStart + 1
  }

  /// Moves past a token `[from, to)`, counting its lines.
  mutating func consume(upTo to: Int, from: Int) {
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
  func location(ofIndex index: Int) -> ExportLocation {
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

  /// A `malformedXML` error at buffer index `index`.
  func error(at index: Int, _ message: String) -> ExportError {
    ExportError(.malformedXML, at: location(ofIndex: index), message)
  }

  /// The index of the first `terminator` at or after `start` in what is buffered, or nil.
  func find(_ terminator: StaticString, from start: Int) -> Int? {
    let n = terminator.utf8CodeUnitCount
    let first = terminator.utf8Start.pointee
    var i = start
    while i + n <= count {
      if storage[i] == first, equal(i, i + n, terminator) { return i }
      i += 1
    }
    return nil
  }

  /// Whether the buffered bytes `[start, end)` are `expected`.
  func equal(_ start: Int, _ end: Int, _ expected: StaticString) -> Bool {
    expected.utf8CodeUnitCount == end - start
      && expected.withUTF8Buffer { memcmpBytes($0.baseAddress!, storage + start, end - start) }
  }

  /// Whether the `n` buffered bytes at `a` and at `b` are equal.
  func memoryEqual(_ a: Int, _ b: Int, _ n: Int) -> Bool { memcmpBytes(storage + a, storage + b, n) }

  /// The buffered bytes `[start, end)` as a string (for messages).
  func text(_ start: Int, _ end: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: storage + start, count: end - start), as: UTF8.self)
  }

  /// Whether `b` is XML whitespace (space, LF, tab, CR).
  @inline(__always) func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

  // Name characters as bitmaps over the byte values 0-63 and 64-127 (every byte from 0x80 on, UTF-8, is allowed):
  // letters, `_` and `:` start a name; digits, `-` and `.` may follow.
  private static let nameStartLow: UInt64 = 1 << 58  // ':'
  private static let nameStartHigh: UInt64 = 0x03FF_FFFF << 33 | 1 << 31 | 0x07FF_FFFE  // a-z, '_', A-Z
  private static let nameCharLow: UInt64 = nameStartLow | 0x03FF << 48 | 1 << 46 | 1 << 45  // 0-9, '.', '-'

  /// Whether `b` may start a name.
  @inline(__always) func isNameStart(_ b: UInt8) -> Bool {
    b >= 0x80 || (b < 64 ? Self.nameStartLow >> UInt64(b) : Self.nameStartHigh >> UInt64(b - 64)) & 1 == 1
  }

  /// Whether `b` may follow a name's first character.
  @inline(__always) func isNameChar(_ b: UInt8) -> Bool {
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
