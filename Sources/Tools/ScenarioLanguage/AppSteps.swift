import HealthEngine
import HealthModel

/// The app a call is made as, on its device.
struct AppCall {
  /// The device the app runs on.
  let device: DeviceKind
  /// The app, installed on the device.
  let app: AppDeclaration
}

/// `<device>: <App> <verb> …`: the app's calls, one row per verb.
extension ParseState {
  /// Reads an app call after its verb, for the app on the device.
  typealias AppVerbRule = Rule<AppCall, StepKind>

  /// The app's calls, by verb (the first word of each row is the one suggested for an unknown verb): its HealthKit
  /// calls, then its workout sessions' (SessionSteps.swift).
  static let appVerbs: [AppVerbRule] = callVerbs + sessionVerbs

  /// The app's HealthKit calls other than sessions, by verb.
  static let callVerbs: [AppVerbRule] = [
    AppVerbRule(["requests", "from", "an", "extension"]) { s, c, call throws(Diagnostic) in
      guard
        case .request(let device, let app, let share, let read) = try s.parseRequest(
          &c, device: call.device, app: call.app)
      else { preconditionFailure("parseRequest returns a request") }
      return .requestFromExtension(device, app: app, share: share, read: read)
    },
    AppVerbRule(["requests"], ["request"]) { s, c, call throws(Diagnostic) in
      try s.parseRequest(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["handles", "authorization", "for", "its", "extensions"]) { s, c, call throws(Diagnostic) in
      try c.finish()
      return .handleExtensions(call.device, app: call.app.name)
    },
    AppVerbRule(["saves"], ["save"]) { s, c, call throws(Diagnostic) in
      try s.parseSave(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["logs"], ["log"]) { s, c, call throws(Diagnostic) in
      ParseState.isAssessmentKind(c)
        ? try s.parseLogAssessment(&c, device: call.device, app: call.app)
        : try s.parseLogStateOfMind(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["asks"], ["ask"]) { s, c, call throws(Diagnostic) in
      try s.parseAskToRead(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["resaves"], ["resave"]) { s, c, call throws(Diagnostic) in
      try s.parseResave(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["adds"], ["add"]) { s, c, call throws(Diagnostic) in
      try s.parseAddToWorkout(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["deletes"], ["delete"]) { s, c, call throws(Diagnostic) in
      try s.parseDelete(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["enables"]) { s, c, call throws(Diagnostic) in
      try s.parseEnableBackground(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["disables"]) { s, c, call throws(Diagnostic) in
      try s.parseDisableBackground(&c, device: call.device, app: call.app)
    },
    AppVerbRule(["completes"]) { s, c, call throws(Diagnostic) in
      try s.parseCompleteBackground(&c, device: call.device, app: call.app)
    },
  ]

  /// The verbs an unknown one is compared with, in table order.
  static let appVerbWords = appVerbs.compactMap(\.firstWord)

  /// `<device>: <App> <verb> …`, the app installed on the device; `<device>: the …` is the world acting on the
  /// wearer (SessionSteps.swift).
  mutating func parseAppStep(_ c: inout Cursor, _ step: StepLine) throws(Diagnostic) -> StepKind {
    let device = DeviceKind(name: step.first.keyword)!
    try c.expect(":")
    if c.peek?.keyword == "the" { return try parseWearerStep(&c, device: device) }
    let app = try c.app(installedOn: [device])
    guard let parse = c.take(firstOf: Self.appVerbs) else {
      let verb = try c.word(choices(Self.appVerbWords))
      throw c.error(.unknownStep(verb.text, suggestion: suggest(verb.text, from: Self.appVerbWords)), at: verb)
    }
    return try parse(&self, &c, AppCall(device: device, app: app))
  }

  /// `requests [share <types>] [read <types>]` (no types: the app's declared ones, when the step runs).
  func parseRequest(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    var share: [SampleType]?
    var read: [SampleType]?
    while !c.atEnd {
      if c.take("share") {
        share = try c.types(stoppingAt: ["read", "share"])
      } else if c.take("read") {
        read = try c.types(stoppingAt: ["read", "share"])
      } else {
        throw c.error(.expected("'share' or 'read'", found: c.peek?.text))
      }
    }
    if share == nil && read == nil { return .request(device, app: app.name, share: nil, read: nil) }
    return .request(device, app: app.name, share: share ?? [], read: read ?? [])
  }

  /// `resaves <name> [as <value> [<unit>]]`: the same identifier, with another value when given (a sync conflict
  /// when both devices save it).
  func parseResave(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    let name = try c.sampleName(defined: false)
    var changed: SampleInput.Value?
    if c.take("as") {
      let valueToken = try c.word("a value")
      guard let number = Double(valueToken.text), number.isFinite else {
        throw c.error(.invalidNumber(valueToken.text), at: valueToken)
      }
      if c.atEnd {
        guard let raw = Int(exactly: number) else { throw c.error(.invalidNumber(valueToken.text), at: valueToken) }
        changed = .category(raw)
      } else {
        let unitToken = c.peek!
        _ = try c.unit(for: nil)
        changed = .quantity(number, unit: unitToken.text)
      }
    }
    try c.finish()
    return .resave(device, app: app.name, name: name, changedTo: changed)
  }

  /// `deletes all <type> [range]`, `deletes workout <name>` or `deletes <name>…`.
  func parseDelete(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    if c.take("workout") {
      let workout = try c.workoutName()
      try c.finish()
      return .deleteWorkout(device, app: app.name, workout: workout)
    }
    if c.take("all") {
      let type = try c.type()
      let range = try rangeSpec(&c)
      try c.finish()
      return .deleteAll(device, app: app.name, type, range: range)
    }
    var names: [String] = []
    repeat {
      if c.take("and") { continue }
      let token = c.peek
      let name = try c.sampleName(defined: false)
      if workoutNames.contains(name) {
        throw c.error(
          .expected("a sample's name ('deletes workout \(name)' deletes a workout)", found: name), at: token)
      }
      names.append(name)
    } while !c.atEnd
    return .delete(device, app: app.name, names: names)
  }

  /// `enables background delivery of <type> [immediate|hourly|daily|weekly]` (behavior.md B1–B3).
  func parseEnableBackground(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    try c.expect("background", "delivery", "of")
    let type = try c.type()
    var frequency = UpdateFrequency.immediate
    if let t = c.peek {
      guard let parsed = UpdateFrequency(name: t.keyword) else {
        let names = UpdateFrequency.allCases.map(\.description)
        throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
      }
      frequency = parsed
      c.index += 1
    }
    try c.finish()
    return .background(device, app: app.name, .enable(type, frequency))
  }

  /// `disables background delivery of <type>` / `disables all background delivery`.
  func parseDisableBackground(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    if c.take("all", "background", "delivery") {
      try c.finish()
      return .background(device, app: app.name, .disable(nil))
    }
    try c.expect("background", "delivery", "of")
    let type = try c.type()
    try c.finish()
    return .background(device, app: app.name, .disable(type))
  }

  /// `completes [the] background delivery of <type>`.
  func parseCompleteBackground(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    _ = c.take("the")
    try c.expect("background", "delivery", "of")
    let type = try c.type()
    try c.finish()
    return .background(device, app: app.name, .complete(type))
  }
}
