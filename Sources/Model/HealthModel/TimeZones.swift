import FoundationEssentials

/// A device's time zone: UTC, a fixed offset (`UTC+05:30`), or one of a small fixed table of named zones with their
/// daylight-saving rule (docs/behavior.md K1).
///
/// HealthPair carries its own rules instead of reading the machine's time-zone database, so a scenario gives the
/// same result on every machine: each named zone has its standard offset and, where it observes daylight saving
/// time, one of four rules (United States and Canada, European Union, south-eastern Australia, New Zealand) that
/// moves clocks one hour forward. The rules are today's, applied to every year — a model: dates before the rules
/// took effect (the United States in 2007, the European Union in 1996, Australia and New Zealand in 2008) differ
/// from the tz database.
package struct TimeZoneRule: Hashable, Sendable, CustomStringConvertible {
  /// The zone's name as written (`Europe/Paris`, `UTC`, `UTC+05:30`).
  package let identifier: String
  /// Seconds east of UTC outside daylight saving time.
  package let standardOffset: Int
  /// The daylight-saving rule, or nil when the zone keeps one offset all year.
  package let daylight: DaylightRule?

  /// When clocks move in zones that observe daylight saving time (one hour forward, back again later).
  package enum DaylightRule: UInt8, Hashable, Sendable, CaseIterable {
    /// United States and Canada: from the second Sunday of March at 02:00 local standard time to the first Sunday
    /// of November at 02:00 local daylight time.
    case unitedStates = 0
    /// European Union and the United Kingdom: from the last Sunday of March at 01:00 UTC to the last Sunday of
    /// October at 01:00 UTC.
    case europeanUnion = 1
    /// New South Wales, Victoria, Tasmania, the ACT and South Australia: from the first Sunday of October at
    /// 02:00 local standard time to the first Sunday of April at 03:00 local daylight time.
    case australia = 2
    /// New Zealand: from the last Sunday of September at 02:00 local standard time to the first Sunday of April at
    /// 03:00 local daylight time.
    case newZealand = 3
  }

  /// How far clocks move when daylight saving time starts: one hour in every zone of the table.
  package static let daylightSaving = 3600

  /// UTC, every device's zone until a scenario or test sets another.
  package static let utc = TimeZoneRule(identifier: "UTC", standardOffset: 0, daylight: nil)

  private init(identifier: String, standardOffset: Int, daylight: DaylightRule?) {
    self.identifier = identifier
    self.standardOffset = standardOffset
    self.daylight = daylight
  }

  /// The named zones HealthPair knows, by identifier: standard offset in minutes and daylight-saving rule.
  private static let table: [String: (minutes: Int, rule: DaylightRule?)] = [
    "America/New_York": (-300, .unitedStates), "America/Toronto": (-300, .unitedStates),
    "America/Chicago": (-360, .unitedStates), "America/Denver": (-420, .unitedStates),
    "America/Phoenix": (-420, nil), "America/Los_Angeles": (-480, .unitedStates),
    "America/Vancouver": (-480, .unitedStates), "America/Anchorage": (-540, .unitedStates),
    "America/St_Johns": (-210, .unitedStates), "America/Halifax": (-240, .unitedStates),
    "Pacific/Honolulu": (-600, nil), "America/Sao_Paulo": (-180, nil), "America/Mexico_City": (-360, nil),
    "Europe/London": (0, .europeanUnion), "Europe/Lisbon": (0, .europeanUnion),
    "Europe/Paris": (60, .europeanUnion), "Europe/Berlin": (60, .europeanUnion),
    "Europe/Madrid": (60, .europeanUnion), "Europe/Rome": (60, .europeanUnion),
    "Europe/Amsterdam": (60, .europeanUnion), "Europe/Brussels": (60, .europeanUnion),
    "Europe/Zurich": (60, .europeanUnion), "Europe/Stockholm": (60, .europeanUnion),
    "Europe/Oslo": (60, .europeanUnion), "Europe/Copenhagen": (60, .europeanUnion),
    "Europe/Vienna": (60, .europeanUnion), "Europe/Warsaw": (60, .europeanUnion),
    "Europe/Prague": (60, .europeanUnion), "Europe/Athens": (120, .europeanUnion),
    "Europe/Helsinki": (120, .europeanUnion), "Europe/Moscow": (180, nil), "Europe/Istanbul": (180, nil),
    "Africa/Johannesburg": (120, nil), "Africa/Lagos": (60, nil), "Africa/Nairobi": (180, nil),
    "Asia/Dubai": (240, nil), "Asia/Karachi": (300, nil), "Asia/Kolkata": (330, nil),
    "Asia/Kathmandu": (345, nil), "Asia/Dhaka": (360, nil), "Asia/Bangkok": (420, nil),
    "Asia/Jakarta": (420, nil), "Asia/Shanghai": (480, nil), "Asia/Hong_Kong": (480, nil),
    "Asia/Singapore": (480, nil), "Asia/Taipei": (480, nil), "Asia/Tokyo": (540, nil), "Asia/Seoul": (540, nil),
    "Australia/Perth": (480, nil), "Australia/Darwin": (570, nil), "Australia/Adelaide": (570, .australia),
    "Australia/Brisbane": (600, nil), "Australia/Sydney": (600, .australia),
    "Australia/Melbourne": (600, .australia), "Australia/Hobart": (600, .australia),
    "Pacific/Auckland": (720, .newZealand),
  ]

  /// Every named zone, sorted (fixed offsets such as `UTC+05:30` are accepted as well).
  package static let knownIdentifiers: [String] = ["UTC"] + table.keys.sorted()

  /// Looks a zone up: `UTC` (or `GMT`), `UTC±H[H][:MM]` from −14:00 to +14:00, or a named zone of the table.
  /// - Throws: ``TimeZoneError`` naming the nearest known zone.
  package init(identifier text: String) throws(TimeZoneError) {
    if text == "UTC" || text == "GMT" || text == "Etc/UTC" || text == "Z" {
      self = .utc
      return
    }
    if let entry = Self.table[text] {
      self.init(identifier: text, standardOffset: entry.minutes * 60, daylight: entry.rule)
      return
    }
    if let minutes = Self.fixedOffsetMinutes(text) {
      self.init(identifier: Self.fixedIdentifier(minutes), standardOffset: minutes * 60, daylight: nil)
      return
    }
    throw TimeZoneError(identifier: text, suggestion: suggest(text, from: Self.knownIdentifiers))
  }

  /// `UTC+05:30` → 330; nil for anything else.
  private static func fixedOffsetMinutes(_ text: String) -> Int? {
    var rest = Substring(text)
    for prefix in ["UTC", "GMT"] where rest.hasPrefix(prefix) { rest = rest.dropFirst(prefix.count) }
    guard rest.count >= 2, let signChar = rest.first, signChar == "+" || signChar == "-" else { return nil }
    let sign = signChar == "+" ? 1 : -1
    let parts = rest.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) }),
      let hours = Int(parts[0]), hours >= 0
    else { return nil }
    let minutes = parts.count == 2 ? Int(parts[1]) : 0
    guard let minutes, (0..<60).contains(minutes), hours * 60 + minutes <= 14 * 60 else { return nil }
    return sign * (hours * 60 + minutes)
  }

  private static func fixedIdentifier(_ minutes: Int) -> String {
    if minutes == 0 { return "UTC" }
    let magnitude = abs(minutes)
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return "UTC\(minutes < 0 ? "-" : "+")\(two(magnitude / 60)):\(two(magnitude % 60))"
  }

  /// The zone's name.
  package var description: String { identifier }

  /// Seconds east of UTC at `date`.
  package func offset(at date: Date) -> Int { offset(unix: date.timeIntervalSince1970) }

  /// Seconds east of UTC at `unix` (seconds since 1970-01-01T00:00:00Z).
  package func offset(unix: Double) -> Int {
    guard let daylight, unix.isFinite else { return standardOffset }
    let localDays = ((unix + Double(standardOffset)) / 86400).rounded(.down)
    guard abs(localDays) < 4e6 else { return standardOffset }
    let year = civilFromDays(Int64(localDays)).0
    let (start, end) = transitions(daylight, year: year)
    let inDaylight = start < end ? (unix >= start && unix < end) : (unix < end || unix >= start)
    return standardOffset + (inDaylight ? Self.daylightSaving : 0)
  }

  /// Whether daylight saving time is in effect at `date`.
  package func isDaylightSavingTime(at date: Date) -> Bool { offset(at: date) != standardOffset }

  /// The instants (Unix seconds) daylight saving time starts and ends in `year`. In the southern hemisphere the
  /// start (in the spring, late in the year) comes after the end (in the autumn, early in the year).
  package func transitions(_ rule: DaylightRule, year: Int64) -> (start: Double, end: Double) {
    let standard = Double(standardOffset)
    let daylightOffset = standard + Double(Self.daylightSaving)
    func at(_ day: Int64, _ seconds: Double) -> Double { Double(day) * 86400 + seconds }
    switch rule {
    case .unitedStates:
      return (
        at(Self.sunday(year, 3, nth: 2), 7200 - standard), at(Self.sunday(year, 11, nth: 1), 7200 - daylightOffset)
      )
    case .europeanUnion:
      return (at(Self.lastSunday(year, 3), 3600), at(Self.lastSunday(year, 10), 3600))
    case .australia:
      return (
        at(Self.sunday(year, 10, nth: 1), 7200 - standard), at(Self.sunday(year, 4, nth: 1), 10800 - daylightOffset)
      )
    case .newZealand:
      return (at(Self.lastSunday(year, 9), 7200 - standard), at(Self.sunday(year, 4, nth: 1), 10800 - daylightOffset))
    }
  }

  /// 0 = Sunday … 6 = Saturday, for a day counted from 1970-01-01 (a Thursday).
  package static func weekday(ofDay day: Int64) -> Int { Int(((day % 7) + 11) % 7) }

  /// The day number of the `nth` Sunday of a month.
  static func sunday(_ year: Int64, _ month: Int64, nth: Int64) -> Int64 {
    let first = daysFromCivil(year, month, 1)
    let toSunday = Int64((7 - weekday(ofDay: first)) % 7)
    return first + toSunday + 7 * (nth - 1)
  }

  /// The day number of the last Sunday of a month.
  static func lastSunday(_ year: Int64, _ month: Int64) -> Int64 {
    let last = (month == 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1)) - 1
    return last - Int64(weekday(ofDay: last))
  }
}

/// A time-zone name HealthPair does not know.
package struct TimeZoneError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The name as written.
  package var identifier: String
  /// The nearest known zone, when one is close.
  package var suggestion: String?

  /// Creates an error.
  package init(identifier: String, suggestion: String?) {
    self.identifier = identifier
    self.suggestion = suggestion
  }

  /// `unknown time zone 'X' (did you mean 'Y'?)`, listing how to write a fixed offset.
  package var description: String {
    "unknown time zone '\(identifier)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
      + "; use UTC, a fixed offset such as UTC+05:30, or a zone such as Europe/Paris"
  }
}
