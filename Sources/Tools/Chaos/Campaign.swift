import Dispatch
import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Journal
import Posix
import Scenario
import ScenarioLanguage
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// Runs seeded fault campaigns against a real pair of daemons and checks the invariants afterwards.
package struct Campaign {
  /// The apps that save (granted everything at the start) and the one whose authorization churns.
  static let apps = [
    AppRecord(
      bundleID: "com.example.water", displayName: "Water", writeUsageDescription: "w", readUsageDescription: "r"),
    AppRecord(
      bundleID: "com.example.return", displayName: "Return", writeUsageDescription: "w", readUsageDescription: "r"),
  ]
  static let churn = AppRecord(
    bundleID: "com.example.churn", displayName: "Churn", writeUsageDescription: "w", readUsageDescription: "r")
  static let water = SampleType.lookup(name: "dietaryWater")!
  static let mindful = SampleType.lookup(name: "mindfulSession")!
  /// Types the churn app requests on each device: disjoint, so a decision that crossed would show.
  static let churnType: [DeviceKind: SampleType] = [
    .phone: SampleType.lookup(name: "stepCount")!, .watch: SampleType.lookup(name: "heartRate")!,
  ]
  static let start = parseDate("2026-01-05T08:00:00Z")!

  /// The seed.
  package let seed: UInt64
  /// The number of steps.
  package let steps: Int
  /// The daemon executable (nil: locate it).
  package var daemon: String?
  /// Called after each step with its index and action (for `--verbose`).
  package var trace: (@Sendable (Int, ChaosAction) -> Void)?
  /// When a campaign fails, stop its daemons but keep the pair's directory (journals, logs) and report it.
  package var keepFailed = false

  /// Creates a campaign.
  package init(seed: UInt64, steps: Int, daemon: String? = nil) {
    self.seed = seed
    self.steps = steps
    self.daemon = daemon
  }

  /// The schedule: the same seed always gives the same actions.
  package func schedule() -> [ChaosAction] {
    var rng = SeededGenerator(seed: seed)
    var actions: [ChaosAction] = []
    for _ in 0..<steps {
      let device: DeviceKind = rng.next() % 2 == 0 ? .phone : .watch
      let roll = Int(rng.next() % 100)
      switch roll {
      case 0..<38:
        actions.append(
          .save(device, app: Int(rng.next() % 2), batches: 1 + Int(rng.next() % 3), count: 1 + Int(rng.next() % 20)))
      case 38..<48: actions.append(.delete(device, app: Int(rng.next() % 2), count: 1 + Int(rng.next() % 3)))
      case 48..<56: actions.append(.authorize(device, answer: Int(rng.next() % 4)))
      case 56..<60: actions.append(.settings(watchApp: rng.next() % 2 == 0, on: rng.next() % 2 == 0))
      case 60..<70: actions.append(.query(device))
      case 70..<76: actions.append(.link(up: rng.next() % 2 == 0))
      case 76..<82: actions.append(.hold(device, rng.next() % 2 == 0))
      case 82..<85: actions.append(.latency(Int(rng.next() % 4) * 5))
      case 85..<91: actions.append(.kill(device))
      case 91..<93: actions.append(.loseTail(device, records: 1 + Int(rng.next() % 8)))
      default: actions.append(.settle)
      }
    }
    return actions
  }

  /// Runs the campaign and checks the invariants.
  package func run() -> CampaignReport {
    var report = CampaignReport(seed: seed)
    var runner: CampaignRun
    do { runner = try CampaignRun(seed: seed, daemon: daemon) } catch {
      report.failure = "the pair did not start: \(error)"
      return report
    }
    execute(&runner, &report)
    if keepFailed && !report.passed {
      runner.pair.keepDirectory()
      report.keptDirectory = runner.pair.layout.root
    }
    runner.pair.shutdown()
    return report
  }

  private func execute(_ runner: inout CampaignRun, _ report: inout CampaignReport) {
    for (index, action) in schedule().enumerated() {
      report.steps = index + 1
      trace?(index, action)
      do { try runner.perform(action, &report) } catch {
        report.failure = "step \(index + 1) (\(action)): \(error)"
        return
      }
      if let dead = runner.unexpectedDeath() {
        report.failure = "after step \(index + 1) (\(action)): the \(dead.0) daemon died unexpectedly (\(dead.1))"
        return
      }
    }
    do { try runner.healAndCheck(&report) } catch { report.failure = "after step \(report.steps): \(error)" }
  }
}

/// A request whose answer is collected later (so kills can land while it is in flight).
struct Outstanding {
  var pending: PendingOperation<Void>
  var device: DeviceKind
  var app: Int
  var uuids: [UUID]
  var isDelete: Bool
}

/// The state of one running campaign.
struct CampaignRun {
  let pair: Pair
  /// Sample identities and values: drawn in schedule order only, so the same seed saves the same samples.
  var rng: SeededGenerator
  /// Delete victims: a fixed number of draws per delete step, whatever the candidates, so a timing-dependent
  /// candidate list cannot shift the sample identities or later choices.
  var choices: SeededGenerator
  var clients: [DeviceKind: [DeviceClient]] = [:]
  var outstanding: [Outstanding] = []
  /// Acknowledged saves by app: (uuid, device it was saved on).
  var saved: [Int: [(UUID, DeviceKind)]] = [:]
  var deleted: Set<UUID> = []
  /// Deletions sent but not acknowledged (in flight at a kill, or rejected): they may or may not have applied.
  var uncertain: Set<UUID> = []
  var linkUp = true
  var held: Set<DeviceKind> = []
  var latency = 0
  var killed: Set<DeviceKind> = []
  var sampleCounter = 0
  /// Journal records each device had after set-up: `loseTail` never cuts into the apps and their grants.
  var setupRecords: [DeviceKind: Int] = [:]

  init(seed: UInt64, daemon: String?) throws {
    var options = LaunchOptions()
    options.logLevel = "warning"
    pair = try Pair(daemon: daemon, options: options)
    rng = SeededGenerator(seed: seed ^ 0x5EED)
    choices = SeededGenerator(seed: seed ^ 0xC401CE)
    for device in DeviceKind.allCases {
      let client = pair.client(device)
      try client.setClock(Campaign.start)
      for app in Campaign.apps + [Campaign.churn] { try client.installApp(app) }
      for app in Campaign.apps {
        let ticket = try client.beginAuthorization(
          app.bundleID, share: [Campaign.water, Campaign.mindful], read: [Campaign.water, Campaign.mindful])
        _ = try ticket.waitFirst(timeout: 10)
        try client.answerPrompt(.allowAll)
        _ = try ticket.wait(timeout: 10)
      }
    }
    for device in DeviceKind.allCases { try reconnect(device) }
    for device in DeviceKind.allCases {
      setupRecords[device] = try JournalSurgery.recordCount(pair.layout.journal(device))
    }
  }

  mutating func reconnect(_ device: DeviceKind) throws {
    clients[device] = try (0..<3).map { i in
      try DeviceClient(socketPath: pair.layout.socket(device), clientName: "chaos-\(device)-\(i)", timeout: 20)
    }
  }

  func unexpectedDeath() -> (DeviceKind, String)? {
    for device in DeviceKind.allCases {
      if let status = pair.process(device)?.exitStatus { return (device, "\(status)") }
    }
    return nil
  }

  /// Collects the answers that arrived, without waiting for the others.
  mutating func collect(wait: Bool, _ report: inout CampaignReport) {
    var still: [Outstanding] = []
    for item in outstanding {
      let result = wait ? Result { () throws(ClientError) in try item.pending.wait(timeout: 20) } : item.pending.result
      guard let result else {
        still.append(item)
        continue
      }
      switch (result, item.isDelete) {
      case (.success, false):
        saved[item.app, default: []] += item.uuids.map { ($0, item.device) }
        report.acknowledgedSamples += item.uuids.count
      case (.success, true):
        deleted.formUnion(item.uuids)
        report.acknowledgedDeletes = deleted.count
      case (.failure, false):
        report.unacknowledgedSamples += item.uuids.count
      case (.failure(.rejected), true):
        // The daemon answered with an error: a delete is all or nothing, so nothing was deleted (typically the
        // sample had not reached this device yet). The samples stay under every check.
        report.rejectedDeletes += item.uuids.count
      case (.failure, true):
        // No answer (in flight at a kill): it may or may not have been applied.
        uncertain.formUnion(item.uuids)
      }
    }
    outstanding = still
  }

  mutating func perform(_ action: ChaosAction, _ report: inout CampaignReport) throws {
    collect(wait: false, &report)
    switch action {
    case .save(let device, let app, let batches, let count):
      for b in 0..<batches {
        var inputs: [SampleInput] = []
        for _ in 0..<count {
          sampleCounter += 1
          let at = Campaign.start.addingTimeInterval(-Double(sampleCounter % 86400))
          inputs.append(
            SampleInput(
              uuid: rng.uuid(), type: Campaign.water, value: .quantity(Double(1 + sampleCounter % 500), unit: "mL"),
              start: at, end: at))
        }
        let client = clients[device]![b % 3]
        guard let pending = try? client.start(.save(Campaign.apps[app].bundleID, inputs)) else {
          report.unacknowledgedSamples += inputs.count
          continue
        }
        outstanding.append(
          Outstanding(pending: pending, device: device, app: app, uuids: inputs.map(\.uuid), isDelete: false))
      }
    case .delete(let device, let app, let count):
      let draws = (0..<count).map { _ in choices.next() }
      let candidates = (saved[app] ?? []).filter { !deleted.contains($0.0) }.map(\.0)
      guard !candidates.isEmpty else { return }
      let chosen = Set(draws.map { candidates[Int($0 % UInt64(candidates.count))] }).sorted {
        $0.uuidString < $1.uuidString
      }
      if let pending = try? clients[device]![0].start(.delete(Campaign.apps[app].bundleID, chosen)) {
        outstanding.append(Outstanding(pending: pending, device: device, app: app, uuids: chosen, isDelete: true))
      }
    case .authorize(let device, let answer):
      let client = clients[device]![1]
      let type = Campaign.churnType[device]!
      let ticket = try client.beginAuthorization(Campaign.churn.bundleID, share: [type], read: [type])
      if case .sheet = try ticket.waitFirst(timeout: 20) {
        let answers: [PromptAnswer] = [.allowAll, .denyAll, .cancel, .failToPresent(.error)]
        try client.answerPrompt(answers[answer], bundleID: Campaign.churn.bundleID)
        _ = try? ticket.wait(timeout: 20)
      }
    case .settings(let watchApp, let on):
      let client = clients[.phone]![2]
      let type = Campaign.churnType[watchApp ? .watch : .phone]!
      let change = SettingsChange.set(Permission(type, .share), on: on)
      // Settings list only what was requested: a refusal is an expected outcome here.
      if watchApp {
        _ = try? client.watchSettings(Campaign.churn.bundleID, change)
      } else {
        _ = try? client.changeSettings(Campaign.churn.bundleID, change)
      }
    case .query(let device):
      _ = try clients[device]![0].sampleQuery(Campaign.apps[0].bundleID, SampleQuery(type: Campaign.water, limit: 100))
    case .link(let up):
      guard up != linkUp else { return }
      linkUp = up
      if !up { report.partitions += 1 }
      for device in DeviceKind.allCases { try clients[device]![2].link(up ? .connect : .disconnect) }
    case .hold(let device, let hold):
      if hold {
        held.insert(device)
        report.holds += 1
      } else {
        held.remove(device)
      }
      try clients[device]![2].link(hold ? .hold : .release)
    case .latency(let ms):
      latency = ms
      for device in DeviceKind.allCases { try clients[device]![2].link(.latency(Double(ms) / 1000)) }
    case .kill(let device):
      report.kills += 1
      pair.kill(device)
      try pair.restart(device, waitForLink: false)
      try reconnect(device)
      let client = clients[device]![2]
      if !linkUp { try client.link(.disconnect) }
      if held.contains(device) { try client.link(.hold) }
      if latency > 0 { try client.link(.latency(Double(latency) / 1000)) }
    case .loseTail(let device, let records):
      // Only records that reached the other device may be lost without losing acknowledged data: every answer is
      // collected and the pair synced first. With the link down or held that cannot be had, so the step is skipped.
      guard linkUp, held.isEmpty else { return }
      collect(wait: true, &report)
      try pair.waitSynced(timeout: 30)
      // Every change number handed out before the cut stays handed out: the restarted daemon numbers its next change
      // above them all, or an app's anchored query from an anchor it holds would miss it (docs/journal.md).
      let handedOut = try clients[device]![2].dump().device.changeCounter
      pair.kill(device)
      let path = pair.layout.journal(device)
      let cut = min(records, try JournalSurgery.recordCount(path) - (setupRecords[device] ?? 0))
      if cut > 0, try JournalSurgery.dropLastRecords(path, count: cut) > 0 { report.tailCuts += 1 }
      report.kills += 1
      try pair.restart(device, waitForLink: false)
      try reconnect(device)
      let counter = try clients[device]![2].dump().device.changeCounter
      guard counter >= handedOut else {
        throw ChaosFailure(
          "the \(device)'s change numbers went back from \(handedOut) to \(counter) after its journal lost \(cut) "
            + "records: its next change would reuse a number an anchor covers")
      }
      if latency > 0 { try clients[device]![2].link(.latency(Double(latency) / 1000)) }
    case .settle:
      guard linkUp, held.isEmpty else { return }
      try pair.waitSynced(timeout: 30)
    }
  }

  /// Heals every fault, waits for sync, and checks the invariants.
  mutating func healAndCheck(_ report: inout CampaignReport) throws {
    // A daemon that died outside the schedule is the finding itself, not a connection error while healing.
    if let dead = unexpectedDeath() { throw ChaosFailure("the \(dead.0) daemon died unexpectedly (\(dead.1))") }
    for device in DeviceKind.allCases {
      let client = clients[device]![2]
      try client.link(.connect)
      try client.link(.release)
      try client.link(.latency(0))
    }
    linkUp = true
    held.removeAll()
    collect(wait: true, &report)
    report.uncertainDeletes = uncertain.subtracting(deleted).count
    try pair.waitLinked(timeout: 30)
    try pair.waitSynced(timeout: 60)
    let phone = try pair.phone.storedSamples()
    let watch = try pair.watch.storedSamples()
    report.storedSamples = phone.samples.count
    for (name, store) in [("phone", phone.samples), ("watch", watch.samples)]
    where Set(store.map(\.uuid)).count != store.count {
      throw ChaosFailure("a UUID is stored twice on the \(name)")
    }
    let phoneSet = Set(phone.samples.map(\.uuid))
    let watchSet = Set(watch.samples.map(\.uuid))
    for (app, entries) in saved {
      for (uuid, origin) in entries where !deleted.contains(uuid) && !uncertain.contains(uuid) {
        let present = (phoneSet.contains(uuid), watchSet.contains(uuid))
        if !present.0 || !present.1 {
          report.losses += 1
          if report.failure == nil {
            report.failure =
              "an acknowledged sample (\(uuid)) of app \(app) saved on the \(origin) is missing on the \(present.0 ? "watch" : "phone")"
          }
        }
      }
    }
    for uuid in deleted where phoneSet.contains(uuid) || watchSet.contains(uuid) {
      throw ChaosFailure("an acknowledged deletion (\(uuid)) is still stored")
    }
    if phoneSet != watchSet {
      throw ChaosFailure("the stores did not converge (\(phoneSet.symmetricDifference(watchSet).count) samples differ)")
    }
    if Set(phone.tombstones.map(\.uuid)) != Set(watch.tombstones.map(\.uuid)) {
      throw ChaosFailure("the deletions did not converge")
    }
    // Authorization never crossed: each device has decisions only for the type its own churn requests used.
    for device in DeviceKind.allCases {
      let decided =
        try pair.client(device).dump().device.app(Campaign.churn.bundleID)?.decisions.map(\.permission.type) ?? []
      if decided.contains(Campaign.churnType[device.peer]!) {
        throw ChaosFailure(
          "the \(device) has a decision for \(Campaign.churnType[device.peer]!.name), which only the \(device.peer) requested"
        )
      }
    }
    if let dead = unexpectedDeath() { throw ChaosFailure("the \(dead.0) daemon died unexpectedly (\(dead.1))") }
  }
}

/// An invariant violation.
struct ChaosFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
