import FoundationEssentials
import HealthEngine
import HealthModel
import ScenarioLanguage
import Wire

/// Workout session callbacks in the trace and in what each session heard.
extension RunContext {
  /// Notes the session callbacks among one device's events of a step in ``heard`` and returns their trace entries,
  /// in the order pushed: each session delegate callback on its own; the live builder's `didCollectDataOf` of one
  /// session counted into one entry (every sample interval would be one otherwise), its other callbacks on their
  /// own.
  mutating func sessionEntries(_ events: [DaemonEvent], device: DeviceKind) -> [TraceEntry] {
    var entries: [TraceEntry] = []
    var collected: [String: (index: Int, count: Int, types: Set<SampleType>)] = [:]
    for event in events {
      switch event {
      case .workoutSession(let bundle, let id, let callback):
        let key = sessionKey(device, id.uuid.uuidString)
        heard[key, default: []].append(callback)
        entries.append(entry(Lane(device), .session(app: appName(bundle), session: label(key), event: callback.text)))
      case .workoutBuilder(let bundle, let id, let callback):
        let key = sessionKey(device, id.uuid.uuidString)
        guard case .didCollectDataOf(let types) = callback else {
          entries.append(
            entry(Lane(device), .session(app: appName(bundle), session: label(key), event: "builder " + callback.text)))
          continue
        }
        var tally = collected[key] ?? (entries.count, 0, [])
        if collected[key] == nil {
          entries.append(entry(Lane(device), .session(app: appName(bundle), session: label(key), event: "")))
        }
        tally.count += 1
        tally.types.formUnion(types)
        collected[key] = tally
        let names = tally.types.sorted().map(\.name).joined(separator: ", ")
        entries[tally.index].kind = .session(
          app: appName(bundle), session: label(key), event: "builder didCollectDataOf ×\(tally.count) (\(names))")
      default: continue
      }
    }
    return entries
  }

  /// A session's name for the trace.
  private func label(_ key: String) -> String { sessionLabels[key] ?? "(unknown)" }
}

extension SessionCallback {
  /// The callback as the trace and a failed `heard` expectation write it.
  var text: String {
    switch self {
    case .didChange(let to, let from, _): "didChangeTo \(to) from \(from)"
    case .didFail(let error): "didFailWithError \(error.code) (\(error.code.rawValue)): \(error.message)"
    case .didGenerate(let event): "didGenerate \(event.type) event"
    case .didBeginActivity: "didBeginActivity"
    case .didEndActivity: "didEndActivity"
    case .didReceiveData(let data): "didReceiveData (\(data.count) items)"
    case .didDisconnect(let error): "didDisconnect \(error.code) (\(error.code.rawValue))"
    }
  }

  /// The callback as a `heard` expectation names it (nil for those it cannot name).
  var heard: HeardCallback? {
    switch self {
    case .didChange(let to, _, _): .state(to)
    case .didFail(let error): .failed(error.code)
    case .didGenerate(let event): .event(event.type)
    case .didBeginActivity: .beganActivity
    case .didEndActivity: .endedActivity
    case .didReceiveData, .didDisconnect: nil
    }
  }
}

extension BuilderCallback {
  /// The callback as the trace writes it.
  var text: String {
    switch self {
    case .didCollectDataOf(let types): "didCollectDataOf (\(types.sorted().map(\.name).joined(separator: ", ")))"
    case .didCollectEvent(let event): "didCollectEvent \(event.type)"
    case .didBeginActivity: "didBeginActivity"
    case .didEndActivity: "didEndActivity"
    }
  }
}
