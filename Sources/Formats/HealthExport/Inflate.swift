/// A DEFLATE decoder (RFC 1951) reading compressed bytes from a ``ByteInput`` and producing the original bytes as a
/// ``ByteInput``: stored, fixed-Huffman and dynamic-Huffman blocks, a 32 KiB window, table-driven Huffman decoding.
/// Memory is a few hundred KiB whatever the size of the stream.
///
/// Damaged streams are errors, never crashes: a reserved block type, a stored block whose length check fails,
/// over-subscribed or unusable code lengths, a code that decodes to nothing, a distance reaching before the start
/// of the output, a stream that ends before its final block. Errors name the compressed byte offset (from where
/// the decoder started reading), relative to `baseOffset`.
package final class Inflater: ByteInput {
  private var source: any ByteInput
  private let file: String
  private let baseOffset: Int

  // Compressed input.
  private var input: UnsafeMutablePointer<UInt8>
  private let inputCapacity = 1 << 16
  private var inputCount = 0
  private var inputPosition = 0
  /// Compressed bytes consumed before `input[0]`.
  private var inputBase = 0
  private var sourceEnded = false
  private var bits: UInt64 = 0
  private var bitCount = 0

  // Output window: history (up to 32 KiB) followed by bytes not yet handed out.
  private var window: UnsafeMutablePointer<UInt8>
  private static let windowCapacity = 1 << 18
  private static let history = 1 << 15
  private var windowEnd = 0
  private var windowRead = 0
  /// Bytes produced in total.
  package private(set) var totalOut = 0

  private enum State {
    case header
    case stored(remaining: Int)
    case huffman
    case done
  }
  private var state = State.header
  private var lastBlock = false

  // Decoding tables: entries are `symbol << 4 | length` (length 0: no code), indexed by the next `bits` input bits.
  private var literalTable: UnsafeMutablePointer<UInt16>
  private var literalBits = 0
  private var distanceTable: UnsafeMutablePointer<UInt16>
  private var distanceBits = 0
  private static let maxTableBits = 15

  /// Decodes the DEFLATE stream `source` yields; errors name offsets from `baseOffset` in `file`.
  package init(_ source: any ByteInput, file: String, baseOffset: Int = 0) {
    self.source = source
    self.file = file
    self.baseOffset = baseOffset
    input = .allocate(capacity: inputCapacity)
    window = .allocate(capacity: Self.windowCapacity)
    literalTable = .allocate(capacity: 1 << Self.maxTableBits)
    distanceTable = .allocate(capacity: 1 << Self.maxTableBits)
  }

  deinit {
    input.deallocate()
    window.deallocate()
    literalTable.deallocate()
    distanceTable.deallocate()
  }

  /// Whether the final block has been decoded and every byte handed out.
  package var finished: Bool {
    if case .done = state { return windowRead == windowEnd }
    return false
  }

  /// Compressed bytes read from the source but not used by the stream (what follows it, such as a zip data
  /// descriptor). Meaningful once ``finished``.
  package var unusedInput: [UInt8] {
    var bytes: [UInt8] = []
    // Whole bytes still in the bit buffer come first.
    // The partial byte the stream ended in is padding; whole bytes after it are the next structure's.
    var b = bits >> UInt64(bitCount % 8)
    var n = bitCount - bitCount % 8
    while n > 0 {
      bytes.append(UInt8(truncatingIfNeeded: b))
      b >>= 8
      n -= 8
    }
    bytes += Array(UnsafeBufferPointer(start: input + inputPosition, count: inputCount - inputPosition))
    return bytes
  }

  /// Hands out decoded bytes, decoding more as needed; 0 once the stream has ended.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    guard buffer.count > 0 else { return 0 }
    while windowRead == windowEnd {
      if case .done = state { return 0 }
      try decodeSome()
    }
    let n = min(buffer.count, windowEnd - windowRead)
    buffer.baseAddress!.copyMemory(from: window + windowRead, byteCount: n)
    windowRead += n
    return n
  }

  // MARK: - Bits

  private func error(_ message: String) -> ExportError {
    // The byte holding the next unread bit.
    let consumed = max(0, inputBase + inputPosition - (bitCount + 7) / 8)
    return ExportError(
      .zip, at: ExportLocation(file: file, line: 0, column: 0, offset: baseOffset + consumed),
      "damaged compressed data: \(message)")
  }

  /// Loads input bytes until at least `needed` bits are buffered (at most 56 at once); false at the end of input.
  @inline(__always)
  private func ensure(_ needed: Int) throws(ExportError) -> Bool {
    while bitCount < needed {
      if inputPosition == inputCount {
        if sourceEnded { return false }
        inputBase += inputCount
        inputCount = try source.read(into: UnsafeMutableRawBufferPointer(start: input, count: inputCapacity))
        inputPosition = 0
        if inputCount == 0 {
          sourceEnded = true
          return false
        }
      }
      // Fast path: eight bytes at a time when they are there.
      while bitCount <= 56, inputPosition < inputCount {
        bits |= UInt64(input[inputPosition]) << UInt64(bitCount)
        inputPosition += 1
        bitCount += 8
      }
    }
    return true
  }

  @inline(__always)
  private func take(_ n: Int) throws(ExportError) -> Int {
    guard try ensure(n) else { throw error("the stream ends in the middle of a block") }
    let value = Int(bits & ((1 << UInt64(n)) - 1))
    bits >>= UInt64(n)
    bitCount -= n
    return value
  }

  // MARK: - Blocks

  /// Decodes until new output is available or the stream ends.
  private func decodeSome() throws(ExportError) {
    // Keep the last 32 KiB as history; make room for at least one full block step.
    if windowEnd > Self.windowCapacity - 2 * 258 - 65_536 {
      let keep = min(Self.history, windowEnd)
      (window).update(from: window + windowEnd - keep, count: keep)
      windowRead -= windowEnd - keep
      windowEnd = keep
    }
    switch state {
    case .done:
      return
    case .header:
      lastBlock = try take(1) == 1
      switch try take(2) {
      case 0:
        // Stored: skip to a byte boundary, then LEN and its complement.
        _ = try take(bitCount % 8)
        let length = try take(16)
        let complement = try take(16)
        guard length == ~complement & 0xFFFF else { throw error("a stored block's length check fails") }
        state = .stored(remaining: length)
      case 1:
        buildFixedTables()
        state = .huffman
      case 2:
        try readDynamicTables()
        state = .huffman
      default:
        throw error("block type 3 is reserved")
      }
    case .stored(let remaining):
      var left = remaining
      let room = Self.windowCapacity - windowEnd
      var produced = 0
      while left > 0 && produced < room {
        // Whole bytes still in the bit buffer first, then straight from the input.
        if bitCount >= 8 {
          window[windowEnd] = UInt8(truncatingIfNeeded: bits)
          bits >>= 8
          bitCount -= 8
          windowEnd += 1
          left -= 1
          produced += 1
          continue
        }
        if inputPosition == inputCount {
          guard try ensure(8) else { throw error("the stream ends inside a stored block") }
          continue
        }
        let n = min(left, room - produced, inputCount - inputPosition)
        (window + windowEnd).update(from: input + inputPosition, count: n)
        inputPosition += n
        windowEnd += n
        left -= n
        produced += n
      }
      totalOut += produced
      state = left == 0 ? (lastBlock ? .done : .header) : .stored(remaining: left)
    case .huffman:
      try decodeHuffman()
    }
  }

  private static let lengthBase: [Int] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
  ]
  private static let lengthExtra: [Int] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
  ]
  private static let distanceBase: [Int] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
  ]
  private static let distanceExtra: [Int] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
  ]

  /// Decodes symbols of the current Huffman block until the window is nearly full or the block ends.
  private func decodeHuffman() throws(ExportError) {
    let limit = Self.windowCapacity - 258
    let start = windowEnd
    var out = windowEnd
    defer {
      totalOut += out - start
      windowEnd = out
    }
    let lengthBase = Self.lengthBase
    let lengthExtra = Self.lengthExtra
    let distanceBase = Self.distanceBase
    let distanceExtra = Self.distanceExtra
    let literalMask = UInt64((1 << literalBits) - 1)
    let distanceMask = UInt64((1 << distanceBits) - 1)
    while out < limit {
      // Up to 15 bits of code, 5 of length extra, 15 of distance code and 13 of distance extra.
      if bitCount < 48 { _ = try ensure(48) }
      let entry = literalTable[Int(bits & literalMask)]
      let length = Int(entry & 15)
      guard length > 0, length <= bitCount else {
        throw error(length == 0 ? "a literal/length code that means nothing" : "the stream ends inside a block")
      }
      bits >>= UInt64(length)
      bitCount -= length
      let symbol = Int(entry >> 4)
      if symbol < 256 {
        window[out] = UInt8(symbol)
        out += 1
        continue
      }
      if symbol == 256 {
        state = lastBlock ? .done : .header
        return
      }
      let lengthIndex = symbol - 257
      guard lengthIndex < 29 else { throw error("literal/length symbol \(symbol) is reserved") }
      var matchLength = lengthBase[lengthIndex]
      let lengthBits = lengthExtra[lengthIndex]
      if lengthBits > 0 {
        guard bitCount >= lengthBits else { throw error("the stream ends inside a block") }
        matchLength += Int(bits & ((1 << UInt64(lengthBits)) - 1))
        bits >>= UInt64(lengthBits)
        bitCount -= lengthBits
      }
      if bitCount < 28 { _ = try ensure(28) }
      let distanceEntry = distanceTable[Int(bits & distanceMask)]
      let distanceLength = Int(distanceEntry & 15)
      guard distanceLength > 0, distanceLength <= bitCount else {
        throw error(distanceLength == 0 ? "a distance code that means nothing" : "the stream ends inside a block")
      }
      bits >>= UInt64(distanceLength)
      bitCount -= distanceLength
      let distanceSymbol = Int(distanceEntry >> 4)
      guard distanceSymbol < 30 else { throw error("distance symbol \(distanceSymbol) is reserved") }
      var distance = distanceBase[distanceSymbol]
      let extra = distanceExtra[distanceSymbol]
      if extra > 0 {
        guard bitCount >= extra else { throw error("the stream ends inside a block") }
        distance += Int(bits & ((1 << UInt64(extra)) - 1))
        bits >>= UInt64(extra)
        bitCount -= extra
      }
      guard distance <= totalOut + (out - start), distance <= out else {
        throw error("a distance of \(distance) bytes reaches before the start of the output")
      }
      var from = out - distance
      if distance >= matchLength {
        (window + out).update(from: window + from, count: matchLength)
        out += matchLength
      } else {
        for _ in 0..<matchLength {
          window[out] = window[from]
          out += 1
          from += 1
        }
      }
    }
  }

  // MARK: - Tables

  private func buildFixedTables() {
    var lengths = [UInt8](repeating: 8, count: 288)
    for i in 144..<256 { lengths[i] = 9 }
    for i in 256..<280 { lengths[i] = 7 }
    literalBits = (try? buildTable(lengths, into: literalTable, what: "fixed")) ?? 9
    distanceBits = (try? buildTable([UInt8](repeating: 5, count: 30), into: distanceTable, what: "fixed")) ?? 5
  }

  private func readDynamicTables() throws(ExportError) {
    let literalCount = try take(5) + 257
    let distanceCount = try take(5) + 1
    let codeLengthCount = try take(4) + 4
    guard literalCount <= 286, distanceCount <= 30 else {
      throw error("a dynamic block declares \(literalCount) literal/length and \(distanceCount) distance codes")
    }
    let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    var codeLengths = [UInt8](repeating: 0, count: 19)
    for i in 0..<codeLengthCount { codeLengths[order[i]] = UInt8(try take(3)) }
    let codeLengthBits = try buildTable(codeLengths, into: literalTable, what: "code length")
    var lengths = [UInt8](repeating: 0, count: literalCount + distanceCount)
    var i = 0
    while i < lengths.count {
      guard try ensure(codeLengthBits) || bitCount > 0 else { throw error("the stream ends inside a block header") }
      let entry = literalTable[Int(bits & UInt64((1 << codeLengthBits) - 1))]
      let length = Int(entry & 15)
      guard length > 0, length <= bitCount else { throw error("a code length code that means nothing") }
      bits >>= UInt64(length)
      bitCount -= length
      let symbol = Int(entry >> 4)
      switch symbol {
      case 0..<16:
        lengths[i] = UInt8(symbol)
        i += 1
      case 16:
        guard i > 0 else { throw error("a repeat of the previous code length with none before it") }
        let repeatCount = 3 + (try take(2))
        guard i + repeatCount <= lengths.count else { throw error("code lengths run past the declared count") }
        for _ in 0..<repeatCount {
          lengths[i] = lengths[i - 1]
          i += 1
        }
      default:
        let repeatCount = symbol == 17 ? 3 + (try take(3)) : 11 + (try take(7))
        guard i + repeatCount <= lengths.count else { throw error("code lengths run past the declared count") }
        i += repeatCount
      }
    }
    guard lengths[256] > 0 else { throw error("a block without an end-of-block code") }
    literalBits = try buildTable(Array(lengths[0..<literalCount]), into: literalTable, what: "literal/length")
    distanceBits = try buildTable(Array(lengths[literalCount...]), into: distanceTable, what: "distance")
  }

  /// Fills `table` (indexed by the next `bits` input bits, least significant first) from canonical code lengths;
  /// returns the table's width. Over-subscribed lengths are an error; incomplete codes leave entries empty (a read
  /// of one is an error when it happens).
  private func buildTable(_ lengths: [UInt8], into table: UnsafeMutablePointer<UInt16>, what: String)
    throws(ExportError) -> Int
  {
    var counts = [Int](repeating: 0, count: 16)
    for l in lengths { counts[Int(l)] += 1 }
    counts[0] = 0
    var left = 1
    for len in 1...15 {
      left = left * 2 - counts[len]
      guard left >= 0 else { throw error("over-subscribed \(what) code lengths") }
    }
    let width = max(1, lengths.max().map(Int.init) ?? 1)
    let size = 1 << width
    table.update(repeating: 0, count: size)
    var next = [Int](repeating: 0, count: 16)
    var code = 0
    for len in 1...15 {
      code = (code + counts[len - 1]) << 1
      next[len] = code
    }
    for (symbol, l) in lengths.enumerated() where l > 0 {
      let len = Int(l)
      let c = next[len]
      next[len] += 1
      var reversed = 0
      for b in 0..<len where c & (1 << b) != 0 { reversed |= 1 << (len - 1 - b) }
      let entry = UInt16(symbol << 4 | len)
      var index = reversed
      while index < size {
        table[index] = entry
        index += 1 << len
      }
    }
    return width
  }
}
