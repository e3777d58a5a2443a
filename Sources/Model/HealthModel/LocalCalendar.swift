import FoundationEssentials

/// The length of one interval of a statistics collection, as `DateComponents` give it: calendar months (years and
/// quarters count as 12 and 3), calendar days (a week is 7) and elapsed seconds (hours, minutes, seconds).
///
/// Adding an interval follows Foundation's `Calendar.date(byAdding:to:)`: months first (the day of the month is
/// kept, or clamped to the month's last day: Jan 31 + 1 month is Feb 28), then days at the same wall-clock time
/// (so a day across a daylight-saving change lasts 23 or 25 hours), then seconds of elapsed time.
package struct CalendarInterval: Hashable, Sendable, CustomStringConvertible, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral
{
  /// Calendar months.
  package var months: Int
  /// Calendar days.
  package var days: Int
  /// Elapsed seconds.
  package var seconds: Double

  /// Creates an interval.
  package init(months: Int = 0, days: Int = 0, seconds: Double = 0) {
    self.months = months
    self.days = days
    self.seconds = seconds
  }

  /// Parses `1d`, `7d`, `2w`, `1mo` or `1y` as calendar days, weeks, months or years, and any other duration
  /// (`1h`, `30m`, `1h30m`, `90s`) as elapsed seconds; nil for anything else.
  package init?(parsing text: String) {
    for (suffix, months, days) in [("mo", 1, 0), ("y", 12, 0), ("w", 0, 7), ("d", 0, 1)] where text.hasSuffix(suffix) {
      let number = text.dropLast(suffix.count)
      if let n = Int(number), n > 0, n <= 100_000, number.allSatisfy(\.isNumber) {
        self.init(months: n * months, days: n * days)
        return
      }
    }
    guard let seconds = parseDuration(text) else { return nil }
    self.init(seconds: seconds)
  }

  /// One `unit` of the calendar: `second`, `minute`, `hour` (elapsed time), `day`, `week`, `month`, `quarter` or
  /// `year` (calendar units); nil for another word.
  package init?(unit: String) {
    switch unit {
    case "second": self.init(seconds: 1)
    case "minute": self.init(seconds: 60)
    case "hour": self.init(seconds: 3600)
    case "day": self.init(days: 1)
    case "week": self.init(days: 7)
    case "month": self.init(months: 1)
    case "quarter": self.init(months: 3)
    case "year": self.init(months: 12)
    default: return nil
    }
  }

  /// A literal is a fixed length in seconds (`3600`).
  package init(floatLiteral value: Double) { self.init(seconds: value) }

  /// A literal is a fixed length in seconds (`86400`).
  package init(integerLiteral value: Int) { self.init(seconds: Double(value)) }

  /// An interval of fixed length.
  package static func seconds(_ seconds: Double) -> CalendarInterval { CalendarInterval(seconds: seconds) }

  /// The longest interval accepted: 10,000 years of months, 3,650,000 days, 10^12 seconds.
  package static let limits = (months: 120_000, days: 3_650_000, seconds: 1e12)

  /// Whether the interval moves time forward and stays within ``limits``: no part negative, not all zero.
  package var isValid: Bool {
    seconds.isFinite && months >= 0 && days >= 0 && seconds >= 0 && (months > 0 || days > 0 || seconds > 0)
      && months <= Self.limits.months && days <= Self.limits.days && seconds <= Self.limits.seconds
  }

  /// Whether every interval has the same length in any zone (no months and no days).
  package var isFixedLength: Bool { months == 0 && days == 0 }

  /// An average length in seconds (a month is 30.436875 days), to estimate how many intervals a span holds.
  package var approximateSeconds: Double { Double(months) * 2_629_746 + Double(days) * 86400 + seconds }

  /// `1 month`, `7 days`, `1 day 12h`, `3600 s`.
  package var description: String {
    var parts: [String] = []
    if months != 0 { parts.append(months % 12 == 0 ? "\(months / 12) year(s)" : "\(months) month(s)") }
    if days != 0 { parts.append(days % 7 == 0 ? "\(days / 7) week(s)" : "\(days) day(s)") }
    if seconds != 0 || parts.isEmpty { parts.append(formatDuration(seconds)) }
    return parts.joined(separator: " ")
  }
}

/// Wall-clock date and time in some zone (proleptic Gregorian calendar).
package struct LocalDateTime: Hashable, Sendable {
  /// The year.
  package var year: Int64
  /// 1…12.
  package var month: Int64
  /// 1…31.
  package var day: Int64
  /// Seconds since local midnight (may include a fraction).
  package var secondsOfDay: Double
  /// 0 = Sunday … 6 = Saturday.
  package var weekday: Int

  /// `2026-01-05T08:30:00` (no zone).
  package var description: String {
    func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let s = Int64(secondsOfDay.rounded(.down))
    return "\(year)-\(two(month))-\(two(day))T\(two(s / 3600)):\(two(s % 3600 / 60)):\(two(s % 60))"
  }
}

/// The Gregorian calendar in one ``TimeZoneRule``: local days, wall-clock times, and the arithmetic statistics
/// collections use. Pure and deterministic (no Foundation `Calendar`, no time-zone database).
package struct LocalCalendar: Hashable, Sendable {
  /// The zone.
  package let zone: TimeZoneRule

  /// A calendar in `zone`.
  package init(_ zone: TimeZoneRule) { self.zone = zone }

  /// The UTC calendar.
  package static let utc = LocalCalendar(.utc)

  /// Seconds between 1970-01-01 and 2001-01-01 (`Date`'s reference date).
  package static let referenceOffset = 978_307_200.0

  /// The wall-clock reading at `date`, as seconds since 1970-01-01 "local midnight".
  package func wallSeconds(_ date: Date) -> Double {
    let unix = date.timeIntervalSince1970
    return unix + Double(zone.offset(unix: unix))
  }

  /// The wall-clock date and time at `date`.
  package func local(_ date: Date) -> LocalDateTime {
    let wall = wallSeconds(date)
    guard wall.isFinite, abs(wall) < 3e14 else {
      return LocalDateTime(year: 0, month: 1, day: 1, secondsOfDay: 0, weekday: 0)
    }
    let day = Int64((wall / 86400).rounded(.down))
    let (y, m, d) = civilFromDays(day)
    return LocalDateTime(
      year: y, month: m, day: d, secondsOfDay: wall - Double(day) * 86400, weekday: TimeZoneRule.weekday(ofDay: day))
  }

  /// The instant a wall-clock reading (seconds since 1970-01-01 local midnight) names. A time that occurs twice
  /// (clocks going back) is its first occurrence; a time that does not occur (clocks going forward) is moved
  /// forward by the gap — as Foundation's `Calendar` resolves them by default.
  package func date(wallSeconds wall: Double) -> Date {
    Date(timeIntervalSince1970: unix(wallSeconds: wall))
  }

  /// ``date(wallSeconds:)`` in Unix seconds.
  package func unix(wallSeconds wall: Double) -> Double {
    let standard = Double(zone.standardOffset)
    guard zone.daylight != nil else { return wall - standard }
    let daylight = standard + Double(TimeZoneRule.daylightSaving)
    let asDaylight = wall - daylight
    let asStandard = wall - standard
    let daylightFits = Double(zone.offset(unix: asDaylight)) == daylight
    let standardFits = Double(zone.offset(unix: asStandard)) == standard
    switch (daylightFits, standardFits) {
    case (true, true): return min(asDaylight, asStandard)
    case (true, false): return asDaylight
    case (false, true): return asStandard
    // In the gap clocks skip (they go forward from standard time): read it with the standard offset, the one
    // before the change, which lands after it.
    case (false, false): return asStandard
    }
  }

  /// The instant of a local date and time.
  package func date(year: Int64, month: Int64, day: Int64, secondsOfDay: Double = 0) -> Date {
    date(wallSeconds: Double(daysFromCivil(year, month, day)) * 86400 + secondsOfDay)
  }

  /// A date written without a zone (its UTC fields are the wall-clock fields, as `parseDate` reads
  /// `2026-01-05T08:30`) read in this calendar's zone.
  package func date(localFieldsOf written: Date) -> Date {
    date(wallSeconds: written.timeIntervalSince1970)
  }

  /// Local midnight of the day containing `date`.
  package func startOfDay(_ date: Date) -> Date {
    let wall = wallSeconds(date)
    guard wall.isFinite else { return date }
    return self.date(wallSeconds: (wall / 86400).rounded(.down) * 86400)
  }

  /// Local midnight of the day after the one containing `date`.
  package func startOfNextDay(_ date: Date) -> Date {
    let wall = wallSeconds(date)
    guard wall.isFinite else { return date }
    return self.date(wallSeconds: ((wall / 86400).rounded(.down) + 1) * 86400)
  }

  /// `anchor` moved by `count` intervals (negative: backwards), each part multiplied by `count` and added to the
  /// anchor in one step — so monthly intervals from Jan 31 start on Jan 31, Feb 28, Mar 31 (no drift).
  package func adding(_ interval: CalendarInterval, times count: Int, to anchor: Date) -> Date {
    Date(timeIntervalSince1970: addingUnix(interval, times: count, to: anchor.timeIntervalSince1970))
  }

  /// ``adding(_:times:to:)`` in Unix seconds.
  package func addingUnix(_ interval: CalendarInterval, times count: Int, to anchor: Double) -> Double {
    let k = Double(count)
    if interval.isFixedLength { return anchor + k * interval.seconds }
    let wall = anchor + Double(zone.offset(unix: anchor))
    let day = (wall / 86400).rounded(.down)
    guard abs(day) < 4e6 else { return anchor + k * interval.approximateSeconds }
    let secondsOfDay = wall - day * 86400
    var (y, m, d) = civilFromDays(Int64(day))
    if interval.months != 0 {
      let total = (m - 1) + Int64(count) * Int64(interval.months)
      let yearShift = total >= 0 ? total / 12 : (total - 11) / 12
      y += yearShift
      m = total - yearShift * 12 + 1
      d = min(d, Self.daysIn(year: y, month: m))
    }
    let newDay = daysFromCivil(y, m, d) + Int64(count) * Int64(interval.days)
    return unix(wallSeconds: Double(newDay) * 86400 + secondsOfDay) + k * interval.seconds
  }

  /// The number of the interval containing `date` (interval 0 starts at `anchor`; interval k at anchor + k
  /// intervals), clamped to ±10^9.
  package func index(of date: Date, anchor: Date, interval: CalendarInterval) -> Int {
    indexUnix(date.timeIntervalSince1970, anchor: anchor.timeIntervalSince1970, interval: interval)
  }

  /// ``index(of:anchor:interval:)`` in Unix seconds.
  package func indexUnix(_ t: Double, anchor: Double, interval: CalendarInterval) -> Int {
    let estimate = ((t - anchor) / interval.approximateSeconds).rounded(.down)
    guard estimate.isFinite else { return t < anchor ? -1_000_000_000 : 1_000_000_000 }
    var k = Int(max(-1e9, min(1e9, estimate)))
    var steps = 0
    while steps < 64, k > -1_000_000_000, addingUnix(interval, times: k, to: anchor) > t {
      k -= 1
      steps += 1
    }
    while steps < 128, k < 1_000_000_000, addingUnix(interval, times: k + 1, to: anchor) <= t {
      k += 1
      steps += 1
    }
    return k
  }

  /// Days in a month of the proleptic Gregorian calendar.
  package static func daysIn(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}
