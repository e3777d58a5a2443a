import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage
import Wire

/// A workout session as the device holds it: its state, what its delegate heard, its live builder (elapsed time,
/// statistics, collected samples, phase), and `recoverActiveWorkoutSession()`.
extension RunContext {
  /// `<App>'s workout session <name> …`: the session's status at the device's time (the sensor model runs up to it
  /// first), or the callbacks the runner recorded for it.
  func checkSession(_ device: DeviceKind, _ name: String, _ session: String, _ check: SessionCheck, _ step: Step)
    throws
  {
    let ref = try liveSession(device, session, step)
    let subject = "\(name)'s workout session \(session)"
    if case .heard(let expected) = check {
      let callbacks = heard[objectKey(device, ref.id)] ?? []
      let actual = callbacks.compactMap(\.heard)
      if actual != expected {
        throw fail(
          step, "\(subject) heard \(Self.list(expected.map(\.description)))",
          Self.list(callbacks.map(\.text)))
      }
      return
    }
    if case .received(let expected) = check {
      var messages: [Data] = []
      for case .didReceiveData(let data) in heard[objectKey(device, ref.id)] ?? [] { messages += data }
      let matches = messages.count == expected.count && zip(expected, messages).allSatisfy { $0.matches($1) }
      if !matches {
        throw fail(
          step, "\(subject) received \(Self.list(expected.map(\.description)))", Self.list(messages.map(\.traceText)))
      }
      return
    }
    let bundle = app(name).bundleID
    let c = client(device)
    let status = try c.workoutSession(bundle, .status(ref.id))
    switch check {
    case .heard, .received: return
    case .type(let type):
      if status.type != type { throw fail(step, "\(subject) is \(type)", "\(status.type)") }
    case .state(let state):
      if status.state != state { throw fail(step, "\(subject) is \(state)", "\(status.state)") }
    case .builder(let phase):
      let actual = status.builder.map(\.phase.word) ?? "no builder"
      if actual != phase.word { throw fail(step, "\(subject) builder is \(phase.word)", actual) }
    case .elapsed(let seconds):
      let actual = status.builder?.elapsed ?? 0
      if !same(actual, seconds) {
        throw fail(step, "\(subject) elapsed time is \(formatDuration(seconds))", formatDuration(actual))
      }
    case .noStatistic(let type):
      if let s = status.builder?.statistics.first(where: { $0.type == type }) {
        throw fail(step, "\(subject) has no \(type.name) statistics", "it has \(describe(s))")
      }
    case .statistic(let kind, let type, let value, let unit):
      try checkStatistic(
        status.builder?.statistics.first { $0.type == type }, kind, type, value, unit, subject, step)
    case .collected(let type, let expected):
      let actual = try collectedCount(device, bundle, status, type)
      if actual != expected {
        throw fail(step, "\(subject) collected \(expected) \(type.name) samples", "\(actual)")
      }
    }
  }

  /// The samples of `type` the session's builder saved: the device's stored samples of the type from the app on
  /// this device, from the builder's start to its end (or the device's time).
  private func collectedCount(_ device: DeviceKind, _ bundle: String, _ status: SessionStatus, _ type: SampleType)
    throws -> Int
  {
    guard let builder = status.builder, let start = builder.start else { return 0 }
    let end = builder.end ?? now
    let stored = try client(device).storedSamples(type: type).samples
    return stored.filter {
      $0.source.bundleID == bundle && $0.source.device == device && $0.start >= start && $0.end <= end
    }.count
  }

  /// `<App> recovers workout session <name>` / `<App> has no workout session to recover` (nil).
  func checkRecovers(_ device: DeviceKind, _ name: String, _ session: String?, _ step: Step) throws {
    let bundle = app(name).bundleID
    let c = client(device)
    let result = attempt { () throws(ClientError) in try c.workoutSession(bundle, .recover) }
    let recovered: WorkoutSessionID?
    switch result {
    case .success(let status): recovered = status.id
    case .failure(let error):
      guard error.healthError?.code == .errorNoData else { throw error }
      recovered = nil
    }
    let actual = recovered.map { id in
      "workout session " + (sessionLabels[objectKey(device, id)] ?? id.uuid.uuidString)
    }
    guard let session else {
      if let actual { throw fail(step, "\(name) has no workout session to recover", "it recovers \(actual)") }
      return
    }
    let ref = try liveSession(device, session, step)
    if recovered != ref.id {
      throw fail(step, "\(name) recovers workout session \(session)", actual.map { "it recovers \($0)" } ?? "nil")
    }
  }

  /// Items as a failure lists them (`nothing` when empty).
  static func list(_ items: [String]) -> String { items.isEmpty ? "nothing" : items.joined(separator: " then ") }
}
