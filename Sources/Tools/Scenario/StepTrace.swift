import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage

/// The trace of a running scenario: each step's entry, then what it caused.
extension RunContext {
  /// Adds the step's own entry (with the clocks before it runs).
  mutating func beginStep(_ step: Step, number: Int) {
    stepNumber = number
    calls = []
    trace.append(entry(step.lane, .step(line: step.location.line, text: step.text, category: step.category)))
  }

  /// Adds what the step caused, in an order that does not depend on timing: the sheets shown and closed (phone's,
  /// then watch's), the app calls' results, the workout session callbacks (phone's, then watch's), then sync
  /// deliveries and link changes (phone's, then watch's).
  mutating func endStep() {
    for device in DeviceKind.allCases { settle(device) }
    let events = recorder.collect()
    for device in DeviceKind.allCases { adoptMirrored(events[device] ?? [], device: device) }
    var sheets: [TraceEntry] = []
    var sessionCallbacks: [TraceEntry] = []
    var others: [TraceEntry] = []
    for device in DeviceKind.allCases {
      sessionCallbacks += sessionEntries(events[device] ?? [], device: device)
      let entries = TraceRecorder.entries(
        events[device] ?? [], device: device, step: stepNumber, clocks: (clocks[.phone], clocks[.watch]))
      for var entry in entries {
        switch entry.kind {
        case .sheetShown(let bundle, let sheet, let lists):
          entry.kind = .sheetShown(app: appName(bundle), sheet: sheet, lists: lists)
          sheets.append(entry)
        case .sheetClosed(let bundle, let sheet, let outcome):
          entry.kind = .sheetClosed(app: appName(bundle), sheet: sheet, outcome: outcome)
          sheets.append(entry)
        case .background(let bundle, let type, let event, let delivery, let attempt):
          entry.kind = .background(app: appName(bundle), type: type, event: event, delivery: delivery, attempt: attempt)
          others.append(entry)
        default:
          others.append(entry)
        }
      }
    }
    for device in DeviceKind.allCases {
      guard let up = linkOverride[device] ?? TraceRecorder.lastLink(events[device] ?? []), up != linkUp[device] else {
        continue
      }
      linkUp[device] = up
      // The link state of a daemon that is down is not news: its lane shows the fault.
      if linkOverride[device] == false { continue }
      others.append(entry(Lane(device), .link(up: up)))
    }
    trace += sheets + calls + sessionCallbacks + others
    calls = []
    linkOverride = [:]
  }

  /// An entry for the running step, stamped with both clocks.
  func entry(_ lane: Lane, _ kind: TraceEntry.Kind) -> TraceEntry {
    TraceEntry(step: stepNumber, lane: lane, phoneClock: clocks[.phone], watchClock: clocks[.watch], kind: kind)
  }

  /// The scenario's name for an app, from its bundle identifier.
  func appName(_ bundleID: String) -> String {
    scenario.apps.values.first { $0.bundleID == bundleID }?.name ?? bundleID
  }

  /// Notes an app call's outcome for the trace.
  mutating func traceCall(_ device: DeviceKind, _ app: String, _ call: String, _ outcome: CallOutcome) {
    calls.append(entry(Lane(device), .call(app: app, call: call, outcome: outcome)))
  }
}
