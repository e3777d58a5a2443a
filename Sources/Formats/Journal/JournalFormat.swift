/// The journal's on-disk layout, as pure functions (no I/O): header, record framing, checksums and the recovery
/// scan. docs/journal.md describes the same layout.
///
/// ```
/// file      := header record*
/// header v2 := "HPJOURNL" | version u32 LE (= 2) | device u8 | 3 zero bytes | salt u64 LE | file-crc u32 LE
///              file-crc = CRC-32C(the 24 bytes before it)                                         (28 bytes)
/// header v1 := "HPJOURNL" | version u32 LE (= 1) | device u8 | 3 zero bytes                    (16 bytes)
/// record    := length u32 LE | payload-crc u32 LE | header-crc u32 LE | payload (length bytes)
///              payload-crc = CRC-32C(payload)
///              header-crc  = CRC-32C(salt u64 LE ‖ length ‖ payload-crc)   (version 1: no salt)
/// payload   := one encoded DeviceEvent (tag u8, fields)
/// ```
///
/// The record header checksum is what lets recovery tell a torn tail (the file simply ends inside the last record:
/// safe to cut) from corruption inside the journal (a damaged length or payload with intact bytes after it:
/// never cut silently, because later records would be lost). The salt, random per file and never sent anywhere,
/// is what keeps a client from forging an "intact record" inside a value it saves: without it, a metadata
/// string holding a well-formed record made a torn tail look like corruption.
package enum JournalFormat {
  /// The eight magic bytes a journal starts with.
  package static let magic: [UInt8] = Array("HPJOURNL".utf8)
  /// The format version this build writes when it creates a journal.
  package static let version: UInt32 = 2
  /// The versions this build opens; a journal keeps its version when appended to.
  package static let readableVersions: ClosedRange<UInt32> = 1...2
  /// Bytes in a version-1 file header.
  package static let version1HeaderSize = 16
  /// Bytes in a version-2 file header.
  package static let version2HeaderSize = 28
  /// Bytes before each record's payload.
  package static let recordHeaderSize = 12
  /// The largest payload a record may have.
  package static let maxRecordLength = 64 << 20

  /// How one journal file frames its records: its format version, its device and (version 2) its salt.
  package struct Framing: Equatable, Sendable {
    /// The format version (1 or 2).
    package let version: UInt32
    /// The device byte (0 phone, 1 watch).
    package let device: UInt8
    /// The file's salt, mixed into every record's header checksum; 0 and unused in version 1.
    package let salt: UInt64
    /// The CRC-32C of the salt's eight bytes: where every header checksum of a version-2 file starts from.
    private let saltChecksum: UInt32

    /// The framing of a version-2 journal with `salt` (a new file draws it from the kernel's random source).
    package static func version2(device: UInt8, salt: UInt64) -> Framing {
      Framing(version: 2, device: device, salt: salt)
    }

    /// The framing of a version-1 journal (no salt): only for opening and appending to existing files.
    package static func version1(device: UInt8) -> Framing { Framing(version: 1, device: device, salt: 0) }

    private init(version: UInt32, device: UInt8, salt: UInt64) {
      self.version = version
      self.device = device
      self.salt = salt
      saltChecksum = withUnsafeBytes(of: salt.littleEndian) { CRC32C.checksum($0) }
    }

    /// Bytes in this file's header: where the first record starts.
    package var headerSize: Int { version == 1 ? version1HeaderSize : version2HeaderSize }

    /// The file header.
    package var fileHeader: [UInt8] {
      var bytes = magic
      withUnsafeBytes(of: version.littleEndian) { bytes.append(contentsOf: $0) }
      bytes.append(device)
      bytes.append(contentsOf: [0, 0, 0])
      guard version >= 2 else { return bytes }
      withUnsafeBytes(of: salt.littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: CRC32C.checksum(bytes).littleEndian) { bytes.append(contentsOf: $0) }
      return bytes
    }

    /// The header checksum of a record: over its first 8 bytes (length, payload-crc), salted in version 2.
    package func headerChecksum(_ head: UnsafeRawBufferPointer) -> UInt32 {
      version == 1 ? CRC32C.checksum(head) : CRC32C.checksum(head, continuing: saltChecksum)
    }

    /// Appends one framed record (length, checksums, payload) to `buffer`.
    package func appendRecord(_ payload: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
      var head = [UInt8]()
      head.reserveCapacity(8)
      withUnsafeBytes(of: UInt32(payload.count).littleEndian) { head.append(contentsOf: $0) }
      withUnsafeBytes(of: CRC32C.checksum(payload).littleEndian) { head.append(contentsOf: $0) }
      buffer.append(contentsOf: head)
      let checksum = head.withUnsafeBytes { headerChecksum($0) }
      withUnsafeBytes(of: checksum.littleEndian) { buffer.append(contentsOf: $0) }
      buffer.append(contentsOf: payload)
    }

    /// Equal when version, device and salt are.
    package static func == (a: Framing, b: Framing) -> Bool {
      a.version == b.version && a.device == b.device && a.salt == b.salt
    }
  }

  /// Why a file header is not acceptable.
  package enum HeaderProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Shorter than the header of its version (16 bytes, 28 for version 2).
    case tooShort(Int)
    /// The magic bytes differ: not a HealthPair journal.
    case badMagic
    /// Written by another format version.
    case unsupportedVersion(UInt32)
    /// A version-2 header whose checksum does not match: its salt (and device) cannot be trusted.
    case checksumMismatch(stored: UInt32, computed: UInt32)

    /// A lowercase description.
    package var description: String {
      switch self {
      case .tooShort(let n):
        "file header is \(n) bytes, shorter than a journal header "
          + "(\(version1HeaderSize) bytes in version 1, \(version2HeaderSize) in version 2)"
      case .badMagic: "not a HealthPair journal (bad magic bytes)"
      case .unsupportedVersion(let v):
        "journal format version \(v) is not supported (this build reads versions "
          + "\(readableVersions.lowerBound) to \(readableVersions.upperBound))"
      case .checksumMismatch(let stored, let computed):
        "file header checksum mismatch (stored \(hex(stored)), computed \(hex(computed))): the salt and device "
          + "bytes are damaged"
      }
    }
  }

  /// Checks a file header and returns how the file frames its records.
  package static func parseHeader(_ bytes: UnsafeRawBufferPointer) throws(HeaderProblem) -> Framing {
    guard bytes.count >= version1HeaderSize else { throw .tooShort(bytes.count) }
    guard Array(bytes[0..<8]) == magic else { throw .badMagic }
    let version = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    switch version {
    case 1:
      return .version1(device: bytes[12])
    case 2:
      guard bytes.count >= version2HeaderSize else { throw .tooShort(bytes.count) }
      let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
      let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<24]))
      guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
      let salt = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
      return .version2(device: bytes[12], salt: salt)
    default:
      throw .unsupportedVersion(version)
    }
  }

  /// A damaged spot found by ``scan(_:framing:)``.
  package struct Damage: Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    package enum Kind: Equatable, Sendable {
      /// Fewer than 12 bytes of record header remain.
      case partialHeader(available: Int)
      /// The record header's checksum does not match (its length cannot be trusted).
      case headerChecksumMismatch
      /// The record claims more bytes than remain.
      case partialPayload(length: Int, available: Int)
      /// The payload's checksum does not match.
      case checksumMismatch(stored: UInt32, computed: UInt32)
      /// The length field exceeds the format's limit.
      case oversizedLength(Int)
    }
    /// Offset of the damaged record's first byte.
    package var offset: Int
    /// What is wrong.
    package var kind: Kind
    /// True when no intact record follows the damage (a torn or corrupt last record, or a zero-filled tail):
    /// safe to truncate. False when an intact record follows it: corruption inside the journal, never truncated
    /// silently.
    package var isTail: Bool

    /// A lowercase description.
    package var description: String {
      let what: String
      switch kind {
      case .partialHeader(let n): what = "partial record header (\(n) of \(recordHeaderSize) bytes)"
      case .headerChecksumMismatch: what = "record header checksum mismatch"
      case .partialPayload(let length, let available):
        what = "partial record (\(available) of \(length) payload bytes)"
      case .checksumMismatch(let stored, let computed):
        what = "payload checksum mismatch (stored \(hex(stored)), computed \(hex(computed)))"
      case .oversizedLength(let n): what = "record length \(n) exceeds the \(maxRecordLength)-byte limit"
      }
      return "\(what) at offset \(offset)"
    }
  }

  /// The result of scanning a journal's records.
  package struct Scan: Sendable {
    /// Each intact record: the offset of its payload and its length.
    package var records: [(offset: Int, length: Int)]
    /// The end of the last intact record.
    package var validEnd: Int
    /// The first damage found, if any.
    package var damage: Damage?
  }

  /// Parses the file header, then scans the records (see ``scan(_:framing:from:)``).
  package static func scan(file bytes: UnsafeRawBufferPointer) throws(HeaderProblem) -> Scan {
    scan(bytes, framing: try parseHeader(bytes))
  }

  /// Walks the records after the file header (or from `start`, a record boundary a snapshot covers up to),
  /// verifying both checksums; stops at the first damaged record.
  package static func scan(_ bytes: UnsafeRawBufferPointer, framing: Framing, from start: Int? = nil) -> Scan {
    var records: [(offset: Int, length: Int)] = []
    var offset = start ?? framing.headerSize
    let end = bytes.count
    // Damage is a tail exactly when no intact record (both checksums valid) starts anywhere after it: then
    // cutting loses nothing that was acknowledged. The header checksum makes a chance match a 1-in-2^32 event,
    // and in version 2 the file's secret salt makes a record forged inside a saved value one too.
    func intactRecordFollows(_ from: Int) -> Bool {
      var o = from
      while o + recordHeaderSize <= end {
        let head = UnsafeRawBufferPointer(rebasing: bytes[o..<o + 8])
        let storedHead = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self))
        if framing.headerChecksum(head) == storedHead {
          let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
          let payloadStart = o + recordHeaderSize
          if length <= end - payloadStart {
            let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self))
            if CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + length])) == stored
            {
              return true
            }
          }
        }
        o += 1
      }
      return false
    }
    func damage(_ kind: Damage.Kind) -> Scan {
      Scan(
        records: records, validEnd: offset,
        damage: Damage(offset: offset, kind: kind, isTail: !intactRecordFollows(offset + 1)))
    }
    while offset < end {
      let available = end - offset
      guard available >= recordHeaderSize else { return damage(.partialHeader(available: available)) }
      let head = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 8])
      let storedHead = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self))
      guard framing.headerChecksum(head) == storedHead else { return damage(.headerChecksumMismatch) }
      let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
      if length > maxRecordLength { return damage(.oversizedLength(length)) }
      let payloadStart = offset + recordHeaderSize
      if length > end - payloadStart {
        return damage(.partialPayload(length: length, available: end - payloadStart))
      }
      let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + length]))
      if computed != stored {
        return damage(.checksumMismatch(stored: stored, computed: computed))
      }
      records.append((payloadStart, length))
      offset = payloadStart + length
    }
    return Scan(records: records, validEnd: offset, damage: nil)
  }
}

private func hex(_ v: UInt32) -> String {
  let digits = String(v, radix: 16)
  return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

/// CRC-32C (Castagnoli), slicing-by-8: the journal's record checksum.
package enum CRC32C {
  private static let tables: [[UInt32]] = {
    var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
    for i in 0..<256 {
      var crc = UInt32(i)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
      tables[0][i] = crc
    }
    for i in 0..<256 {
      for t in 1..<8 { tables[t][i] = (tables[t - 1][i] >> 8) ^ tables[0][Int(tables[t - 1][i] & 0xff)] }
    }
    return tables
  }()
  private static let flat: [UInt32] = tables.flatMap { $0 }

  /// The CRC-32C of `bytes`.
  package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    update(0xFFFF_FFFF, bytes) ^ 0xFFFF_FFFF
  }

  /// The CRC-32C of `previous`'s bytes followed by `bytes`, given `previous`'s checksum `crc`.
  package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32) -> UInt32 {
    update(crc ^ 0xFFFF_FFFF, bytes) ^ 0xFFFF_FFFF
  }

  private static func update(_ state: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc = state
    guard var pointer = bytes.baseAddress else { return state }
    var count = bytes.count
    flat.withUnsafeBufferPointer { t in
      while count >= 8 {
        let low = UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)) ^ crc
        let high = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        crc =
          t[7 * 256 + Int(low & 0xff)] ^ t[6 * 256 + Int((low >> 8) & 0xff)] ^ t[5 * 256 + Int((low >> 16) & 0xff)]
          ^ t[4 * 256 + Int(low >> 24)] ^ t[3 * 256 + Int(high & 0xff)] ^ t[2 * 256 + Int((high >> 8) & 0xff)]
          ^ t[1 * 256 + Int((high >> 16) & 0xff)] ^ t[Int(high >> 24)]
        pointer += 8
        count -= 8
      }
      while count > 0 {
        crc = (crc >> 8) ^ t[Int((crc ^ UInt32(pointer.load(as: UInt8.self))) & 0xff)]
        pointer += 1
        count -= 1
      }
    }
    return crc
  }

  /// The CRC-32C of a byte array.
  package static func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { checksum($0) } }
}
