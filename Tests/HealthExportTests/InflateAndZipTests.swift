import FoundationEssentials
import TestSupport
import Testing

@testable import HealthExport

private func hex(_ text: String) -> [UInt8] { Hex.bytes(text) }

/// Everything an input yields.
private func drain(_ input: some ByteInput, chunk: Int = 1 << 16) throws(ExportError) -> [UInt8] {
  var input = input
  var out: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: chunk)
  while true {
    let n = try fill(&buffer, from: 0, limit: chunk, with: input)
    if n == 0 { return out }
    out += buffer[0..<n]
    _ = input
  }
}

private func inflate(_ bytes: [UInt8], inputChunk: Int = .max, outputChunk: Int = 1 << 16) throws(ExportError)
  -> [UInt8]
{
  try drain(Inflater(MemoryInput(bytes, chunk: inputChunk), file: "z"), chunk: outputChunk)
}

/// A DEFLATE encoder for tests: fixed-Huffman blocks of literals and (length, distance) matches, LSB-first.
private struct FixedHuffmanEncoder {
  var bytes: [UInt8] = []
  var bitBuffer: UInt64 = 0
  var bitCount = 0

  mutating func bits(_ value: Int, _ count: Int) {
    bitBuffer |= UInt64(value) << UInt64(bitCount)
    bitCount += count
    while bitCount >= 8 {
      bytes.append(UInt8(truncatingIfNeeded: bitBuffer))
      bitBuffer >>= 8
      bitCount -= 8
    }
  }

  /// A Huffman code, most significant bit first.
  mutating func code(_ value: Int, _ length: Int) {
    var reversed = 0
    for i in 0..<length where value & (1 << i) != 0 { reversed |= 1 << (length - 1 - i) }
    bits(reversed, length)
  }

  mutating func symbol(_ s: Int) {
    switch s {
    case 0...143: code(0x30 + s, 8)
    case 144...255: code(0x190 + s - 144, 9)
    case 256...279: code(s - 256, 7)
    default: code(0xC0 + s - 280, 8)
    }
  }

  mutating func begin(final: Bool) {
    bits(final ? 1 : 0, 1)
    bits(1, 2)
  }

  mutating func literal(_ byte: UInt8) { symbol(Int(byte)) }

  mutating func match(length: Int, distance: Int) {
    let lengthBase = [
      3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163,
      195, 227, 258,
    ]
    let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    let distanceBase = [
      1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
      2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    let distanceExtra = [
      0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
      13,
    ]
    let li = lengthBase.lastIndex { $0 <= length }!
    symbol(257 + li)
    bits(length - lengthBase[li], lengthExtra[li])
    let di = distanceBase.lastIndex { $0 <= distance }!
    code(di, 5)
    bits(distance - distanceBase[di], distanceExtra[di])
  }

  mutating func end() -> [UInt8] {
    symbol(256)
    if bitCount > 0 { bits(0, 8 - bitCount) }
    return bytes
  }
}

@Suite("Inflate: DEFLATE streams from zlib and from a reference encoder")
struct InflateTests {
  /// zlib 1.2.13, level 9, raw DEFLATE: 40 lines of records (a dynamic-Huffman block).
  let dynamic = hex(
    "c5d64d0ac2400c40e1bda72873017faa4d02d575c595c50b0c364241548669a1b777cee05bb89b40deee834cdbfbfd9d862a"
      + "2f1f3f86ee729de22b8f79b995f93c78793f464f9dc794fb983d54737c4e65b3d984f569d5fe5a6f51bd43758dea3daa0fa8"
      + "6e502da856541ba9055913644d903541d6045913644d903541d6045913644d913545d6145953644d913545d6145953644d91"
      + "3545d60c593364cd903543d60c593364cdd80dfdfbafe70b")
  var dynamicText: [UInt8] {
    Array(
      (0..<40).map { "<Record type=\"HKQuantityTypeIdentifierHeartRate\" value=\"\(60 + $0 % 37)\"/>\n" }.joined().utf8)
  }

  @Test func dynamicHuffmanFromZlibAtEveryChunkSize() throws {
    #expect(try inflate(dynamic) == dynamicText)
    #expect(try inflate(dynamic, inputChunk: 1, outputChunk: 1) == dynamicText)
    #expect(try inflate(dynamic, inputChunk: 3, outputChunk: 100) == dynamicText)
  }

  @Test func fixedHuffmanAndOverlappingCopiesFromZlib() throws {
    #expect(try inflate(hex("4b4c4a4e44450a19a93939f9c82400")) == Array("abcabcabcabcabcabc hello hello hello".utf8))
    // 1,000 times "a": one literal and matches at distance 1 that overlap what they copy.
    #expect(try inflate(hex("4b1c05a360140c7b0000")) == [UInt8](repeating: 97, count: 1000))
  }

  @Test func storedBlocksAcrossTheWindowAndLongDistances() throws {
    // 300 KiB of stored data in 65,535-byte blocks, then a fixed block copying from 32,768 bytes back.
    var expected: [UInt8] = []
    var stream: [UInt8] = []
    var seed: UInt32 = 7
    for block in 0..<5 {
      var data: [UInt8] = []
      for _ in 0..<65_535 {
        seed = seed &* 1_103_515_245 &+ 12345
        data.append(UInt8(truncatingIfNeeded: seed >> 16))
      }
      stream += [0, 0xFF, 0xFF, 0x00, 0x00] + data
      _ = block
      expected += data
    }
    var encoder = FixedHuffmanEncoder()
    encoder.begin(final: true)
    for _ in 0..<100 {
      encoder.match(length: 258, distance: 32_768)
      expected += expected[(expected.count - 32_768)..<(expected.count - 32_768 + 258)]
    }
    encoder.literal(0x21)
    expected.append(0x21)
    stream += encoder.end()
    #expect(try inflate(stream) == expected)
    #expect(try inflate(stream, inputChunk: 4093, outputChunk: 7919) == expected)
  }

  @Test func damagedStreamsAreErrorsWithOffsets() throws {
    func failure(_ bytes: [UInt8]) -> String {
      do {
        _ = try inflate(bytes)
        return "no error"
      } catch { return error.message }
    }
    #expect(failure([0x07]).contains("block type 3 is reserved"))
    #expect(failure([0x01, 0x05, 0x00, 0x00, 0x00]).contains("length check fails"))
    #expect(failure(Array(dynamic.prefix(60))).contains("ends"))
    var far = FixedHuffmanEncoder()
    far.begin(final: true)
    far.literal(0x41)
    far.match(length: 3, distance: 2)
    #expect(failure(far.end()).contains("reaches before the start of the output"))
    #expect(failure([]).contains("ends"))
    do {
      _ = try inflate([0x07])
    } catch {
      #expect(error.kind == .zip)
      #expect(error.location.offset == 0)
    }
  }
}

@Suite("Zip: reading export.zip as a stream, writing stored archives")
struct ZipTests {
  @Test func readsTheExportFromAnInfoZipArchive() throws {
    let zip = ZipExportInput(MemoryInput(try bytes(of: fixtureZipPath), chunk: 1000), file: "export.zip")
    try zip.open()
    #expect(zip.entryName == "apple_health_export/export.xml")
    #expect(try drain(zip) == (try bytes(of: fixturePath)))
  }

  @Test func writesAnArchiveItReadsBackAndCRCDamageIsAnError() throws {
    let payload = Array(String(repeating: "<Record value=\"1\"/>\n", count: 500).utf8)
    var writer = ZipWriter(year: 2026, month: 1, day: 5, hour: 8, minute: 0, second: 0)
    var archive = writer.beginEntry("apple_health_export/export.xml")
    payload.withUnsafeBytes { writer.add($0) }
    archive += payload
    for patch in writer.finishEntry() {
      archive.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
    }
    archive += writer.finish()
    #expect(writer.offset == archive.count)
    let reader = ZipExportInput(MemoryInput(archive), file: "out.zip")
    #expect(try drain(reader) == payload)
    // One byte of the entry changed: the CRC-32 check at its end catches it.
    var damaged = archive
    damaged[200] ^= 0x01
    do {
      _ = try drain(ZipExportInput(MemoryInput(damaged), file: "out.zip"))
      Issue.record("expected a CRC error")
    } catch {
      #expect(error.kind == .zip)
      #expect(error.message.contains("CRC-32"))
    }
  }

  @Test func archivesWithoutAnExportAndOtherFilesAreRefused() throws {
    var writer = ZipWriter(year: 2026, month: 1, day: 5, hour: 8, minute: 0, second: 0)
    var archive = writer.beginEntry("apple_health_export/export_cda.xml")
    for patch in writer.finishEntry() {
      archive.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
    }
    archive += writer.finish()
    func message(_ bytes: [UInt8]) -> String {
      do {
        try ZipExportInput(MemoryInput(bytes), file: "x.zip").open()
        return "no error"
      } catch { return error.message }
    }
    #expect(message(archive).contains("holds no export.xml"))
    #expect(message(Array("<HealthData/>".utf8)).contains("not a zip archive"))
    #expect(message([]).contains("empty"))
  }

  @Test func crc32MatchesTheStandardCheckValue() {
    #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    #expect(CRC32.checksum([]) == 0)
  }
}
