import FoundationEssentials
import HealthEngine
import HealthExport
import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage

/// A failed step before the state is attached.
struct StepFailure: Error {
  var step: Step
  var expected: String
  var actual: String

  /// The failure of a step's part on `device` (`expect both:`, `user on both:`), saying which device failed unless
  /// the text already does.
  func on(_ device: DeviceKind) -> StepFailure {
    var failure = self
    if !expected.hasPrefix("\(device)") && !expected.contains("the \(device)") {
      failure.expected = "\(device): " + expected
    }
    return failure
  }
}

/// The state of one running scenario.
struct RunContext {
  let scenario: Scenario
  let pair: Pair
  let timeout: Double
  var rng: SeededGenerator
  var now: Date
  /// Each device's time zone, as the scenario set it (UTC until then).
  var zones: [DeviceKind: TimeZoneRule] = [:]
  var manualSync = false
  var lastCall: [String: CallRecord] = [:]
  var pending: [DeviceKind: [(app: String, request: PendingOperation<AuthorizationCallResult>, api: String)]] = [:]
  var names: [String: UUID] = [:]
  var anchors: [String: UInt64] = [:]
  var savedInputs: [String: SampleInput] = [:]
  /// The workouts `saves workout … as <name>` saved (or tried to), by name.
  var workouts: [String: SavedWorkout] = [:]
  /// The workout sessions steps created, by ``sessionKey(_:_:)`` of their device and name (unnamed ones `#<n>`).
  var sessions: [String: LiveSessionRef] = [:]
  /// Each session's name for the trace, by ``sessionKey(_:_:)`` of its device and identifier.
  var sessionLabels: [String: String] = [:]
  /// How many sessions steps created so far.
  var sessionCount = 0
  /// A step mirrored a session, sent over one or started the watch app: from then on each step ends once no session
  /// message is in flight (``settleSessionMessages(_:)``).
  var mirrors = false
  /// The `HKWorkoutSessionDelegate` callbacks each session object heard, in order, by ``sessionKey(_:_:)`` of its
  /// device and identifier (from the daemons' pushed `workoutSession` events, collected at the end of each step).
  var heard: [String: [SessionCallback]] = [:]
  /// Link settings are runtime state in the daemons; the runner re-applies them to a restarted daemon.
  var linkDisconnected = false
  var held: Set<DeviceKind> = []
  var latency = 0.0
  var settingsResult: [DeviceKind: Result<Void, HealthError>] = [:]
  /// What each device's last `import` did.
  var lastImport: [DeviceKind: ExportImportReport] = [:]
  /// Files written by `export` steps, by the name the scenario gave them.
  var exported: [String: String] = [:]
  /// Each device's apps as their last `install` there declared them (a watch may declare other types).
  var installed: [DeviceKind: [String: AppDeclaration]] = [:]
  /// Listens to the daemons' events for the trace.
  let recorder: TraceRecorder
  /// The trace so far.
  var trace: [TraceEntry] = []
  /// The step running (1-based) and the call entries it made (added after the daemons' events at its end).
  var stepNumber = 0
  var calls: [TraceEntry] = []
  /// Each daemon's clock as it last reported it (absent while it is down).
  var clocks: [DeviceKind: Date] = [:]
  /// Whether each daemon saw the link up at the end of the last step (a new pair starts linked).
  var linkUp: [DeviceKind: Bool] = [.phone: true, .watch: true]
  /// This step's word on a daemon's link that its events cannot give: false for one killed or stopped (its last
  /// events race its death), the state a restarted one reported once linked (it linked before we listened).
  var linkOverride: [DeviceKind: Bool] = [:]

  init(scenario: Scenario, pair: Pair, seed: UInt64, timeout: Double, recorder: TraceRecorder) {
    self.scenario = scenario
    self.pair = pair
    self.timeout = timeout
    self.rng = SeededGenerator(seed: seed)
    self.now = ScenarioParser.defaultStart
    self.recorder = recorder
  }

  /// The key of an app on a device in ``lastCall`` (and the start of its keys in ``anchors``).
  func key(_ device: DeviceKind, _ app: String) -> String { "\(device)/\(app)" }
  /// The app the scenario declared under `name`.
  func app(_ name: String) -> AppDeclaration { scenario.apps[name]! }
  /// The app as installed on `device` (its own share and read declaration), else as the scenario last declared it.
  func declared(_ name: String, on device: DeviceKind) -> AppDeclaration {
    installed[device]?[name] ?? app(name)
  }
  /// The pair's client of `device`.
  func client(_ device: DeviceKind) -> DeviceClient { pair.client(device) }

  /// Sets both virtual clocks to the scenario start (2026-01-05T08:00:00Z): runs never depend on the wall clock.
  mutating func startClocks() throws {
    try setClocks(now)
  }

  /// Sets both virtual clocks and notes what each daemon reports. Both requests are sent before either answer is
  /// awaited, so the daemons set their clocks at the same time.
  mutating func setClocks(_ date: Date) throws(ClientError) {
    let devices = DeviceKind.allCases
    let answers = DeviceClient.performTogether(.setClock(date), on: devices.map { client($0) })
    for (device, answer) in zip(devices, answers) { clocks[device] = try answer.get() }
  }

  /// A failure of `step`: what it expected, what happened.
  func fail(_ step: Step, _ expected: String, _ actual: String) -> StepFailure {
    StepFailure(step: step, expected: expected, actual: actual)
  }

  /// The device's calendar: its time zone as the scenario set it (docs/behavior.md K1).
  func calendar(_ device: DeviceKind) -> LocalCalendar { LocalCalendar(zones[device] ?? .utc) }

  /// A time as the device reads it: times of day and dates without a zone are the device's local time (K2).
  func resolve(_ time: TimeSpec, on device: DeviceKind = .phone) -> Date {
    switch time {
    case .now(let offset): return now.addingTimeInterval(offset)
    case .timeOfDay(let seconds):
      let calendar = calendar(device)
      return calendar.date(wallSeconds: calendar.wallSeconds(calendar.startOfDay(now)) + seconds)
    case .absolute(let d): return d
    case .local(let d): return calendar(device).date(localFieldsOf: d)
    }
  }

  /// The device's local day that `day` (a date written without a zone) names: local midnight to the next one.
  func dayRange(_ day: Date?, on device: DeviceKind) -> DateRange? {
    day.map { day in
      let calendar = calendar(device)
      let start = calendar.date(localFieldsOf: day)
      return DateRange(start: start, end: calendar.startOfNextDay(start))
    }
  }

  /// A written range, resolved against the virtual clock in the device's time zone (behavior.md K2).
  func resolve(_ range: RangeSpec, on device: DeviceKind) -> DateRange {
    DateRange(start: resolve(range.start, on: device), end: resolve(range.end, on: device), options: range.options)
  }

  /// The scenario failure `f` is, with both daemons' state attached; adds it to the trace.
  mutating func failure(_ f: StepFailure) -> ScenarioFailure {
    let phone = try? pair.clientIfRunning(.phone)?.dump()
    let watch = try? pair.clientIfRunning(.watch)?.dump()
    trace.append(entry(f.step.lane, .failure(expected: f.expected, actual: f.actual)))
    return ScenarioFailure(
      location: f.step.location, step: f.step.text, expected: f.expected, actual: f.actual,
      phone: phone?.describe() ?? ["(the phone daemon is not running)"],
      watch: watch?.describe() ?? ["(the watch daemon is not running)"], phoneState: phone, watchState: watch)
  }
}
