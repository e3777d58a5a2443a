import HealthEngine
import HealthModel

/// `user on <devices>: …`: the user's actions, one row per action.
extension ParseState {
  /// Reads a user action after its words, on the device.
  typealias UserActionRule = Rule<DeviceKind, StepKind>

  /// The user's actions, tried in order.
  static let userActions: [UserActionRule] = [
    UserActionRule(["allows", "all"], ["allow", "all"], ["taps", "allow"]) { s, c, device throws(Diagnostic) in
      try s.parseAnswer(&c, device: device, .allowAll)
    },
    UserActionRule(["doesn't", "allow"], ["does", "not", "allow"], ["taps", "don't", "allow"], ["denies", "all"]) {
      s, c, device throws(Diagnostic) in try s.parseAnswer(&c, device: device, .denyAll)
    },
    UserActionRule(["cancels"], ["dismisses"]) { s, c, device throws(Diagnostic) in
      _ = c.take("the", "sheet")
      return try s.parseAnswer(&c, device: device, .cancel)
    },
    // Home, the app switcher, a call: devices dismiss the sheet (behavior.md A17).
    UserActionRule(["leaves", "the", "app"], ["leaves"]) { s, c, device throws(Diagnostic) in
      try s.parseAnswer(&c, device: device, .leaveApp)
    },
    UserActionRule(["sheet", "fails", "to", "present"]) { s, c, device throws(Diagnostic) in
      let silent = c.take("silently")
      return try s.parseAnswer(&c, device: device, .failToPresent(silent ? .silent : .error))
    },
    UserActionRule(["allows"], ["allow"]) { s, c, device throws(Diagnostic) in
      let permissions = try c.permissions()
      return try s.parseAnswer(
        &c, device: device, .choices(Dictionary(uniqueKeysWithValues: permissions.map { ($0, true) })))
    },
    UserActionRule(["adds", "medication"]) { s, c, device throws(Diagnostic) in
      try s.parseAddMedication(&c, device: device)
    },
    UserActionRule(["logs", "a", "dose", "of"]) { s, c, device throws(Diagnostic) in
      try s.parseLogDose(&c, device: device)
    },
    UserActionRule(["turns", "on"]) { s, c, device throws(Diagnostic) in try s.parseTurnOn(&c, device: device) },
    UserActionRule(["in", "health"]) { s, c, device throws(Diagnostic) in try s.parseSourceOrder(&c, device: device) },
    UserActionRule(["sets"], ["enters"]) { s, c, device throws(Diagnostic) in
      try s.parseCharacteristicSetting(&c, device: device)
    },
    UserActionRule(["prefers"]) { s, c, device throws(Diagnostic) in try s.parsePreferredUnit(&c, device: device) },
    UserActionRule(["in", "settings"]) { s, c, device throws(Diagnostic) in
      try s.parseSettingsChange(&c, device: device, watchApp: false)
    },
    UserActionRule(["in", "the", "watch", "app"]) { s, c, device throws(Diagnostic) in
      try s.parseSettingsChange(&c, device: device, watchApp: true)
    },
  ]

  /// `user on <devices>: <action>`; on both, the action on the phone, then on the watch.
  mutating func parseUserStep(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    try c.expect("on")
    let devices = try c.devices()
    try c.expect(":")
    guard case .one(let device) = devices else {
      var watchCursor = c
      let phone = try parseUserAction(&c, device: .phone)
      let watch = try parseUserAction(&watchCursor, device: .watch)
      return .onBoth(phone: phone, watch: watch)
    }
    return try parseUserAction(&c, device: device)
  }

  /// The action after `user on <device>:`: the first of ``userActions`` the line continues with.
  mutating func parseUserAction(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    guard let parse = c.take(firstOf: Self.userActions) else {
      throw c.error(
        .expected(
          "'allows all', 'doesn't allow', 'cancels', 'leaves the app', 'sheet fails to present', "
            + "'allows <permissions>', 'turns on <names>', 'sets', 'prefers', 'in Settings', 'in the Watch app' or 'in Health'",
          found: c.peek?.text))
    }
    return try parse(&self, &c, device)
  }

  /// The end of an answer to a sheet: `[for <App>]`, the app installed on the device.
  func parseAnswer(_ c: inout Cursor, device: DeviceKind, _ answer: PromptAnswer) throws(Diagnostic) -> StepKind {
    let app = c.take("for") ? try c.app(installedOn: [device]).name : nil
    try c.finish()
    return .answer(device, answer, app: app)
  }

  /// `in Health orders <type> sources <App> [on <device>]…` / `… sources by default` (the phone only).
  func parseSourceOrder(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    guard device == .phone else { throw c.error(.phoneOnly("the Health app's data sources")) }
    try c.expect("orders", what: "'orders <type> sources …'")
    let type = try c.type()
    try c.expect("sources")
    if c.take("by", "default") {
      try c.finish()
      return .sourceOrder(device, type, [])
    }
    var sources: [SourceSpec] = []
    repeat {
      let app = try c.app()
      let on: DeviceKind? = c.take("on") ? try c.device() : nil
      sources.append(SourceSpec(app: app.name, device: on))
    } while c.peek != nil
    return .sourceOrder(device, type, sources)
  }

  /// `sets <characteristic> [to] <value>|notSet`: the Health app's health details (behavior.md C2).
  func parseCharacteristicSetting(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    let type = try c.characteristicType()
    _ = c.take("to")
    let value = try c.characteristicValue(type)
    try c.finish()
    return .userSetting(device, .characteristic(type, value))
  }

  /// `prefers <unit>|the default unit for <type>`: the Health app's unit for a quantity type (behavior.md R6).
  func parsePreferredUnit(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    var unitText: String?
    if !(c.take("the", "default", "unit") || c.take("default")) {
      let t = try c.word("a unit such as lb")
      c.index -= 1
      _ = try c.unit(for: nil)
      unitText = t.text
    }
    try c.expect("for")
    let typeToken = c.peek
    let type = try c.type()
    guard let canonical = type.descriptor.canonicalUnit else {
      throw c.error(.expected("a quantity type", found: type.name), at: typeToken)
    }
    if let unitText, let unit = try? HealthUnit(parsing: unitText), !unit.isCompatible(with: canonical) {
      throw c.error(.incompatibleUnit(unit: unitText, type: type.name), at: typeToken)
    }
    try c.finish()
    return .userSetting(device, .preferredUnit(type, unitText))
  }

  /// `in Settings …` / `in the Watch app …` (the phone only): `turns on|off <share|read> <type> for <App>`, `turns
  /// off all for <App>`, `resets [for] <App>`.
  func parseSettingsChange(_ c: inout Cursor, device: DeviceKind, watchApp: Bool) throws(Diagnostic) -> StepKind {
    if watchApp && device != .phone { throw c.error(.phoneOnly("the iPhone's Watch app")) }
    let change: SettingsChange
    if c.take("resets") {
      _ = c.take("for")
      let app = try c.app()
      try c.finish()
      return watchApp ? .watchSettings(app: app.name, .reset) : .settings(device, app: app.name, .reset)
    } else if c.take("turns", "off", "all") {
      change = .turnAllOff
    } else {
      try c.expect("turns", what: "'turns on', 'turns off', 'turns off all' or 'resets'")
      let on: Bool
      if c.take("on") {
        on = true
      } else if c.take("off") {
        on = false
      } else {
        throw c.error(.expected("'on' or 'off'", found: c.peek?.text))
      }
      let direction = try c.direction()
      let type = try c.type()
      change = .set(Permission(type, direction), on: on)
    }
    try c.expect("for")
    let app = try c.app()
    try c.finish()
    return watchApp ? .watchSettings(app: app.name, change) : .settings(device, app: app.name, change)
  }
}
