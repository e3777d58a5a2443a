/// Entities in attribute values: checked while a tag is scanned, replaced only when a value is asked for.
extension XMLScanner {
  /// Checks every `&` in a value is one of the five predefined entities or a character reference to a character
  /// XML allows.
  func checkEntities(_ start: Int, _ end: Int) throws(ExportError) {
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
  func decode(_ raw: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
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
}
