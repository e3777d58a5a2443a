import FoundationEssentials
import HealthEngine
import HealthModel

/// `<device>: <App> starts|prepares a workout session …`, `<verb> workout session <name>`, `finishes workout session
/// <name> [as <workout>]`, the app's run state (`goes to the background`, …), and the world's `<device>: the
/// wearer's effort becomes …` / `watch: the watch is taken off|put back on` (docs/scenario-language.md, "Workout
/// sessions"; behavior.md section X).
extension ParseState {
  /// The app's session verbs, rows of ``appVerbs``.
  static let sessionVerbs: [AppVerbRule] = [
    AppVerbRule(["starts"], ["start"]) { s, c, call throws(Diagnostic) in
      try s.parseStartSession(&c, call, prepare: false)
    },
    AppVerbRule(["prepares"], ["prepare"]) { s, c, call throws(Diagnostic) in
      try s.parseStartSession(&c, call, prepare: true)
    },
    AppVerbRule(["pauses"], ["pause"]) { s, c, call throws(Diagnostic) in try s.parseSessionCall(&c, call, .pause) },
    AppVerbRule(["resumes"], ["resume"]) { s, c, call throws(Diagnostic) in
      try s.parseSessionCall(&c, call, .resume)
    },
    AppVerbRule(["stops"], ["stop"]) { s, c, call throws(Diagnostic) in
      guard c.take("mirroring") else { return try s.parseSessionCall(&c, call, .stop) }
      try c.expect("workout", "session", what: "'workout session <name>'")
      let name = try c.sessionName()
      try c.finish()
      return .session(call.device, app: call.app.name, .stopMirroring(name))
    },
    AppVerbRule(["mirrors"], ["mirror"]) { s, c, call throws(Diagnostic) in
      try c.expect("workout", "session", what: "'workout session <name>'")
      let name = try c.sessionName()
      let peer = "\(call.device.peer)"
      try c.expect("to", "the", peer, what: "'to the \(peer)' (the paired device)")
      try c.finish()
      return .session(call.device, app: call.app.name, .mirror(name))
    },
    AppVerbRule(["sends"], ["send"]) { s, c, call throws(Diagnostic) in
      let payload = try c.remotePayload()
      try c.expect("over", "workout", "session", what: "'over workout session <name>'")
      let name = try c.sessionName()
      try c.finish()
      return .session(call.device, app: call.app.name, .send(name, payload))
    },
    AppVerbRule(["ends"], ["end"]) { s, c, call throws(Diagnostic) in try s.parseSessionCall(&c, call, .end) },
    AppVerbRule(["discards"], ["discard"]) { s, c, call throws(Diagnostic) in
      try s.parseSessionCall(&c, call, .discard)
    },
    AppVerbRule(["finishes"], ["finish"]) { s, c, call throws(Diagnostic) in try s.parseFinishSession(&c, call) },
    AppVerbRule(["goes"]) { _, c, call throws(Diagnostic) in
      try c.expect("to", "the", "background", what: "'to the background'")
      try c.finish()
      return .session(call.device, app: call.app.name, .runState(.background))
    },
    AppVerbRule(["comes"]) { _, c, call throws(Diagnostic) in
      try c.expect("to", "the", "foreground", what: "'to the foreground'")
      try c.finish()
      return .session(call.device, app: call.app.name, .runState(.foreground))
    },
    AppVerbRule(["is"]) { _, c, call throws(Diagnostic) in
      let state: AppRunState
      if c.take("suspended") {
        state = .suspended
      } else if c.take("killed") {
        state = .notRunning
      } else {
        throw c.error(.expected("'suspended' or 'killed'", found: c.peek?.text))
      }
      try c.finish()
      return .session(call.device, app: call.app.name, .runState(state))
    },
  ]

  /// `starts a workout session <activity> [indoor|outdoor] [as <name>]` (or `prepares …`), and `starts workout
  /// session <name>` of a prepared session.
  mutating func parseStartSession(_ c: inout Cursor, _ call: AppCall, prepare: Bool) throws(Diagnostic) -> StepKind {
    if !prepare, c.take("the", "watch", "app") {
      try c.expect("for", "a", "workout", what: "'for a workout <activity>'")
      var spec = SessionSpec(activity: try c.activityType())
      if c.take("indoor") {
        spec.location = .indoor
      } else if c.take("outdoor") {
        spec.location = .outdoor
      }
      guard call.device == .phone else {
        throw c.error(
          .expected("'phone:' (the phone starts the watch app)", found: "\(call.device)"), at: c.line.tokens[0])
      }
      try c.finish()
      return .session(call.device, app: call.app.name, .startWatchApp(spec))
    }
    if !prepare, c.take("workout", "session") {
      let name = try c.sessionName()
      try c.finish()
      return .session(call.device, app: call.app.name, .call(name, .start))
    }
    try c.expect(
      "a", "workout", "session",
      what: prepare ? "'a workout session'" : "'a workout session', 'workout session <name>' or 'the watch app'")
    var spec = SessionSpec(activity: try c.activityType())
    if c.take("indoor") {
      spec.location = .indoor
    } else if c.take("outdoor") {
      spec.location = .outdoor
    }
    if c.take("as") {
      let token = c.peek
      let name = try c.word("a session name").text
      if sessionNames.contains(name) {
        throw c.error(.expected("a new session name ('\(name)' names a session already)", found: name), at: token)
      }
      sessionNames.insert(name)
      spec.name = name
    }
    try c.finish()
    return .session(call.device, app: call.app.name, prepare ? .prepare(spec) : .start(spec))
  }

  /// `<verb> workout session <name>`.
  func parseSessionCall(_ c: inout Cursor, _ call: AppCall, _ verb: SessionVerb) throws(Diagnostic) -> StepKind {
    try c.expect("workout", "session", what: "'workout session <name>'")
    let name = try c.sessionName()
    try c.finish()
    return .session(call.device, app: call.app.name, .call(name, verb))
  }

  /// `finishes workout session <name> [as <workout>]`.
  mutating func parseFinishSession(_ c: inout Cursor, _ call: AppCall) throws(Diagnostic) -> StepKind {
    try c.expect("workout", "session", what: "'workout session <name>'")
    let name = try c.sessionName()
    var workout: String?
    if c.take("as") { workout = try defineWorkoutName(&c) }
    try c.finish()
    return .session(call.device, app: call.app.name, .finish(name, workout: workout))
  }

  /// `the wearer's effort becomes <effort>`, `the watch is taken off`, `the watch is put back on` after
  /// `<device>:`.
  func parseWearerStep(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    try c.expect("the")
    if c.take("wearer", "records") { return try parseRecordECG(&c, device: device) }
    if c.take("provider", "sends") { return try parseProviderSends(&c, device: device) }
    if c.take("wearer's", "effort", "becomes") || c.take("wearer’s", "effort", "becomes") {
      let effort = try c.effort()
      try c.finish()
      return .wearer(device, .effort(effort))
    }
    guard c.take("watch", "is") else {
      throw c.error(
        .expected(
          "'wearer records an ECG', 'wearer's effort becomes' or 'watch is taken off|put back on'",
          found: c.peek?.text))
    }
    let on: Bool
    if c.take("taken", "off") {
      on = false
    } else if c.take("put", "back", "on") || c.take("put", "on") {
      on = true
    } else {
      throw c.error(.expected("'taken off' or 'put back on'", found: c.peek?.text))
    }
    guard device == .watch else {
      throw c.error(
        .expected("'watch:' (only the watch is worn on the wrist)", found: "\(device)"), at: c.line.tokens[0])
    }
    try c.finish()
    return .wearer(device, .wrist(on: on))
  }
}

extension Cursor {
  /// A session's name, given earlier with `as` on a `starts|prepares a workout session` step.
  mutating func sessionName() throws(Diagnostic) -> String {
    let t = try word("a workout session's name")
    guard state.sessionNames.contains(t.text) else {
      throw error(.unknownSession(t.text, suggestion: suggest(t.text, from: state.sessionNames.sorted())), at: t)
    }
    return t.text
  }

  /// `"<text>"`, `<n> bytes` or `<n> KB`: what `sendToRemoteWorkoutSession(data:)` sends.
  mutating func remotePayload() throws(Diagnostic) -> RemotePayload {
    guard let t = peek else { throw error(.expected("a quoted message, '<n> bytes' or '<n> KB'", found: nil)) }
    if t.quoted {
      index += 1
      return .text(t.text)
    }
    let count = try integer()
    guard count > 0 else { throw error(.invalidNumber(String(count)), at: t) }
    let bytes: Int
    if take("bytes") || take("byte") {
      bytes = count
    } else if take("KB") || take("kb") {
      bytes = count <= Int.max / 1024 ? count * 1024 : Int.max
    } else {
      throw error(.expected("'bytes' or 'KB'", found: peek?.text))
    }
    // Far over the channel's 100 KB per 10 s: a larger message could only fail, and would be allocated first.
    guard bytes <= RemotePayload.largest else {
      throw error(.expected("a message of at most 1024 KB", found: t.text), at: t)
    }
    return .bytes(bytes)
  }

  /// `rest|easy|moderate|hard|maximal` or `pace <m>:<ss> min/km`.
  mutating func effort() throws(Diagnostic) -> Effort {
    let names = ["rest", "easy", "moderate", "hard", "maximal", "pace"]
    if take("pace") {
      let t = try word("a pace such as 5:30")
      let parts = t.text.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count == 2, let minutes = Int(parts[0]), let seconds = Int(parts[1]), parts[1].count == 2,
        (0..<60).contains(seconds), minutes >= 1, minutes < 60
      else { throw error(.expected("a pace such as 5:30 (minutes:seconds per kilometre)", found: t.text), at: t) }
      try expect("min/km")
      return .pace(minutesPerKilometre: Double(minutes) + Double(seconds) / 60)
    }
    let t = try word("an effort (rest, easy, moderate, hard, maximal or pace <m:ss> min/km)")
    guard let effort = Effort(name: t.keyword) else {
      throw error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
    }
    return effort
  }
}
