import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

// What the snapshot tests build on: deterministic samples and apps, a driver that journals operations as the daemon
// does, the phone and watch histories that touch every durable field, and the observations compared after a restore.

let steps = SampleType.lookup(name: "stepCount")!
let heartRate = SampleType.lookup(name: "heartRate")!
let waterApp = app
let returnApp = AppRecord(
  bundleID: "com.example.return", displayName: "Return", writeUsageDescription: "w", readUsageDescription: nil)
let stepsApp = AppRecord(
  bundleID: "com.example.steps", displayName: "Steps", writeUsageDescription: "w", readUsageDescription: "r")
let trackerApp = AppRecord(
  bundleID: "com.example.tracker", displayName: "Tracker", writeUsageDescription: nil, readUsageDescription: "r",
  entitlements: [.backgroundDelivery])

/// A deterministic identifier: the same history gives the same samples.
func uuid(_ n: Int, _ salt: UInt8 = 0) -> UUID {
  let b = (UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff))
  return UUID(uuid: (salt, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b.0, b.1, b.2, b.3))
}

/// A sample input from `t0 + start` lasting `seconds`.
func input(_ type: SampleType, _ value: SampleInput.Value, at start: Double, for seconds: Double, id: UUID)
  -> SampleInput
{
  let from = t0.addingTimeInterval(start)
  return SampleInput(uuid: id, type: type, value: value, start: from, end: from.addingTimeInterval(seconds))
}

/// A stored sample from `t0 + start` lasting `seconds`.
func sample(
  _ type: SampleType, _ value: SampleValue, at start: Double, for seconds: Double, id: UUID, from source: SampleSource
) -> Sample {
  let from = t0.addingTimeInterval(start)
  return Sample(uuid: id, type: type, value: value, start: from, end: from.addingTimeInterval(seconds), source: source)
}

func waterAt(_ seconds: Double, _ mL: Double, id: UUID, metadata: Metadata = [:]) -> SampleInput {
  let date = t0.addingTimeInterval(seconds)
  return SampleInput(
    uuid: id, type: water, value: .quantity(mL, unit: "mL"), start: date, end: date, metadata: metadata)
}

/// Drives a durable device through operations, journaling what they return as the daemon does (acknowledgements
/// lazily: applied in memory, journaled only when asked).
struct Driver {
  let device: DurableDevice
  var wall: Date { device.state.now(wall: t0) }

  func run(_ events: [DeviceEvent]) throws { try device.persist(events) }

  func grant(_ app: String, share: Set<SampleType>, read: Set<SampleType>, answer: PromptAnswer = .allowAll) throws {
    let outcome = try device.state.requestAuthorization(app, share: share, read: read, wall: wall)
    guard case .prompt(let prompt) = outcome else {
      Issue.record("expected a sheet for \(app)")
      return
    }
    try run(device.state.answerPrompt(id: prompt.id, bundleID: nil, answer: answer).events)
  }

  func save(_ app: String, _ inputs: [SampleInput]) throws { try run(device.state.save(app, inputs, wall: wall)) }
  func delete(_ app: String, _ ids: [UUID]) throws { try run(device.state.delete(app, ids, wall: wall)) }
  func lazyAck(_ seq: UInt64) { _ = device.state.receivePeerAck(seq) }
}

/// A phone history touching every durable field: apps installed and removed, answered, cancelled and changed
/// permissions, a strict policy's lock-outs, saves in and out of date order with metadata, deletions, peer
/// entries (new samples, conflicts, remote deletions, settings), acknowledgements journaled and lazy, a sync log
/// restart, a peer log adoption, clock changes.
func phoneHistory(_ d: Driver, part: Int) throws {
  let phoneSource = SampleSource(bundleID: waterApp.bundleID, device: .phone)
  let watchSource = SampleSource(bundleID: returnApp.bundleID, device: .watch)
  switch part {
  case 0:
    try d.run(d.device.state.setClock(t0))
    for app in [waterApp, returnApp, stepsApp, trackerApp] { try d.run(d.device.state.install(app)) }
    try d.run(d.device.state.setPolicy(DevicePolicy(reprompt: .strict, retention: nil)))
    try d.run(d.device.state.enableBackgroundDelivery(trackerApp.bundleID, water, .hourly))
    try d.run(d.device.state.enableBackgroundDelivery(trackerApp.bundleID, steps, .weekly))
    try d.grant(waterApp.bundleID, share: [water, steps], read: [water, steps])
    try d.grant(returnApp.bundleID, share: [mindful], read: [], answer: .choices([Permission(mindful, .share): true]))
    let request = try d.device.state.requestAuthorization(
      stepsApp.bundleID, share: [steps], read: [heartRate], wall: d.wall)
    if case .prompt(let p) = request {
      try d.run(d.device.state.answerPrompt(id: p.id, bundleID: nil, answer: .cancel).events)
    }
    // In date order, then a run out of order (a date index with an unsorted tail), metadata on some.
    try d.save(
      waterApp.bundleID,
      (0..<300).map { i in
        let metadata: Metadata = i % 10 == 0 ? ["n": .int(Int64(i)), "HKWasUserEntered": .bool(true)] : [:]
        return waterAt(Double(i) * 600, Double(i % 7) * 50 + 1, id: uuid(i), metadata: metadata)
      })
    try d.save(waterApp.bundleID, (300..<340).map { waterAt(Double(340 - $0) * 97 - 3600, 5, id: uuid($0)) })
    try d.save(
      waterApp.bundleID,
      (0..<50).map { i in
        input(steps, .quantity(Double(i * 10), unit: "count"), at: Double(i) * 3600, for: 1800, id: uuid(i, 1))
      })
    try d.save(
      returnApp.bundleID,
      (0..<10).map { i in
        input(mindful, .category(0), at: Double(i) * 7200, for: 600, id: uuid(i, 2))
      })
    try d.delete(waterApp.bundleID, (0..<30).map { uuid($0 * 3) })
    try d.run(d.device.state.changeSettings(waterApp.bundleID, .set(Permission(steps, .read), on: false)))
    try d.run(d.device.state.queueWatchSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: true)))
    try d.run(d.device.state.adoptPeerLog(4242))
    // From the watch: new samples, one conflict (the same identifier, other contents), deletions, settings.
    let conflicting = sample(water, .quantity(999), at: 0, for: 0, id: uuid(1), from: phoneSource)
    let fromWatch = (0..<20).map { i in
      sample(mindful, .category(0), at: Double(i) * 60, for: 30, id: uuid(i, 3), from: watchSource)
    }
    let deletion = Tombstone(uuid: uuid(0, 3), type: mindful, source: watchSource, deletedAt: t0)
    let entries = [
      SyncEntry(seq: 1, payload: .samples(fromWatch + [conflicting])),
      SyncEntry(seq: 2, payload: .deletions([deletion])),
      SyncEntry(seq: 3, payload: .watchSettings(bundleID: returnApp.bundleID, change: .reset)),
    ]
    try d.run(d.device.state.receivePeerEntries(entries, wall: d.wall))
    try d.run(d.device.state.receivePeerAck(3))
    d.lazyAck(5)
  case 1:
    try d.run(d.device.state.restartSyncLog(logID: 0xABCDEF))
    d.lazyAck(2)
    try d.run(d.device.state.advanceClock(by: 86_400, wall: t0))
    try d.save(waterApp.bundleID, (400..<450).map { waterAt(Double($0) * 60 - 50_000, 3, id: uuid($0)) })
    try d.run(d.device.state.uninstall(stepsApp.bundleID).events)
    try d.run(d.device.state.changeSettings(returnApp.bundleID, .turnAllOff))
    d.lazyAck(4)
  default:
    try d.save(waterApp.bundleID, (500..<520).map { waterAt(Double($0) * -30, 7, id: uuid($0)) })
    try d.delete(waterApp.bundleID, [uuid(301), uuid(302), uuid(500)])
    let late = sample(mindful, .category(0), at: 0, for: 5, id: uuid(99, 3), from: watchSource)
    try d.run(d.device.state.receivePeerEntries([SyncEntry(seq: 4, payload: .samples([late]))], wall: d.wall))
    try d.run(d.device.state.setClock(nil))
  }
}

/// A watch history: a retention window that prunes (dead slots without tombstones), conflicts the phone wins
/// (the watch replaces its copy: two slots, one identifier), Watch-app settings applied.
func watchHistory(_ d: Driver, part: Int) throws {
  let phoneSource = SampleSource(bundleID: waterApp.bundleID, device: .phone)
  switch part {
  case 0:
    try d.run(d.device.state.setClock(t0))
    for app in [waterApp, returnApp] { try d.run(d.device.state.install(app)) }
    try d.grant(waterApp.bundleID, share: [water], read: [water])
    try d.save(waterApp.bundleID, (0..<100).map { waterAt(Double($0) * 3600, 10, id: uuid($0, 5)) })
    let theirs = sample(water, .quantity(77), at: 0, for: 0, id: uuid(7, 5), from: phoneSource)
    let readOff = SettingsChange.set(Permission(water, .read), on: false)
    let entries = [
      SyncEntry(seq: 1, payload: .samples([theirs])),
      SyncEntry(seq: 2, payload: .watchSettings(bundleID: waterApp.bundleID, change: readOff)),
    ]
    try d.run(d.device.state.receivePeerEntries(entries, wall: d.wall))
    try d.run(d.device.state.advanceClock(by: 10 * 86_400, wall: t0))
  case 1:
    try d.save(waterApp.bundleID, (200..<230).map { waterAt(10 * 86_400 + Double($0), 1, id: uuid($0, 5)) })
    d.lazyAck(1)
  default:
    try d.delete(waterApp.bundleID, [uuid(201, 5)])
    try d.run(d.device.state.setPolicy(DevicePolicy(reprompt: .standard, retention: 3 * 86_400)))
  }
}

/// Every query kind on every type for every app, and the sync and digest views: what must not change when the
/// state comes from a snapshot instead of a replay.
func observations(_ state: inout DeviceState) -> (values: [AnyHashable], answered: Int) {
  var out: [AnyHashable] = []
  var answered = 0
  let wall = t0
  for app in [waterApp.bundleID, returnApp.bundleID] {
    for type in [water, steps, mindful] {
      let ranges: [DateRange?] = [
        nil, DateRange(start: t0, end: t0.addingTimeInterval(86_400)),
        DateRange(start: t0.addingTimeInterval(-7200), end: nil, options: .strictStartDate),
      ]
      func note<T: Hashable>(_ body: () throws -> T) {
        let result = try? body()
        if result != nil { answered += 1 }
        out.append(AnyHashable(result))
      }
      for range in ranges {
        note { try state.sampleQuery(app, SampleQuery(type: type, range: range, limit: 0), wall: wall) }
        let latest = SampleQuery(type: type, range: range, limit: 7, sort: [SampleSort(.startDate, ascending: false)])
        note { try state.sampleQuery(app, latest, wall: wall) }
      }
      if type.isQuantity {
        let hourly = StatisticsQuery(type: type, options: .cumulativeSum, interval: 3600, anchor: t0)
        note { try state.statisticsCollection(app, hourly, wall: wall) }
      }
      for anchor in [0, state.store.changeCounter / 3, state.store.changeCounter - 1] {
        note { try state.anchoredQuery(app, type: type, anchor: anchor, range: nil, limit: 0, wall: wall) }
        note { try state.anchoredQuery(app, type: type, anchor: anchor, range: nil, limit: 5, wall: wall) }
      }
    }
  }
  out.append(state.outboundEntries(after: state.sync.peerAcked, maxItems: 100_000))
  out.append(state.storedWorkouts())
  out.append(state.storedRoutes(workout: nil))
  out.append(state.storedActivitySummaries())
  out.append(state.store.dayDigests(from: Int64.min))
  out.append(state.snapshot(wall: wall))
  return (out, answered)
}
