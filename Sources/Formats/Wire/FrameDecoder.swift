/// A pure, bounded decoder for length-prefixed frames.
///
/// ```
/// +----------------+---------------------------+
/// | length: u32 LE | body: `length` bytes      |
/// +----------------+---------------------------+
/// ```
///
/// Feed it bytes as they arrive with ``append(_:)``; take complete frames with ``next()``. A length above
/// ``maxFrameLength`` is an error before any body byte is buffered, so a hostile length cannot make the
/// reader allocate. Bytes left over when the stream ends are an error (``finish()``).
package struct FrameDecoder: Sendable {
  /// Why a stream cannot be decoded.
  package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// A frame header announced more than the limit.
    case frameTooLarge(length: Int, limit: Int, offset: Int)
    /// The stream ended inside a frame.
    case truncated(buffered: Int, offset: Int)

    /// A lowercase description.
    package var description: String {
      switch self {
      case .frameTooLarge(let length, let limit, let offset):
        "frame length \(length) exceeds the \(limit)-byte limit at stream offset \(offset)"
      case .truncated(let buffered, let offset):
        "stream ended inside a frame (\(buffered) bytes buffered) at stream offset \(offset)"
      }
    }
  }

  private enum ReadState: Sendable {
    case header
    case body(length: Int)
  }

  /// The largest frame body accepted. The daemon raises it once a connection has identified itself; a change
  /// applies from the next frame header on.
  package var maxFrameLength: Int
  private var buffer: [UInt8] = []
  private var start = 0
  private var state = ReadState.header
  /// Stream offset of the first unconsumed byte (for error messages).
  package private(set) var streamOffset = 0

  /// Creates a decoder with a frame limit.
  package init(maxFrameLength: Int) { self.maxFrameLength = maxFrameLength }

  /// Bytes buffered but not yet returned as frames.
  package var bufferedCount: Int { buffer.count - start }

  /// Adds bytes that arrived.
  package mutating func append(_ bytes: UnsafeRawBufferPointer) {
    if start > 0 && start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 65536 && start * 2 > buffer.count {
      buffer.removeFirst(start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// Adds bytes that arrived.
  package mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

  /// The next complete frame body, nil when more bytes are needed.
  /// - Throws: ``Failure/frameTooLarge(length:limit:offset:)``; the decoder is then unusable.
  package mutating func next() throws(Failure) -> [UInt8]? {
    while true {
      switch state {
      case .header:
        guard bufferedCount >= 4 else { return nil }
        let length = Int(
          buffer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt32.self)) })
        guard length <= maxFrameLength else {
          throw .frameTooLarge(length: length, limit: maxFrameLength, offset: streamOffset)
        }
        start += 4
        streamOffset += 4
        state = .body(length: length)
      case .body(let length):
        guard bufferedCount >= length else { return nil }
        let frame = Array(buffer[start..<start + length])
        start += length
        streamOffset += length
        state = .header
        return frame
      }
    }
  }

  /// Whether ``next()`` would return a frame (or throw) without more bytes.
  package var hasCompleteFrame: Bool {
    switch state {
    case .header:
      guard bufferedCount >= 4 else { return false }
      let length = Int(
        buffer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt32.self)) })
      return length > maxFrameLength || bufferedCount - 4 >= length
    case .body(let length): return bufferedCount >= length
    }
  }

  /// How many more bytes the current frame needs (header or body); never reads past a frame boundary.
  package var nextReadLength: Int {
    switch state {
    case .header: max(1, 4 - bufferedCount)
    case .body(let length): max(1, length - bufferedCount)
    }
  }

  /// Declares the end of the stream.
  /// - Throws: ``Failure/truncated(buffered:offset:)`` when a partial frame is buffered.
  package func finish() throws(Failure) {
    var buffered = bufferedCount
    if case .body = state { buffered += 4 }
    if buffered > 0 { throw .truncated(buffered: buffered, offset: streamOffset) }
  }

  /// Frames `body` with its length prefix.
  package static func frame(_ body: [UInt8]) -> [UInt8] {
    var framed = [UInt8]()
    framed.reserveCapacity(body.count + 4)
    withUnsafeBytes(of: UInt32(body.count).littleEndian) { framed.append(contentsOf: $0) }
    framed.append(contentsOf: body)
    return framed
  }
}
