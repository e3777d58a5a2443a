import FoundationEssentials
import HealthEngine
import HealthModel

/// Expectations about workout sessions: a named session's state, what its delegate heard, its live builder's elapsed
/// time, statistics, collected samples and phase, and recovery (docs/scenario-language.md, "Workout sessions";
/// behavior.md section X).
extension ParseState {
  /// `<App>'s workout session <name> is <state> | is primary|mirrored | heard … | received … | elapsed time is
  /// <duration> | collected <n> <type> samples | <statistic> of <type> is <value> <unit> | has no <type> statistics
  /// | builder is <phase>`.
  func parseSessionCheck(_ c: inout Cursor, _ on: PossessiveExpectation) throws(Diagnostic) -> Expectation {
    let name = try c.sessionName()
    let check: SessionCheck
    if c.take("builder", "is") {
      let t = try c.word("a builder phase")
      guard let phase = LiveWorkoutBuilder.Phase(word: t.text) else {
        let names = LiveWorkoutBuilder.Phase.names.map(\.1)
        throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
      }
      check = .builder(phase)
    } else if c.take("is") {
      if c.take("primary") {
        check = .type(.primary)
      } else if c.take("mirrored") {
        check = .type(.mirrored)
      } else {
        check = .state(try c.sessionState())
      }
    } else if c.take("received") {
      var payloads: [RemotePayload] = []
      if !c.take("nothing") {
        repeat { payloads.append(try c.remotePayload()) } while c.take("then")
      }
      check = .received(payloads)
    } else if c.take("heard") {
      check = .heard(try heardCallbacks(&c))
    } else if c.take("elapsed", "time", "is") {
      check = .elapsed(try c.duration())
    } else if c.take("collected") {
      let count: Int
      if c.take("no") {
        count = 0
      } else {
        let t = c.peek
        count = try c.integer()
        guard count >= 0 else { throw c.error(.invalidNumber(String(count)), at: t) }
      }
      let type = try c.type()
      guard c.take("samples") || c.take("sample") else { throw c.error(.expected("'samples'", found: c.peek?.text)) }
      check = .collected(type, count)
    } else if c.take("has", "no") {
      let type = try c.type()
      guard c.take("statistics") || c.take("statistic") else {
        throw c.error(.expected("'statistics'", found: c.peek?.text))
      }
      check = .noStatistic(type)
    } else if let t = c.peek, StatisticKind(word: t.keyword) != nil {
      let (kind, type, value, unit) = try workoutStatistic(&c)
      check = .statistic(kind, type, value: value, unit: unit)
    } else {
      throw c.error(
        .expected(
          "'is', 'heard', 'received', 'elapsed time is', 'collected', 'has no', 'builder is' or a statistic such as "
            + "'average of'",
          found: c.peek?.text))
    }
    try c.finish()
    return .session(on.device, app: on.subject.app.name, name: name, check)
  }

  /// `nothing`, or callbacks separated by `then` (or commas): a state name, `didFailWithError <code>`, `<event type>
  /// event`, `didBeginActivity`, `didEndActivity`, `didReceiveData`, `didDisconnect`.
  func heardCallbacks(_ c: inout Cursor) throws(Diagnostic) -> [HeardCallback] {
    if c.take("nothing") { return [] }
    var heard: [HeardCallback] = []
    repeat {
      if c.take("didFailWithError") {
        heard.append(.failed(try errorCode(&c)))
      } else if c.take("didBeginActivity") {
        heard.append(.beganActivity)
      } else if c.take("didEndActivity") {
        heard.append(.endedActivity)
      } else if c.take("didReceiveData") {
        heard.append(.receivedData)
      } else if c.take("didDisconnect") {
        heard.append(.disconnected)
      } else if let t = c.peek, let type = WorkoutEventType(name: t.text), c.second(is: "event") {
        c.index += 2
        heard.append(.event(type))
      } else {
        heard.append(.state(try c.sessionState()))
      }
    } while c.take("then") || (!c.atEnd && c.peek?.text != ":")
    return heard
  }

  /// `recovers workout session <name>` after `<App>`.
  func parseRecovers(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let device = try single(subject.devices, c)
    let name = try c.sessionName()
    try c.finish()
    return .recovers(device, app: subject.app.name, name: name)
  }
}

extension Cursor {
  /// A session state by its Swift case name (`notStarted`, `prepared`, `running`, `paused`, `stopped`, `ended`).
  mutating func sessionState() throws(Diagnostic) -> WorkoutSessionState {
    let t = try word("a session state such as running")
    if let state = WorkoutSessionState.allCases.first(where: { "\($0)".lowercased() == t.keyword }) { return state }
    let names = WorkoutSessionState.allCases.map { "\($0)" } + ["didFailWithError", "<event type> event"]
    throw error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
  }
}
