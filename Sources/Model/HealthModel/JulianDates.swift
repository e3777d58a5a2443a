// Dates as Apple's Foundation writes them: ICU's Gregorian calendar switches to the Julian calendar before the
// Gregorian reform (1582-10-15), so `Date.distantPast` (-63 114 076 800 s from 2001) prints as
// `0001-01-01T00:00:00Z`, where the proleptic Gregorian calendar would say 0000-12-30 (docs/behavior.md J5).

/// The first day of the Gregorian calendar (1582-10-15), in days since 1970-01-01.
package let gregorianReformDay: Int64 = -141_427

/// The (year, month, day) a day number counted from 1970-01-01 is written as: Gregorian from the reform on, Julian
/// before it.
package func displayCivilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
  days >= gregorianReformDay ? civilFromDays(days) : julianCivilFromDays(days)
}

/// The day number (from 1970-01-01) of a written date: Gregorian when that falls on or after the reform, else
/// Julian (the ten days the reform skipped read as Julian dates, as a lenient calendar does).
package func displayDaysFromCivil(_ y: Int64, _ m: Int64, _ d: Int64) -> Int64 {
  let gregorian = daysFromCivil(y, m, d)
  return gregorian >= gregorianReformDay ? gregorian : julianDaysFromCivil(y, m, d)
}

/// Days since 1970-01-01 of a Julian calendar date (years from -4799).
package func julianDaysFromCivil(_ y: Int64, _ m: Int64, _ d: Int64) -> Int64 {
  let a = (14 - m) / 12
  let year = y + 4800 - a
  let month = m + 12 * a - 3
  let julianDay = d + (153 * month + 2) / 5 + 365 * year + year / 4 - 32083
  return julianDay - 2_440_588
}

/// The Julian calendar (year, month, day) of a day number counted from 1970-01-01.
package func julianCivilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
  let c = days + 2_440_588 + 32082
  let d = (4 * c + 3) / 1461
  let e = c - 1461 * d / 4
  let m = (5 * e + 2) / 153
  let day = e - (153 * m + 2) / 5 + 1
  let month = m + 3 - 12 * (m / 10)
  return (d - 4800 + m / 10, month, day)
}
