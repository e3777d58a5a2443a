import HealthEngine
import HealthModel

/// Expectations about background delivery (behavior.md section B).
extension ParseState {
  /// `<App>'s background delivery of <type> is on [<frequency>]|off|stopped|waiting`.
  func parseBackgroundState(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    let type = try c.type()
    try c.expect("is")
    let t = try c.word("'on', 'off', 'stopped' or 'waiting'")
    var state: BackgroundState
    switch t.keyword {
    case "on":
      state = .on(nil)
      if let f = c.peek {
        guard let frequency = UpdateFrequency(name: f.keyword) else {
          let names = UpdateFrequency.allCases.map(\.description)
          throw c.error(.unknownStatus(f.text, valid: names, suggestion: suggest(f.text, from: names)), at: f)
        }
        state = .on(frequency)
        c.index += 1
      }
    case "off": state = .off
    case "stopped": state = .stopped
    case "waiting": state = .waiting
    default:
      let names = ["on", "off", "stopped", "waiting"]
      throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
    }
    try c.finish()
    return .backgroundState(subject.devices, app: subject.app.name, type, state)
  }

  /// `<App>'s background deliveries of <type>: <n> woken, <n> completed, <n> missed`.
  func parseBackgroundCounts(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    let type = try c.type()
    try c.expect(":")
    var counts: [String: Int] = [:]
    for word in ["woken", "completed", "missed"] {
      counts[word] = try c.integer()
      try c.expect(word)
    }
    try c.finish()
    return .backgroundCounts(
      subject.devices, app: subject.app.name, type, woken: counts["woken"]!, completed: counts["completed"]!,
      missed: counts["missed"]!)
  }
}
