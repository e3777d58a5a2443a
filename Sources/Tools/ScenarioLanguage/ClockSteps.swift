import FoundationEssentials
import HealthEngine
import HealthModel

/// The virtual clocks and time zones: `clock: set|advance|time zone …`, `travel <devices> to <zone>`.
extension ParseState {
  /// `clock: set <time>`, `clock: time zone <zone> [on <devices>]`, `clock: advance <duration>`.
  func parseClock(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    try c.expect(":")
    if c.take("set") {
      let t = try c.word("a date")
      guard let d = parseDate(t.text) else { throw c.error(.invalidDate(t.text), at: t) }
      try c.finish()
      return .clockSet(t.text.hasSuffix("Z") ? .absolute(d) : .local(d))
    }
    if c.take("time", "zone") {
      let zone = try c.timeZone()
      let devices: Devices = c.take("on") ? try c.devices() : .both
      try c.finish()
      return .timeZone(devices, zone)
    }
    try c.expect("advance", what: "'set', 'advance' or 'time zone'")
    let d = try c.duration()
    try c.finish()
    return .clockAdvance(d)
  }

  /// `travel <devices> to <zone>`: the devices' time zone.
  func parseTravel(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let devices = try c.devices()
    try c.expect("to")
    let zone = try c.timeZone()
    try c.finish()
    return .timeZone(devices, zone)
  }
}
