import FoundationEssentials

/// Dates as Apple Health exports write them: `2024-03-01 08:15:00 +0100` (local time and its UTC offset).
///
/// Parsing and formatting work in seconds since the reference date (2001-01-01T00:00:00Z, what `Date` stores), so a
/// date survives export and import bit for bit. Exports carry whole seconds; a date with a fraction of a second (one
/// an app saved) is written with it (`08:15:00.25 +0000`) and read back exactly.
package enum ExportDate {
  /// Seconds between 1970-01-01 and the reference date.
  private static let referenceFrom1970: Int64 = 978_307_200

  /// Parses `YYYY-MM-DD HH:MM:SS[.fraction] ±HHMM` into seconds since the reference date; nil when the bytes are
  /// not such a date (a month 13, a minute 60, an offset beyond ±18:00 …).
  package static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
    let n = b.count
    guard n >= 25 else { return nil }
    @inline(__always) func digit(_ i: Int) -> Int64? {
      let c = b[i] &- 48
      return c < 10 ? Int64(c) : nil
    }
    @inline(__always) func two(_ i: Int) -> Int64? {
      guard let a = digit(i), let c = digit(i + 1) else { return nil }
      return a * 10 + c
    }
    guard let y1 = two(0), let y2 = two(2), b[4] == 0x2D, let month = two(5), b[7] == 0x2D, let day = two(8),
      b[10] == 0x20, let hour = two(11), b[13] == 0x3A, let minute = two(14), b[16] == 0x3A, let second = two(17)
    else { return nil }
    var i = 19
    var fractionDigits: [UInt8] = []
    if b[i] == 0x2E {
      i += 1
      while i < n, b[i] &- 48 < 10 {
        fractionDigits.append(b[i])
        i += 1
      }
      guard !fractionDigits.isEmpty, fractionDigits.count <= 20 else { return nil }
    }
    guard i + 6 == n, b[i] == 0x20, b[i + 1] == 0x2B || b[i + 1] == 0x2D, let offsetHours = two(i + 2),
      let offsetMinutes = two(i + 4)
    else { return nil }
    let year = y1 * 100 + y2
    guard year >= 1, (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60,
      second < 60, offsetHours <= 18, offsetMinutes < 60
    else { return nil }
    let offset = (offsetHours * 3600 + offsetMinutes * 60) * (b[i + 1] == 0x2D ? -1 : 1)
    let days = daysFromCivil(year, month, day) - referenceFrom1970 / 86400
    let whole = days * 86400 + hour * 3600 + minute * 60 + second - offset
    guard !fractionDigits.isEmpty else { return Double(whole) }
    guard let fraction = Double("0." + String(decoding: fractionDigits, as: UTF8.self)) else { return nil }
    return Double(whole) + fraction
  }

  /// Parses a date in a string (tests, scenario files).
  package static func parse(_ text: String) -> Double? {
    var text = text
    return text.withUTF8 { parse($0) }
  }

  /// Formats seconds since the reference date in the local time of a UTC offset (`offsetSeconds`, a whole number of
  /// minutes): `2024-03-01 08:15:00 +0100`. A fraction of a second is written only when there is one.
  package static func format(_ seconds: Double, offsetSeconds: Int = 0) -> String {
    guard seconds.isFinite, abs(seconds) < 2.5e11 else { return "0001-01-01 00:00:00 +0000" }
    let whole = seconds.rounded(.down)
    let fraction = seconds - whole
    let local = Int64(whole) + Int64(offsetSeconds)
    let days = floorDiv(local, 86400)
    let secondsOfDay = local - days * 86400
    let (y, m, d) = civilFromDays(days + referenceFrom1970 / 86400)
    var text = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + " " + pad(secondsOfDay / 3600, 2) + ":"
    text += pad(secondsOfDay % 3600 / 60, 2) + ":" + pad(secondsOfDay % 60, 2)
    if fraction > 0 { text += fractionDigits(fraction) }
    let sign = offsetSeconds < 0 ? "-" : "+"
    let magnitude = abs(offsetSeconds) / 60
    return text + " " + sign + pad(Int64(magnitude / 60), 2) + pad(Int64(magnitude % 60), 2)
  }

  /// The shortest decimal that reads back as exactly `fraction` (in (0, 1)), from its point: 0.25 → ".25",
  /// 1.5e-05 → ".000015".
  private static func fractionDigits(_ fraction: Double) -> String {
    let text = fraction.description
    guard let e = text.firstIndex(of: "e") else { return String(text.drop { $0 != "." }) }
    let mantissa = text[..<e].filter { $0 != "." }
    let exponent = Int(text[text.index(after: e)...]) ?? 0
    return "." + String(repeating: "0", count: max(0, -exponent - 1)) + mantissa
  }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }

  private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

  private static func daysIn(_ month: Int64, of year: Int64) -> Int64 {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  // Howard Hinnant's civil-from-days algorithms (proleptic Gregorian calendar), days since 1970-01-01.
  private static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  private static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
    let z = z0 + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let y = yoe + era * 400
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp + (mp < 10 ? 3 : -9)
    return (m <= 2 ? y + 1 : y, m, d)
  }
}

/// Numbers as exports write them (`72`, `0.156`, `-3.5`, `1e-05`): parsed correctly rounded, written in the
/// shortest form that reads back to the same `Double`.
package enum ExportNumber {
  private static let powers: [Double] = (0...22).map { p in (0..<p).reduce(1.0) { x, _ in x * 10 } }

  /// Parses a decimal number (optional sign, digits, optional fraction, optional exponent); nil otherwise, and for
  /// NaN, infinities and hexadecimal forms.
  package static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
    let n = b.count
    guard n > 0, n < 400 else { return nil }
    var i = 0
    var negative = false
    if b[0] == 0x2D || b[0] == 0x2B {
      negative = b[0] == 0x2D
      i = 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var exponent = 0
    var sawDigit = false
    while i < n, b[i] &- 48 < 10 {
      sawDigit = true
      if digits < 19 {
        mantissa = mantissa * 10 + UInt64(b[i] &- 48)
        if mantissa > 0 { digits += 1 }
      } else {
        exponent += 1
      }
      i += 1
    }
    if i < n, b[i] == 0x2E {
      i += 1
      while i < n, b[i] &- 48 < 10 {
        sawDigit = true
        if digits < 19 {
          mantissa = mantissa * 10 + UInt64(b[i] &- 48)
          if mantissa > 0 { digits += 1 }
          exponent -= 1
        }
        i += 1
      }
    }
    guard sawDigit else { return nil }
    let slow = digits >= 19
    if i < n, b[i] == 0x65 || b[i] == 0x45 {
      i += 1
      var exponentNegative = false
      if i < n, b[i] == 0x2D || b[i] == 0x2B {
        exponentNegative = b[i] == 0x2D
        i += 1
      }
      var e = 0
      var sawExponentDigit = false
      while i < n, b[i] &- 48 < 10 {
        sawExponentDigit = true
        if e < 100_000 { e = e * 10 + Int(b[i] &- 48) }
        i += 1
      }
      guard sawExponentDigit else { return nil }
      exponent += exponentNegative ? -e : e
    }
    guard i == n else { return nil }
    // Clinger's fast path: an exact mantissa times an exact power of ten rounds once, correctly.
    if !slow, mantissa < 1 << 53, abs(exponent) <= 22 {
      let m = Double(mantissa)
      let value = exponent >= 0 ? m * powers[exponent] : m / powers[-exponent]
      return negative ? -value : value
    }
    guard let value = Double(String(decoding: b, as: UTF8.self)), value.isFinite else { return nil }
    return value
  }

  /// Parses a number in a string.
  package static func parse(_ text: String) -> Double? {
    var text = text
    return text.withUTF8 { parse($0) }
  }

  /// The shortest text that parses back to exactly `value`, without a trailing `.0` for whole numbers below 2^53
  /// (`72`, `0.156`, `1e-05`).
  package static func format(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
    return value.description
  }
}

/// A 128-bit hash of values fed in order (two independent 64-bit lanes), the same in every process: what imported
/// samples' identifiers derive from.
package struct Hash128: Sendable {
  private var a: UInt64 = 0x6A09_E667_F3BC_C908
  private var b: UInt64 = 0xBB67_AE85_84CA_A73B

  /// An empty hash.
  package init() {}

  @inline(__always) private static func mix(_ x: UInt64) -> UInt64 {
    var z = x &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Feeds one word.
  @inline(__always) package mutating func add(_ word: UInt64) {
    a = Self.mix(a ^ word)
    b = Self.mix(b &+ (word &* 0xFF51_AFD7_ED55_8CCD) ^ 0xC4CE_B9FE_1A85_EC53)
  }

  /// Feeds bytes (their length first, so adjacent fields cannot run into each other).
  package mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
    add(UInt64(bytes.count))
    var i = 0
    while i + 8 <= bytes.count {
      var word: UInt64 = 0
      for k in 0..<8 { word |= UInt64(bytes[i + k]) << UInt64(8 * k) }
      add(word)
      i += 8
    }
    if i < bytes.count {
      var word: UInt64 = 0
      for k in 0..<(bytes.count - i) { word |= UInt64(bytes[i + k]) << UInt64(8 * k) }
      add(word)
    }
  }

  /// Feeds a string's UTF-8 bytes.
  package mutating func add(_ text: String) {
    var text = text
    text.withUTF8 { add($0) }
  }

  /// The hash as a version-8 (custom) RFC 9562 UUID.
  package var uuid: UUID {
    var hi = a
    var lo = b
    hi = (hi & ~0xF000) | 0x8000  // version 8 in the 13th hex digit
    lo = (lo & ~(0xC000_0000_0000_0000)) | 0x8000_0000_0000_0000  // RFC variant
    func byte(_ w: UInt64, _ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: w >> UInt64(56 - 8 * i)) }
    return UUID(
      uuid: (
        byte(hi, 0), byte(hi, 1), byte(hi, 2), byte(hi, 3), byte(hi, 4), byte(hi, 5), byte(hi, 6), byte(hi, 7),
        byte(lo, 0), byte(lo, 1), byte(lo, 2), byte(lo, 3), byte(lo, 4), byte(lo, 5), byte(lo, 6), byte(lo, 7)
      ))
  }
}
