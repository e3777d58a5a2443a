import HealthEngine
import HealthModel

/// `policy <devices>: …`: one row per policy, chosen by its word after the colon.
extension ParseState {
  /// Reads a policy's value after its word, for the devices before the colon.
  typealias PolicyRule = Rule<Devices, StepKind>

  /// The policies, by their word.
  static let policies: [PolicyRule] = [
    PolicyRule(["reprompt"]) { _, c, devices throws(Diagnostic) in try ParseState.repromptPolicy(&c, devices) },
    PolicyRule(["authorization"]) { _, c, devices throws(Diagnostic) in
      try ParseState.authorizationPolicy(&c, devices)
    },
    PolicyRule(["settings"]) { _, c, devices throws(Diagnostic) in try ParseState.watchSettingsPolicy(&c, devices) },
    PolicyRule(["units"]) { _, c, devices throws(Diagnostic) in try ParseState.unitsPolicy(&c, devices) },
    PolicyRule(["background"]) { _, c, devices throws(Diagnostic) in try ParseState.backgroundPolicy(&c, devices) },
    PolicyRule(["retention"]) { _, c, devices throws(Diagnostic) in try ParseState.retentionPolicy(&c, devices) },
  ]

  /// `policy <devices>: <policy> <value>`.
  mutating func parsePolicy(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let devices = try c.devices()
    try c.expect(":")
    guard let parse = c.take(firstOf: Self.policies) else {
      throw c.error(
        .expected("'reprompt', 'retention', 'authorization', 'settings', 'units' or 'background'", found: c.peek?.text))
    }
    return try parse(&self, &c, devices)
  }

  /// `reprompt standard|strict`.
  static func repromptPolicy(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> StepKind {
    let t = try c.word("'standard' or 'strict'")
    guard let policy = RepromptPolicy(rawValue: t.keyword) else {
      throw c.error(
        .unknownStatus(
          t.text, valid: ["standard", "strict"], suggestion: suggest(t.text, from: ["standard", "strict"])), at: t)
    }
    try c.finish()
    return .policy(devices, reprompt: policy, retention: nil)
  }

  /// `authorization independent|companion` (behavior.md A18).
  static func authorizationPolicy(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> StepKind {
    let models = AuthorizationModel.allCases.map(\.description)
    let t = try c.word("'independent' or 'companion'")
    guard let model = AuthorizationModel.allCases.first(where: { $0.description == t.keyword }) else {
      throw c.error(.unknownStatus(t.text, valid: models, suggestion: suggest(t.text, from: models)), at: t)
    }
    try c.finish()
    return .policy(devices, reprompt: nil, retention: nil, authorization: model)
  }

  /// `settings on-watch|iphone-only` (behavior.md W2).
  static func watchSettingsPolicy(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> StepKind {
    let models = WatchSettingsModel.allCases.map(\.description)
    let t = try c.word("'on-watch' or 'iphone-only'")
    guard let model = WatchSettingsModel.allCases.first(where: { $0.description == t.keyword }) else {
      throw c.error(.unknownStatus(t.text, valid: models, suggestion: suggest(t.text, from: models)), at: t)
    }
    try c.finish()
    return .policy(devices, reprompt: nil, retention: nil, watchSettings: model)
  }

  /// `units us|metric|uk` (behavior.md R6).
  static func unitsPolicy(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> StepKind {
    let names = UnitLocale.allCases.map(\.description)
    let t = try c.word("'us', 'metric' or 'uk'")
    guard let units = UnitLocale(name: t.keyword) else {
      throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
    }
    try c.finish()
    return .policy(devices, reprompt: nil, retention: nil, units: units)
  }

  /// `background window <duration> retry <duration>`, each at most a day (behavior.md B5).
  static func backgroundPolicy(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> StepKind {
    try c.expect("window")
    let window = try c.duration()
    try c.expect("retry")
    let retry = try c.duration()
    try c.finish()
    let model = BackgroundDeliveryModel(responseWindow: window, retryDelay: retry)
    guard model.isValid else {
      throw c.error(.expected("durations of at most 1 day", found: "\(formatDuration(window))"))
    }
    return .policy(devices, reprompt: nil, retention: nil, background: model)
  }

  /// `retention <duration>|none`.
  static func retentionPolicy(_ c: inout Cursor, _ devices: Devices) throws(Diagnostic) -> StepKind {
    let retention: Double? = c.take("none") ? nil : try c.duration()
    try c.finish()
    return .policy(devices, reprompt: nil, retention: .some(retention))
  }
}
