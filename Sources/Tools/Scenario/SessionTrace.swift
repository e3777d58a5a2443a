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
        let key = objectKey(device, id)
        heard[key, default: []].append(callback)
        if case .didReceiveData(let data) = callback {
          let messages = data.map(\.traceText)
          entries.append(
            entry(
              .both,
              .remoteData(from: device.peer, to: device, app: appName(bundle), session: label(key), messages: messages))
          )
          continue
        }
        entries.append(entry(Lane(device), .session(app: appName(bundle), session: label(key), event: callback.text)))
      case .mirroringStarted(let bundle, let id):
        let event = "workoutSessionMirroringStartHandler: mirrored session \(id.generation)"
        entries.append(
          entry(Lane(device), .session(app: appName(bundle), session: label(objectKey(device, id)), event: event)))
      case .workoutConfigurationHandled(let bundle, let configuration):
        let event = "handle(workoutConfiguration): \(configuration.activityType) \(configuration.location)"
        entries.append(entry(Lane(device), .session(app: appName(bundle), session: "(from the phone)", event: event)))
      case .workoutDataSent(let bundle, let id, _, let error):
        let outcome = error.map { "failed: \($0.code) (\($0.code.rawValue)): \($0.message)" } ?? "delivered"
        entries.append(
          entry(
            Lane(device),
            .session(
              app: appName(bundle), session: label(objectKey(device, id)),
              event: "sendToRemoteWorkoutSession \(outcome)")))
      case .workoutBuilder(let bundle, let id, let callback):
        let key = objectKey(device, id)
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
    case .didReceiveData(let data): "didReceiveData \(data.map(\.traceText).joined(separator: ", "))"
    case .didDisconnect(let error): "didDisconnect \(error.code) (\(error.code.rawValue)): \(error.message)"
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
    case .didReceiveData: .receivedData
    case .didDisconnect: .disconnected
    }
  }
}

extension Data {
  /// A received message as the trace writes it: its text when it is short UTF-8, else its size.
  var traceText: String {
    if count <= 80, let text = String(data: self, encoding: .utf8), !text.contains("\n") { return "\"\(text)\"" }
    return "\(count) bytes"
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
