import FoundationEssentials
import HealthModel
import ScenarioLanguage

/// Clock steps: both virtual clocks set or advanced together, each device's time zone.
extension RunContext {
  /// `clock: set <time>` (a time without a zone is read in the phone's time zone).
  mutating func setClock(_ time: TimeSpec) throws {
    now = resolve(time)
    try setClocks(now)
  }

  /// `clock: advance <duration>`.
  mutating func advanceClock(_ seconds: Double) throws {
    now = now.addingTimeInterval(seconds)
    try setClocks(now)
  }

  /// `clock: time zone <zone> [on <devices>]`, `travel <devices> to <zone>`: later times of day and local dates on
  /// the devices are read in the zone.
  mutating func setTimeZone(_ devices: Devices, _ zone: TimeZoneRule) throws {
    for device in devices.list {
      try client(device).setTimeZone(zone)
      zones[device] = zone
    }
  }
}
