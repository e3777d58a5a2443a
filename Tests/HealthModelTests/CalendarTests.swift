import Foundation
import Testing

@testable import HealthModel

/// HealthPair's time zones and calendar arithmetic (docs/behavior.md K1–K3): pinned transitions, local days of 23
/// and 25 hours, month lengths, and agreement with the machine's time-zone database for recent years.
@Suite struct CalendarTests {
  func zone(_ name: String) -> TimeZoneRule { try! TimeZoneRule(identifier: name) }
  func utc(_ text: String) -> Date { parseDate(text)! }

  /// The instants clocks change in 2026, from the tz database (checked once with Python's zoneinfo).
  @Test(arguments: [
    ("America/New_York", "2026-03-08T07:00:00Z", "2026-11-01T06:00:00Z", -5 * 3600),
    ("Europe/Paris", "2026-03-29T01:00:00Z", "2026-10-25T01:00:00Z", 3600),
    ("Europe/London", "2026-03-29T01:00:00Z", "2026-10-25T01:00:00Z", 0),
    ("America/St_Johns", "2026-03-08T05:30:00Z", "2026-11-01T04:30:00Z", -(3 * 3600 + 1800)),
    ("Australia/Sydney", "2026-10-03T16:00:00Z", "2026-04-04T16:00:00Z", 10 * 3600),
    ("Australia/Adelaide", "2026-10-03T16:30:00Z", "2026-04-04T16:30:00Z", 9 * 3600 + 1800),
    ("Pacific/Auckland", "2026-09-26T14:00:00Z", "2026-04-04T14:00:00Z", 12 * 3600),
  ])
  func pinnedTransitions(name: String, start: String, end: String, standard: Int) {
    let z = zone(name)
    let starts = utc(start)
    let ends = utc(end)
    #expect(z.offset(at: starts.addingTimeInterval(-1)) == standard)
    #expect(z.offset(at: starts) == standard + 3600)
    #expect(z.offset(at: ends.addingTimeInterval(-1)) == standard + 3600)
    #expect(z.offset(at: ends) == standard)
  }

  @Test func zonesWithoutDaylightSavingAndFixedOffsets() throws {
    #expect(zone("Asia/Tokyo").offset(at: utc("2026-07-01")) == 9 * 3600)
    #expect(zone("Asia/Kolkata").offset(at: utc("2026-01-01")) == 19800)
    #expect(zone("UTC+05:30").offset(at: utc("2026-07-01")) == 19800)
    #expect(zone("UTC-3").identifier == "UTC-03:00")
    #expect(zone("GMT").identifier == "UTC")
    #expect(zone("UTC+00:00").identifier == "UTC")
    for bad in ["UTC+15:00", "UTC+05:60", "Europe/Pariss", "", "UTC+", "Mars/Olympus"] {
      #expect(throws: TimeZoneError.self) { _ = try TimeZoneRule(identifier: bad) }
    }
    do { _ = try TimeZoneRule(identifier: "Europe/Pariss") } catch {
      #expect(error.suggestion == "Europe/Paris")
      #expect(error.description.contains("did you mean 'Europe/Paris'"))
    }
  }

  @Test func localDaysAcrossDaylightSavingChanges() {
    let paris = LocalCalendar(zone("Europe/Paris"))
    let spring = paris.date(year: 2026, month: 3, day: 29)
    #expect(spring == utc("2026-03-28T23:00:00Z"))
    #expect(paris.startOfNextDay(spring).timeIntervalSince(spring) == 23 * 3600)
    let autumn = paris.date(year: 2026, month: 10, day: 25)
    #expect(paris.startOfNextDay(autumn).timeIntervalSince(autumn) == 25 * 3600)
    // Adding days keeps the wall-clock time; adding hours adds elapsed time.
    #expect(paris.adding(CalendarInterval(days: 1), times: 1, to: spring) == paris.date(year: 2026, month: 3, day: 30))
    #expect(paris.adding(.seconds(86400), times: 1, to: spring) == utc("2026-03-29T23:00:00Z"))
    #expect(paris.local(utc("2026-03-29T12:00:00Z")).description == "2026-03-29T14:00:00")
    #expect(paris.startOfDay(utc("2026-03-29T12:00:00Z")) == spring)
  }

  @Test func skippedAndRepeatedWallTimes() {
    let newYork = LocalCalendar(zone("America/New_York"))
    // 02:30 does not exist on 2026-03-08: moved forward by the gap, to 03:30 EDT.
    #expect(newYork.date(year: 2026, month: 3, day: 8, secondsOfDay: 2.5 * 3600) == utc("2026-03-08T07:30:00Z"))
    // 01:30 happens twice on 2026-11-01: the first (EDT).
    #expect(newYork.date(year: 2026, month: 11, day: 1, secondsOfDay: 1.5 * 3600) == utc("2026-11-01T05:30:00Z"))
    #expect(newYork.date(localFieldsOf: utc("2026-01-05T08:30:00Z")) == utc("2026-01-05T13:30:00Z"))
  }

  @Test func monthsWeeksAndYearsFromAnAnchor() {
    let calendar = LocalCalendar.utc
    let anchor = utc("2026-01-31")
    let month = CalendarInterval(months: 1)
    #expect(calendar.adding(month, times: 1, to: anchor) == utc("2026-02-28"))
    #expect(calendar.adding(month, times: 2, to: anchor) == utc("2026-03-31"))
    #expect(calendar.adding(month, times: -2, to: anchor) == utc("2025-11-30"))
    #expect(calendar.adding(CalendarInterval(months: 12), times: 1, to: utc("2024-02-29")) == utc("2025-02-28"))
    #expect(calendar.index(of: utc("2026-02-28T12:00"), anchor: anchor, interval: month) == 1)
    #expect(calendar.index(of: utc("2026-02-27T12:00"), anchor: anchor, interval: month) == 0)
    #expect(calendar.index(of: utc("2025-12-01"), anchor: anchor, interval: month) == -2)  // from Nov 30
    #expect(calendar.index(of: utc("2025-12-31"), anchor: anchor, interval: month) == -1)
    // A week starts where the anchor says: a Monday here.
    let monday = utc("2026-01-05")
    #expect(TimeZoneRule.weekday(ofDay: Int64(monday.timeIntervalSince1970 / 86400)) == 1)
    let week = CalendarInterval(days: 7)
    #expect(calendar.index(of: utc("2026-01-11T23:59"), anchor: monday, interval: week) == 0)
    #expect(calendar.index(of: utc("2026-01-12"), anchor: monday, interval: week) == 1)
    #expect(LocalCalendar.daysIn(year: 2026, month: 2) == 28 && LocalCalendar.daysIn(year: 2000, month: 2) == 29)
    #expect(LocalCalendar.daysIn(year: 1900, month: 2) == 28 && LocalCalendar.daysIn(year: 2026, month: 4) == 30)
  }

  @Test func intervalsParseAndValidate() {
    #expect(CalendarInterval(parsing: "1mo") == CalendarInterval(months: 1))
    #expect(CalendarInterval(parsing: "1y") == CalendarInterval(months: 12))
    #expect(CalendarInterval(parsing: "2w") == CalendarInterval(days: 14))
    #expect(CalendarInterval(parsing: "1d") == CalendarInterval(days: 1))
    #expect(CalendarInterval(parsing: "1h30m") == .seconds(5400))
    #expect(CalendarInterval(parsing: "bogus") == nil)
    #expect(!CalendarInterval().isValid)
    #expect(!CalendarInterval(months: -1, days: 40).isValid)
    #expect(!CalendarInterval.seconds(.nan).isValid)
    #expect(CalendarInterval(days: 1).isValid && !CalendarInterval(days: 1).isFixedLength)
  }

  /// The rule table agrees with the machine's time-zone database for 2024–2027 (skipped for zones the machine
  /// does not know). The pinned transitions above keep results independent of the machine.
  @Test func agreesWithTheTimeZoneDatabaseForRecentYears() {
    for name in TimeZoneRule.knownIdentifiers {
      guard let foundation = TimeZone(identifier: name) else { continue }
      let rule = zone(name)
      var t = utc("2024-01-01").timeIntervalSince1970
      let end = utc("2028-01-01").timeIntervalSince1970
      while t < end {
        let date = Date(timeIntervalSince1970: t)
        if rule.offset(at: date) != foundation.secondsFromGMT(for: date) {
          Issue.record(
            "\(name) at \(formatDate(date)): \(rule.offset(at: date)) ≠ \(foundation.secondsFromGMT(for: date))")
          break
        }
        t += 6 * 3600 + 1800
      }
    }
  }
}
