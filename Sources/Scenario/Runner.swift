import Dispatch
import FoundationEssentials
import HealthEngine
import HealthExport
import HealthModel
import HealthPairClient
import PairProcesses
import Journal
import Posix
import Render
import ScenarioLanguage
import Wire

/// Why a scenario did not pass.
package struct ScenarioFailure: Sendable, Hashable {
  /// The failing step's location.
  package var location: SourceLocation
  /// The failing step's text.
  package var step: String
  /// What the step expected (or what it tried to do).
  package var expected: String
  /// What happened.
  package var actual: String
  /// The phone's state when it failed.
  package var phone: [String]
  /// The watch's state when it failed.
  package var watch: [String]
  /// The phone's state when it failed, as data (nil: its daemon was not running).
  package var phoneState: DaemonSnapshot? = nil
  /// The watch's state when it failed, as data (nil: its daemon was not running).
  package var watchState: DaemonSnapshot? = nil
}

/// The outcome of one scenario.
package struct ScenarioResult: Sendable {
  /// How it ended.
  package enum Status: Sendable, Hashable {
    /// Every step passed.
    case passed
    /// A step failed.
    case failed(ScenarioFailure)
    /// A signal interrupted the run before the scenario finished (or started: see ``Interruption``).
    case interrupted
  }
  /// The scenario's file.
  package var file: String
  /// Its title.
  package var title: String
  /// Its topic (directory).
  package var group: String
  /// The seed it ran with.
  package var seed: UInt64
  /// How it ended.
  package var status: Status
  /// Wall time in seconds.
  package var duration: Double
  /// When it started, in seconds on the monotonic clock (reports place scenarios run in parallel by it).
  package var started: Double = 0
  /// Steps run, expectations included (up to and including the failing one).
  package var stepsRun: Int
  /// The `expect` steps among ``stepsRun`` (a failed one included).
  package var expectationsRun: Int
  /// What happened, step by step, up to the end or the failure (deterministic: the same seed gives the same
  /// trace, except for when live sync deliveries arrive).
  package var trace: [TraceEntry] = []
  /// Where `--keep-failed` kept the failed scenario's pair directory and trace.
  package var kept: String? = nil
  /// Why it could not be kept.
  package var keepProblem: String? = nil

  /// Whether it passed.
  package var passed: Bool { status == .passed }
  /// The command that reruns it.
  package var reproduce: String { "healthpair run \(file) --seed \(seed)" }
}

/// Runs one scenario against a fresh pair of real daemon processes.
package struct ScenarioRunner: Sendable {
  /// The daemon executable (nil: locate it).
  package var daemon: String?
  /// How long a step may wait for the daemons, seconds.
  package var stepTimeout: Double = 10
  /// `--keep-failed`: the directory a failed scenario's pair directory and trace are kept in (nil: removed).
  package var keepFailed: String?
  /// Whether a used pair is discarded on the pool's retiring thread (``PreparedPairs/retireInBackground(_:)``)
  /// instead of before ``run(_:seed:keepName:)`` returns; ``Suite/run(_:seed:jobs:runner:progress:)`` sets it and
  /// drains the pool at the end.
  package var retiresInBackground = false

  /// Creates a runner.
  package init(daemon: String? = nil) { self.daemon = daemon }

  /// Runs `scenario` with `seed` (its own `seed` line wins). With ``keepFailed`` set, a failure keeps the pair's
  /// directory (journals, logs) and the trace (`trace.txt`, `trace.json`) in `<keepFailed>/<keepName>`.
  package func run(_ scenario: Scenario, seed runSeed: UInt64, keepName: String? = nil) -> ScenarioResult {
    let seed = scenario.seed ?? runSeed
    let started = Posix.monotonicNanoseconds()
    var result = ScenarioResult(
      file: scenario.file, title: scenario.title, group: scenario.group, seed: seed, status: .passed, duration: 0,
      stepsRun: 0, expectationsRun: 0)
    result.started = Double(started) / 1e9
    let destination = keepFailed.map { "\($0)/\(keepName ?? Suite.keepName(scenario.file))" }
    // The parser refuses such files; a scenario built otherwise must not pass without checking anything either.
    guard scenario.steps.contains(where: \.isExpectation) else {
      result.status = .failed(
        ScenarioFailure(
          location: SourceLocation(file: scenario.file, line: 1, column: 1), step: "(the scenario)",
          expected: "at least one expectation", actual: "none", phone: [], watch: []))
      if let destination { keep(&result, pair: nil, at: destination) }
      return result
    }
    let pair: Pair
    do {
      pair = try PreparedPairs.shared.take(daemon: daemon)
    } catch {
      result.status = .failed(
        ScenarioFailure(
          location: SourceLocation(file: scenario.file, line: 1, column: 1), step: "(launch the pair)",
          expected: "a running pair",
          actual: "\(error)", phone: [], watch: []))
      result.duration = Double(Posix.monotonicNanoseconds() - started) / 1e9
      if Interruption.isInterrupted { result.status = .interrupted }
      if let destination, result.failed { keep(&result, pair: nil, at: destination) }
      return result
    }
    let recorder = TraceRecorder()
    recorder.attach(DeviceKind.allCases.map { ($0, pair.client($0)) }, pair: pair)
    var context = RunContext(scenario: scenario, pair: pair, seed: seed, timeout: stepTimeout, recorder: recorder)
    do {
      try context.startClocks()
      for step in scenario.steps {
        result.stepsRun += 1
        if step.isExpectation { result.expectationsRun += 1 }
        context.beginStep(step, number: result.stepsRun)
        do { try context.perform(step) } catch {
          context.endStep()
          throw error
        }
        context.endStep()
      }
    } catch let failure as StepFailure {
      // A step cut short because the pair was stopped under it did not fail: the run was interrupted.
      result.status = Interruption.isInterrupted ? .interrupted : .failed(context.failure(failure))
    } catch where Interruption.isInterrupted {
      result.status = .interrupted
    } catch {
      let step = scenario.steps[max(0, result.stepsRun - 1)]
      result.status = .failed(context.failure(StepFailure(step: step, expected: "the step to run", actual: "\(error)")))
    }
    recorder.close()
    result.trace = context.trace
    let failed = result.failed && destination != nil
    if failed { pair.keepDirectory() }
    if retiresInBackground {
      PreparedPairs.shared.retireInBackground(pair)
    } else {
      PreparedPairs.shared.retire(pair)
    }
    result.duration = Double(Posix.monotonicNanoseconds() - started) / 1e9
    if failed, let destination { keep(&result, pair: pair, at: destination) }
    return result
  }

  /// Moves the stopped pair's directory to `destination` (replacing an older one) and writes the trace beside it.
  private func keep(_ result: inout ScenarioResult, pair: Pair?, at destination: String) {
    do throws(SystemError) {
      Posix.removeTree(destination)
      let parent = destination.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      if !parent.isEmpty { try Posix.makeDirectory(parent, mode: 0o755) }
      if let pair {
        try Posix.moveTree(pair.layout.root, to: destination)
      } else {
        try Posix.makeDirectory(destination, mode: 0o755)
      }
      result.kept = destination
      try Posix.writeFileAtomically(
        destination + "/trace.txt", Array(Reports.failureText(result, style: Style(enabled: false)).utf8), mode: 0o644)
      let json = Reports.scenarioJSON(result).render() + "\n"
      try Posix.writeFileAtomically(destination + "/trace.json", Array(json.utf8), mode: 0o644)
    } catch {
      result.keepProblem = "cannot keep the pair directory in \(destination): \(error)"
    }
  }
}

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

/// What an app's last call did.
enum CallRecord {
  case request(PendingOperation<AuthorizationCallResult>, sheet: Prompt?)
  case done(Result<Void, HealthError>)

  /// How a call ended, as `expect … 's last call` sees it.
  enum Ending {
    /// A request whose sheet is still up.
    case pending
    /// Success with no error (a request: success = true and no error).
    case succeeded
    /// An error (nil: a request that completed with success = false and no error).
    case failed(HealthError?)
    /// The daemon did not answer as a device would (a transport problem, an unexpected reply).
    case broken
  }

  /// How the call ended.
  var ending: Ending {
    switch self {
    case .request(let pending, _):
      guard let result = pending.result else { return .pending }
      switch result {
      case .success(let r): return r.success && r.error == nil ? .succeeded : .failed(r.error)
      case .failure(let e): return e.healthError.map { .failed($0) } ?? .broken
      }
    case .done(.success): return .succeeded
    case .done(.failure(let e)): return .failed(e)
    }
  }

  var outcome: String {
    switch self {
    case .request(let pending, _):
      guard let result = pending.result else { return "pending (the sheet is up)" }
      switch result {
      case .success(let r):
        return r.success
          ? "succeeded (success = true)" : "failed with \(r.error.map { "\($0.code)" } ?? "no error") (success = false)"
      case .failure(let e): return e.healthError.map(describe) ?? "\(e)"
      }
    case .done(.success): return "succeeded"
    case .done(.failure(let e)): return describe(e)
    }
  }
}

private func describe(_ e: HealthError) -> String {
  switch e.kind {
  case .healthKit: "failed with \(e.code) (\(e.code.rawValue)): \(e.message)"
  case .wouldTerminate: "would terminate the app: \(e.message)"
  case .simulator: "was rejected by the simulator: \(e.message)"
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
  var pending: [DeviceKind: [(app: String, request: PendingOperation<AuthorizationCallResult>)]] = [:]
  var names: [String: UUID] = [:]
  var anchors: [String: UInt64] = [:]
  var savedInputs: [String: SampleInput] = [:]
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

  func key(_ device: DeviceKind, _ app: String) -> String { "\(device)/\(app)" }
  func app(_ name: String) -> AppDeclaration { scenario.apps[name]! }
  /// The app as installed on `device` (its own share and read declaration), else as the scenario last declared it.
  func declared(_ name: String, on device: DeviceKind) -> AppDeclaration {
    installed[device]?[name] ?? app(name)
  }
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

  // MARK: - Trace

  /// Adds the step's own entry (with the clocks before it runs).
  mutating func beginStep(_ step: Step, number: Int) {
    stepNumber = number
    calls = []
    trace.append(entry(step.lane, .step(line: step.location.line, text: step.text, category: step.category)))
  }

  /// Adds what the step caused, in an order that does not depend on timing: the sheets shown and closed (phone's,
  /// then watch's), the app calls' results, then sync deliveries and link changes (phone's, then watch's).
  mutating func endStep() {
    for device in DeviceKind.allCases { settle(device) }
    let events = recorder.collect()
    var sheets: [TraceEntry] = []
    var others: [TraceEntry] = []
    for device in DeviceKind.allCases {
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
    trace += sheets + calls + others
    calls = []
    linkOverride = [:]
  }

  /// After `device`'s daemon went away: waits (on pushed events, with the step deadline) until its peer saw the
  /// link drop, so the next step starts from the same state every run.
  mutating func settleLink(after device: DeviceKind) {
    linkOverride[device] = false
    let peer = device.peer
    guard pair.process(peer)?.exitStatus == nil else { return }
    let c = client(peer)
    // Re-checked whenever the peer pushes a link change (its client is subscribed to every event).
    let gate = DispatchSemaphore(value: 0)
    let token = c.addListener { event in if case .linkChanged = event { gate.signal() } }
    defer { c.removeListener(token) }
    let deadline = DispatchTime.now() + timeout
    while (try? c.dump().link.connected) == true {
      if gate.wait(timeout: deadline) == .timedOut { return }
    }
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

  mutating func failure(_ f: StepFailure) -> ScenarioFailure {
    let phone = try? pair.clientIfRunning(.phone)?.dump()
    let watch = try? pair.clientIfRunning(.watch)?.dump()
    trace.append(entry(f.step.lane, .failure(expected: f.expected, actual: f.actual)))
    return ScenarioFailure(
      location: f.step.location, step: f.step.text, expected: f.expected, actual: f.actual,
      phone: phone?.describe() ?? ["(the phone daemon is not running)"],
      watch: watch?.describe() ?? ["(the watch daemon is not running)"], phoneState: phone, watchState: watch)
  }

  // MARK: - Steps

  mutating func perform(_ step: Step) throws {
    try perform(step.kind, of: step)
  }

  /// Runs `kind` (the step itself, or its part on one device for `user on both:`).
  mutating func perform(_ kind: StepKind, of step: Step) throws {
    func fail(_ expected: String, _ actual: String) -> StepFailure {
      StepFailure(step: step, expected: expected, actual: actual)
    }
    do {
      switch kind {
      case .onBoth(let phone, let watch):
        for (device, part) in [(DeviceKind.phone, phone), (.watch, watch)] {
          do { try perform(part, of: step) } catch let failure as StepFailure {
            throw failure.on(device)
          }
        }
      case .install(let app, let devices):
        for device in devices.list {
          try client(device).installApp(app.record)
          installed[device, default: [:]][app.name] = app
        }
      case .uninstall(let name, let devices):
        for device in devices.list { try client(device).uninstallApp(app(name).bundleID) }
      case .policy(
        let devices, let reprompt, let retention, let authorization, let watchSettings, let units, let background):
        for device in devices.list {
          var policy = try client(device).dump().device.policy
          if let reprompt { policy.reprompt = reprompt }
          if let retention { policy.retention = retention }
          if let authorization { policy.authorization = authorization }
          if let watchSettings { policy.watchSettings = watchSettings }
          if let units { policy.units = units }
          if let background { policy.background = background }
          try client(device).setPolicy(policy)
        }
      case .lock(let devices, let locked):
        for device in devices.list {
          try client(device).setLocked(locked)
          // A sheet up when the device locked is dismissed: its request completed.
          settle(device)
        }
      case .userSetting(let device, let setting):
        try client(device).changeUserSetting(setting)
      case .clockSet(let time):
        now = resolve(time)
        try setClocks(now)
      case .timeZone(let devices, let zone):
        for device in devices.list {
          try client(device).setTimeZone(zone)
          zones[device] = zone
        }
      case .sourceOrder(let device, let type, let specs):
        var sources: [SampleSource] = []
        for spec in specs {
          let bundle = app(spec.app).bundleID
          for on in spec.device.map({ [$0] }) ?? [.watch, .phone] {
            sources.append(SampleSource(bundleID: bundle, device: on))
          }
        }
        try client(device).setSourceOrder(type, sources)
      case .clockAdvance(let seconds):
        now = now.addingTimeInterval(seconds)
        try setClocks(now)
      case .syncMode(let manual):
        manualSync = manual
        for device in DeviceKind.allCases { try client(device).link(manual ? .hold : .release) }
      case .request(let device, let name, let share, let read):
        let a = declared(name, on: device)
        let request = try client(device).beginAuthorization(a.bundleID, share: share ?? a.share, read: read ?? a.read)
        let timeout = self.timeout
        switch attempt({ () throws(ClientError) in try request.waitFirst(timeout: timeout) }) {
        case .success(.sheet(let prompt)):
          lastCall[key(device, name)] = .request(request, sheet: prompt)
          pending[device, default: []].append((name, request))
          traceCall(device, name, "requestAuthorization", CallOutcome(result: .pending))
        case .success(.final(let r)):
          lastCall[key(device, name)] = .request(request, sheet: nil)
          traceCall(device, name, "requestAuthorization", CallOutcome(authorization: r))
        case .failure(let error):
          // A rejected request (a condition that would terminate the app, an unknown app): the call's outcome.
          guard let health = error.healthError else { throw error }
          lastCall[key(device, name)] = .request(request, sheet: nil)
          traceCall(device, name, "requestAuthorization", CallOutcome(error: health))
        }
      case .save(let device, let name, let specs):
        let a = app(name)
        var inputs: [SampleInput] = []
        for spec in specs {
          let uuid = spec.uuid ?? rng.uuid()
          if let n = spec.name { names[n] = uuid }
          let start = resolve(spec.start, on: device)
          let end: Date
          switch spec.end {
          case .duration(let d): end = start.addingTimeInterval(d)
          case .time(let t): end = resolve(t, on: device)
          }
          let input = SampleInput(
            uuid: uuid, type: spec.type, value: spec.value, start: start, end: end, metadata: spec.metadata)
          inputs.append(input)
          if let n = spec.name { savedInputs[n] = input }
        }
        let c = client(device)
        record(device, name, "save", try capture { () throws(ClientError) in try c.save(a.bundleID, inputs) })
      case .saveCorrelation(let device, let name, let spec):
        let a = app(name)
        var members: [SampleInput] = []
        for member in spec.members {
          let uuid = member.uuid ?? rng.uuid()
          if let n = member.name { names[n] = uuid }
          let start = resolve(member.start, on: device)
          let end: Date
          switch member.end {
          case .duration(let d): end = start.addingTimeInterval(d)
          case .time(let t): end = resolve(t, on: device)
          }
          members.append(
            SampleInput(
              uuid: uuid, type: member.type, value: member.value, start: start, end: end, metadata: member.metadata))
        }
        let uuid = rng.uuid()
        if let n = spec.name { names[n] = uuid }
        let input = CorrelationInput(
          uuid: uuid, type: spec.type, start: members.map(\.start).min() ?? now, end: members.map(\.end).max() ?? now,
          metadata: spec.metadata, members: members)
        let c = client(device)
        record(
          device, name, "save", try capture { () throws(ClientError) in try c.saveCorrelations(a.bundleID, [input]) })
      case .saveRandom(let device, let name, let count, let type, let over):
        let a = app(name)
        var inputs: [SampleInput] = []
        for _ in 0..<count {
          let start = now.addingTimeInterval(-Double.random(in: 0..<max(over, 1), using: &rng))
          let value: SampleInput.Value
          if let unit = type.descriptor.canonicalUnit {
            value = .quantity((Double.random(in: 1...500, using: &rng) * 10).rounded() / 10, unit: unit.description)
          } else {
            value = .category(type.descriptor.categoryValues!.randomElement(using: &rng)!.value)
          }
          let duration = type.descriptor.isQuantity ? 0 : Double(Int.random(in: 1...30, using: &rng) * 60)
          inputs.append(
            SampleInput(
              uuid: rng.uuid(), type: type, value: value, start: start, end: start.addingTimeInterval(duration),
              metadata: Dictionary(
                uniqueKeysWithValues: type.descriptor.requiredMetadata.map { ($0, MetadataKey.generatedValue(for: $0)) }
              )
            ))
        }
        let c = client(device)
        record(device, name, "save", try capture { () throws(ClientError) in try c.save(a.bundleID, inputs) })
      case .resave(let device, let name, let sample, let changed):
        guard var input = savedInputs[sample] else {
          throw fail("a saved sample named \(sample)", "no sample was saved under that name")
        }
        if let changed { input.value = changed }
        let c = client(device)
        let bundle = app(name).bundleID
        record(device, name, "save", try capture { () throws(ClientError) in try c.save(bundle, [input]) })
      case .deleteAll(let device, let name, let type, let rangeSpec):
        let range = rangeSpec.map {
          DateRange(start: resolve($0.start, on: device), end: resolve($0.end, on: device), options: $0.options)
        }
        let c = client(device)
        let bundle = app(name).bundleID
        record(
          device, name, "deleteObjects",
          try capture { () throws(ClientError) in
            _ = try c.deleteMatching(bundle, type: type, range: range)
          })
      case .delete(let device, let name, let sampleNames):
        let uuids = sampleNames.map { names[$0] ?? UUID() }
        let c = client(device)
        let bundle = app(name).bundleID
        record(device, name, "delete", try capture { () throws(ClientError) in try c.delete(bundle, uuids) })
      case .answer(let device, let answer, let name):
        try client(device).answerPrompt(answer, bundleID: name.map { app($0).bundleID })
        settle(device)
      case .settings(let device, let name, let change):
        let c = client(device)
        let bundle = app(name).bundleID
        let outcome = try capture { () throws(ClientError) in try c.changeSettings(bundle, change) }
        settingsResult[device] = outcome
        traceCall(device, name, "Settings change (\(change))", CallOutcome(error: outcome.failure))
      case .watchSettings(let name, let change):
        // A change for the watch made on the phone: it counts as the watch's last Settings change.
        let c = client(.phone)
        let bundle = app(name).bundleID
        let outcome = try capture { () throws(ClientError) in try c.watchSettings(bundle, change) }
        settingsResult[.watch] = outcome
        traceCall(.phone, name, "Watch app change (\(change))", CallOutcome(error: outcome.failure))
      case .link(let action):
        try link(action)
      case .waitSynced(let seconds):
        if manualSync { for device in DeviceKind.allCases { try client(device).link(.release) } }
        do { try pair.waitSynced(timeout: seconds) } catch {
          throw fail("both devices to apply everything the other logged within \(formatDuration(seconds))", "\(error)")
        }
        if manualSync { for device in DeviceKind.allCases { try client(device).link(.hold) } }
      case .kill(let device):
        pair.kill(device)
        pending[device] = nil
        clocks[device] = nil
        settleLink(after: device)
      case .stop(let device):
        let status = pair.stop(device)
        clocks[device] = nil
        settleLink(after: device)
        guard status == .exited(0) else {
          throw fail("the \(device) daemon to stop with exit 0", status.map { "\($0)" } ?? "it did not stop")
        }
        pending[device] = nil
      case .restart(let device):
        try pair.restart(device, waitForLink: false)
        recorder.attach(device, client: pair.client(device), pair: pair)
        let c = client(device)
        clocks[device] = try c.dump().device.now
        if linkDisconnected { try c.link(.disconnect) }
        if manualSync || held.contains(device) { try c.link(.hold) }
        if latency > 0 { try c.link(.latency(latency)) }
        if !linkDisconnected { try pair.waitLinked(timeout: timeout) }
        linkOverride[device] = try c.dump().link.connected
      case .tearJournal(let device):
        guard pair.process(device)?.exitStatus != nil else {
          throw fail("the \(device) daemon to be stopped or killed before its journal is torn", "it is running")
        }
        // A record header cut short: what a crash in the middle of a write leaves behind.
        let path = pair.layout.journal(device)
        let torn = try Posix.readFile(path) + [0x40, 0x00, 0x00, 0x00, 0x12]
        try Posix.writeFileAtomically(path, torn)
      case .cutJournal(let device, let records):
        guard pair.process(device)?.exitStatus != nil else {
          throw fail("the \(device) daemon to be stopped or killed before its journal is cut", "it is running")
        }
        let path = pair.layout.journal(device)
        let available = try JournalSurgery.recordCount(path)
        guard available >= records else {
          throw fail("a \(device) journal of at least \(records) records", "it has \(available)")
        }
        try JournalSurgery.dropLastRecords(path, count: records)
      case .importExport(let importStep):
        try performImport(importStep, step)
      case .exportStore(let device, let name):
        let path = pair.layout.root + "/" + name
        _ = try HealthExportFiles.exportStore(from: client(device), to: path)
        exported[name] = path
      case .expect(let expectation):
        try check(expectation, step)
      case .background(let device, let name, let action):
        let c = client(device)
        let bundle = app(name).bundleID
        switch action {
        case .enable(let type, let frequency):
          record(
            device, name, "enableBackgroundDelivery",
            try capture { () throws(ClientError) in try c.enableBackgroundDelivery(bundle, type, frequency: frequency) }
          )
        case .disable(let type):
          record(
            device, name, type == nil ? "disableAllBackgroundDelivery" : "disableBackgroundDelivery",
            try capture { () throws(ClientError) in try c.disableBackgroundDelivery(bundle, type) })
        case .complete(let type):
          // The app's observer query calls the completion handler of the delivery waiting for the type.
          guard
            let waiting = try c.backgroundDeliveries(bundle).registrations.first(where: { $0.key.type == type })?
              .waiting
          else {
            throw fail(
              "a background delivery of \(type.name) waiting for \(name)'s completion handler", "none is waiting")
          }
          record(
            device, name, "HKObserverQueryCompletionHandler",
            try capture { () throws(ClientError) in try c.completeBackgroundDelivery(bundle, delivery: waiting) })
        }
      }
    } catch let failure as StepFailure {
      throw failure
    } catch {
      throw fail("the step to run", "\(error)")
    }
  }

  /// `import <file> on <device>`: the file is one an `export` step wrote under that name, else a path resolved
  /// against the scenario file's directory; the step fails when
  /// the import's outcome is not the one written (success, or `fails [with "<text>"]`).
  mutating func performImport(_ importStep: ImportStep, _ step: Step) throws {
    let directory = scenario.file.split(separator: "/", omittingEmptySubsequences: false).dropLast()
      .joined(separator: "/")
    let path =
      exported[importStep.path]
      ?? (importStep.path.hasPrefix("/") || directory.isEmpty ? importStep.path : directory + "/" + importStep.path)
    var options = ExportImportOptions()
    options.mapping = SourceMapping(overrides: importStep.sources)
    options.timeout = max(timeout, 30)
    do {
      let report = try HealthExportFiles.importExport(path: path, into: client(importStep.device), options: options)
      lastImport[importStep.device] = report
      if let expected = importStep.failure {
        throw StepFailure(
          step: step, expected: "the import to fail" + (expected.isEmpty ? "" : " with \"\(expected)\""),
          actual: "it added \(report.outcome.addedCount) samples")
      }
    } catch let failure as StepFailure {
      throw failure
    } catch {
      let message = "\(error)"
      guard let expected = importStep.failure else {
        throw StepFailure(step: step, expected: "the import to succeed", actual: message)
      }
      if !expected.isEmpty && !message.contains(expected) {
        throw StepFailure(step: step, expected: "the import to fail with \"\(expected)\"", actual: message)
      }
    }
  }

  /// Runs a call, turning an engine rejection into a recorded result (other errors propagate).
  func capture(_ body: () throws(ClientError) -> Void) throws(ClientError) -> Result<Void, HealthError> {
    switch attempt(body) {
    case .success: return .success(())
    case .failure(let error):
      if let health = error.healthError { return .failure(health) }
      throw error
    }
  }

  mutating func record(_ device: DeviceKind, _ app: String, _ call: String, _ result: Result<Void, HealthError>) {
    lastCall[key(device, app)] = .done(result)
    traceCall(device, app, call, CallOutcome(error: result.failure))
  }

  /// Drops the pending requests that completed (their answers arrived before the answer's own reply), noting how
  /// each completed.
  mutating func settle(_ device: DeviceKind) {
    for (app, request) in pending[device] ?? [] {
      switch request.result {
      case nil: continue
      case .success(let r):
        traceCall(device, app, "requestAuthorization", CallOutcome(authorization: r))
      case .failure(let e):
        traceCall(device, app, "requestAuthorization", CallOutcome(error: e.healthError ?? .simulator("\(e)")))
      }
    }
    pending[device]?.removeAll { $0.request.result != nil }
  }

  mutating func link(_ action: LinkAction) throws {
    switch action {
    case .disconnect:
      linkDisconnected = true
      for device in DeviceKind.allCases { try client(device).link(.disconnect) }
      try pair.wait(for: "the link to drop", timeout: timeout, mask: .link) {
        try !client(.phone).link(.reconnectNow).connected && !client(.watch).link(.reconnectNow).connected
      }
    case .reconnect:
      linkDisconnected = false
      for device in DeviceKind.allCases { try client(device).link(.connect) }
      try pair.waitLinked(timeout: timeout)
    case .hold(let devices):
      held.formUnion(devices)
      for device in devices { try client(device).link(.hold) }
    case .release(let devices):
      held.subtract(devices)
      for device in devices { try client(device).link(.release) }
    case .latency(let seconds):
      latency = seconds
      for device in DeviceKind.allCases { try client(device).link(.latency(seconds)) }
    }
  }
}

extension Result {
  /// The error, if it failed.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
