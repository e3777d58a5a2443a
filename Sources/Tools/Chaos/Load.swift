import Dispatch
import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Scenario
import ScenarioLanguage
import Wire

/// A load run: many concurrent clients saving, querying and deleting on both devices of one pair for a bounded
/// time while sync runs, then a check that every acknowledgement held.
package struct LoadTest: Sendable {
  /// Concurrent client connections (split evenly between the phone and the watch).
  package var clients = 32
  /// How long the clients run, in seconds.
  package var seconds = 10.0
  /// The seed of the clients' choices.
  package var seed: UInt64 = 1
  /// The daemon executable (nil: locate it).
  package var daemon: String?
  /// Reply deadline of one request: a request unanswered this long counts as a lost acknowledgement.
  package var requestTimeout = 30.0

  /// Creates a load run.
  package init(clients: Int = 32, seconds: Double = 10, seed: UInt64 = 1, daemon: String? = nil) {
    self.clients = clients
    self.seconds = seconds
    self.seed = seed
    self.daemon = daemon
  }

  /// Runs the clients, waits for sync, checks acknowledgements and convergence.
  package func run() -> LoadReport {
    var report = LoadReport(clients: clients, seconds: seconds, seed: seed)
    do {
      try execute(&report)
    } catch {
      report.failures.append("\(error)")
    }
    return report
  }

  private func execute(_ report: inout LoadReport) throws {
    var options = LaunchOptions()
    options.logLevel = "warning"
    let pair = try Pair(daemon: daemon, options: options)
    defer { pair.shutdown() }
    for device in DeviceKind.allCases {
      let client = pair.client(device)
      try client.setClock(Campaign.start)
      for app in Campaign.apps {
        try client.installApp(app)
        let ticket = try client.beginAuthorization(app.bundleID, share: [Campaign.water], read: [Campaign.water])
        _ = try ticket.waitFirst(timeout: 10)
        try client.answerPrompt(.allowAll)
        _ = try ticket.wait(timeout: 10)
      }
    }
    // Connect every client before the clock starts, so the run measures requests, not connection setup.
    let connections = try (0..<clients).map { i in
      try DeviceClient(
        socketPath: pair.layout.socket(i % 2 == 0 ? .phone : .watch), clientName: "load-\(i)", timeout: requestTimeout)
    }
    let results = Locked<[LoadClientResult]>([])
    let group = DispatchGroup()
    let deadline = Posix.monotonicNanoseconds() + UInt64(seconds * 1e9)
    let started = Posix.monotonicNanoseconds()
    for (i, connection) in connections.enumerated() {
      group.enter()
      let worker = LoadWorker(
        index: i, device: i % 2 == 0 ? .phone : .watch, app: Campaign.apps[(i / 2) % Campaign.apps.count].bundleID,
        client: connection, seed: seed &* 1_000_003 &+ UInt64(i), deadline: deadline)
      Posix.startThread {
        let result = worker.run()
        results.withLock { $0.append(result) }
        group.leave()
      }
    }
    group.wait()
    report.elapsed = Double(Posix.monotonicNanoseconds() - started) / 1e9
    for connection in connections { connection.close() }
    let all = results.value
    for r in all {
      report.operations.merge(r.operations, uniquingKeysWith: +)
      report.savedSamples += r.saved.count
      report.deletedSamples += r.deleted.count
      report.errors.merge(r.errors, uniquingKeysWith: +)
      report.latencies.merge(r.latencies, uniquingKeysWith: +)
    }
    let syncStart = Posix.monotonicNanoseconds()
    try pair.waitSynced(timeout: 120)
    report.syncDrainSeconds = Double(Posix.monotonicNanoseconds() - syncStart) / 1e9
    // The high-water mark, so it covers the client phase and the sync drain.
    report.peakResidentMiB = DeviceKind.allCases.map { device in
      pair.process(device).flatMap { Posix.peakResidentBytes(of: $0.pid) }.map { Double($0) / 1_048_576 } ?? 0
    }
    // Every acknowledged save present on both devices, every acknowledged delete gone from both, stores equal.
    let phone = Set(try pair.phone.storedSamples().samples.map(\.uuid))
    let watch = Set(try pair.watch.storedSamples().samples.map(\.uuid))
    report.storedSamples = phone.count
    let deleted = Set(all.flatMap(\.deleted))
    for uuid in all.flatMap(\.saved) where !deleted.contains(uuid) {
      if !phone.contains(uuid) || !watch.contains(uuid) { report.lostAcknowledgements += 1 }
    }
    for uuid in deleted where phone.contains(uuid) || watch.contains(uuid) { report.lostAcknowledgements += 1 }
    if report.lostAcknowledgements > 0 {
      report.failures.append("\(report.lostAcknowledgements) acknowledged saves or deletes did not hold")
    }
    if phone != watch {
      report.failures.append("the stores did not converge (\(phone.symmetricDifference(watch).count) samples differ)")
    }
    for device in DeviceKind.allCases {
      if let status = pair.process(device)?.exitStatus {
        report.failures.append("the \(device) daemon died (\(status))")
      }
    }
    if !report.errors.isEmpty {
      report.failures.append(
        "unexpected errors: "
          + report.errors.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: "; "))
    }
  }
}

/// What a load run measured and found.
package struct LoadReport: Sendable {
  /// Concurrent clients.
  package var clients: Int
  /// Requested duration in seconds.
  package var seconds: Double
  /// The seed.
  package var seed: UInt64
  /// Actual duration of the client phase in seconds.
  package var elapsed = 0.0
  /// Requests answered, by kind.
  package var operations: [String: Int] = [:]
  /// Request latencies in seconds, by kind.
  package var latencies: [String: [Double]] = [:]
  /// Samples whose save was acknowledged.
  package var savedSamples = 0
  /// Samples whose delete was acknowledged.
  package var deletedSamples = 0
  /// Samples stored on the phone after sync.
  package var storedSamples = 0
  /// Errors by message (all unexpected: the workload only does what its app is allowed to do).
  package var errors: [String: Int] = [:]
  /// Acknowledged saves missing or acknowledged deletes still present after sync (must be 0).
  package var lostAcknowledgements = 0
  /// Peak resident memory of the phone and watch daemons, MiB.
  package var peakResidentMiB: [Double] = []
  /// Seconds from the end of the client phase until both devices were synced.
  package var syncDrainSeconds = 0.0
  /// What went wrong, if anything.
  package var failures: [String] = []

  /// Whether the run found nothing wrong.
  package var passed: Bool { failures.isEmpty }
  /// All requests answered.
  package var totalOperations: Int { operations.values.reduce(0, +) }

  /// The `p`-quantile latency of `kind` in milliseconds.
  package func latencyMilliseconds(_ kind: String, quantile p: Double) -> Double? {
    guard let values = latencies[kind], !values.isEmpty else { return nil }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] * 1000
  }
}

/// The outcome of one load client.
struct LoadClientResult: Sendable {
  var operations: [String: Int] = [:]
  var latencies: [String: [Double]] = [:]
  var saved: [UUID] = []
  var deleted: [UUID] = []
  var errors: [String: Int] = [:]
}

/// One load client's loop: saves (1–8 samples), sample queries, hourly statistics over a day, and deletes of
/// samples it saved itself on its own device, until the deadline.
struct LoadWorker: Sendable {
  let index: Int
  let device: DeviceKind
  let app: String
  let client: DeviceClient
  let seed: UInt64
  let deadline: UInt64

  func run() -> LoadClientResult {
    var rng = SeededGenerator(seed: seed)
    var result = LoadClientResult()
    var live: [UUID] = []
    var counter = 0
    while Posix.monotonicNanoseconds() < deadline {
      let roll = rng.next() % 10
      let kind: String
      let call: () throws(ClientError) -> Void
      var uuids: [UUID] = []
      switch roll {
      case 0..<5:
        kind = "save"
        let inputs = (0..<(1 + Int(rng.next() % 8))).map { _ -> SampleInput in
          counter += 1
          let at = Campaign.start.addingTimeInterval(-Double((index * 7919 + counter * 37) % 86_400))
          return SampleInput(
            uuid: rng.uuid(), type: Campaign.water, value: .quantity(Double(1 + counter % 500), unit: "mL"), start: at,
            end: at)
        }
        uuids = inputs.map(\.uuid)
        call = { () throws(ClientError) in try client.save(app, inputs) }
      case 5..<7:
        kind = "sampleQuery"
        let query = SampleQuery(type: Campaign.water, limit: 50, sort: [SampleSort(.endDate, ascending: false)])
        call = { () throws(ClientError) in _ = try client.sampleQuery(app, query) }
      case 7..<9:
        kind = "statisticsCollection"
        let dayStart = Campaign.start.addingTimeInterval(-86_400)
        let query = StatisticsQuery(
          type: Campaign.water, range: DateRange(start: dayStart, end: Campaign.start), options: .cumulativeSum,
          interval: .seconds(3600), anchor: dayStart)
        call = { () throws(ClientError) in _ = try client.statisticsCollection(app, query) }
      default:
        guard !live.isEmpty else { continue }
        kind = "delete"
        let victim = live.remove(at: Int(rng.next() % UInt64(live.count)))
        uuids = [victim]
        let victims = uuids
        call = { () throws(ClientError) in try client.delete(app, victims) }
      }
      let t = Posix.monotonicNanoseconds()
      do {
        try call()
        result.latencies[kind, default: []].append(Double(Posix.monotonicNanoseconds() - t) / 1e9)
        result.operations[kind, default: 0] += 1
        switch kind {
        case "save":
          result.saved += uuids
          live += uuids
        case "delete": result.deleted += uuids
        default: break
        }
      } catch {
        result.errors["\(kind): \(error)", default: 0] += 1
      }
    }
    return result
  }
}
