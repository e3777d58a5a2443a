import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

/// One row of WWDC16 session 209's table, plus revocation after a grant.
struct VisibilityCase: Sendable, CustomTestStringConvertible {
  let name: String
  let read: Decision?
  let share: Decision?
  let revokeShareAfterSave: Bool
  let seesOwn: Bool
  let seesOthers: Bool
  /// The query fails with `errorAuthorizationNotDetermined` instead (read never decided).
  var notDetermined = false
  var testDescription: String { name }
}

@Suite("Saving, deleting and reading")
struct StoreTests {
  static let visibility: [VisibilityCase] = [
    .init(
      name: "read + write: everything", read: .authorized, share: .authorized, revokeShareAfterSave: false,
      seesOwn: true, seesOthers: true),
    .init(
      name: "read only: everything", read: .authorized, share: .denied, revokeShareAfterSave: false, seesOwn: true,
      seesOthers: true),
    .init(
      name: "write only: own data only", read: .denied, share: .authorized, revokeShareAfterSave: false, seesOwn: true,
      seesOthers: false),
    .init(
      name: "write, read never asked: code 5", read: nil, share: .authorized, revokeShareAfterSave: false,
      seesOwn: false,
      seesOthers: false, notDetermined: true),
    .init(
      name: "write revoked, no read: nothing, not even own", read: .denied, share: .authorized,
      revokeShareAfterSave: true, seesOwn: false, seesOthers: false),
    .init(
      name: "write revoked, read granted: everything", read: .authorized, share: .authorized,
      revokeShareAfterSave: true, seesOwn: true, seesOthers: true),
    .init(
      name: "none: nothing", read: .denied, share: .denied, revokeShareAfterSave: false, seesOwn: false,
      seesOthers: false),
    .init(
      name: "never asked: code 5", read: nil, share: nil, revokeShareAfterSave: false, seesOwn: false,
      seesOthers: false,
      notDetermined: true),
  ]

  @Test("Read visibility (WWDC16-209)", arguments: visibility)
  func readVisibility(_ c: VisibilityCase) throws {
    var phone = makeDevice()
    let other = AppRecord(
      bundleID: "com.other", displayName: "Other", writeUsageDescription: "w", readUsageDescription: "r")
    _ = try phone.install(other)
    try phone.grant(other.bundleID, share: [water])
    _ = try phone.save(other.bundleID, [waterInput(500)], wall: t0)
    var choices: [Permission: Bool] = [:]
    var share: Set<SampleType> = []
    var read: Set<SampleType> = []
    if let s = c.share {
      share.insert(water)
      choices[Permission(water, .share)] = s == .authorized || c.revokeShareAfterSave
    }
    if let r = c.read {
      read.insert(water)
      choices[Permission(water, .read)] = r == .authorized
    }
    let ownUUID = UUID()
    if !share.isEmpty || !read.isEmpty {
      try phone.grant(waterApp.bundleID, share: share, read: read, answer: .choices(choices))
    }
    if phone.decision(waterApp.bundleID, Permission(water, .share)) == .authorized {
      _ = try phone.save(waterApp.bundleID, [waterInput(250, uuid: ownUUID)], wall: t0)
    }
    if c.revokeShareAfterSave {
      _ = try phone.changeSettings(waterApp.bundleID, .set(Permission(water, .share), on: false))
    }
    if c.notDetermined {
      // healthd refuses the query's configuration: the read permission was never decided (R5).
      #expect(throws: HealthError.healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")) {
        try phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water), wall: t0)
      }
      return
    }
    let seen = try phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water), wall: t0)
    let hasOwnSample = phone.storedSamples(type: water, wall: t0).contains { $0.uuid == ownUUID }
    #expect(seen.contains { $0.uuid == ownUUID } == (c.seesOwn && hasOwnSample))
    #expect(seen.contains { $0.source.bundleID == other.bundleID } == c.seesOthers)
    // A decided read permission is never an error, and status never reveals the read decision.
    #expect(
      try phone.authorizationStatus(waterApp.bundleID, water) != .sharingAuthorized
        || c.share == .authorized && !c.revokeShareAfterSave)
  }

  @Test func saveRequiresRequestedShareAndIsAllOrNothing() throws {
    var phone = makeDevice()
    expectError(.errorAuthorizationNotDetermined) { _ = try phone.save(waterApp.bundleID, [waterInput(250)], wall: t0) }
    try phone.grant(waterApp.bundleID, share: [water], read: [], answer: .denyAll)
    expectError(.errorAuthorizationDenied) { _ = try phone.save(waterApp.bundleID, [waterInput(250)], wall: t0) }
    _ = try phone.changeSettings(waterApp.bundleID, .set(Permission(water, .share), on: true))
    // A batch with one bad object saves nothing.
    let bad = SampleInput(uuid: UUID(), type: water, value: .quantity(1, unit: "kg"), start: t0, end: t0)
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try phone.save(waterApp.bundleID, [waterInput(250), bad], wall: t0)
    }
    expectError(.errorAuthorizationNotDetermined) {
      _ = try phone.save(waterApp.bundleID, [waterInput(250), mindfulInput(minutes: 1)], wall: t0)
    }
    #expect(phone.storedSamples(wall: t0).isEmpty)
    expectError(.errorInvalidArgument) { _ = try phone.save(waterApp.bundleID, [], wall: t0) }
  }

  @Test func aDuplicateUUIDIsAnInvalidArgument() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water])
    let id = UUID()
    _ = try phone.save(waterApp.bundleID, [waterInput(250, uuid: id)], wall: t0)
    expectError(.errorInvalidArgument) { _ = try phone.save(waterApp.bundleID, [waterInput(100, uuid: id)], wall: t0) }
    let other = UUID()
    expectError(.errorInvalidArgument) {
      _ = try phone.save(waterApp.bundleID, [waterInput(1, uuid: other), waterInput(2, uuid: other)], wall: t0)
    }
    #expect(phone.storedSamples(wall: t0).count == 1)
  }

  @Test func deleteRules() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    let own = UUID()
    _ = try phone.save(waterApp.bundleID, [waterInput(250, uuid: own)], wall: t0)
    try phone.grant(returnApp.bundleID, share: [water])
    let theirs = UUID()
    _ = try phone.save(returnApp.bundleID, [waterInput(100, uuid: theirs)], wall: t0)
    // Another app's object is "not found", exactly like one that does not exist.
    expectError(.errorInvalidArgument) { _ = try phone.delete(waterApp.bundleID, [theirs], wall: t0) }
    expectError(.errorInvalidArgument) { _ = try phone.delete(waterApp.bundleID, [UUID()], wall: t0) }
    expectError(.errorInvalidArgument) { _ = try phone.delete(waterApp.bundleID, [], wall: t0) }
    // All or nothing.
    expectError(.errorInvalidArgument) { _ = try phone.delete(waterApp.bundleID, [own, UUID()], wall: t0) }
    #expect(phone.storedSamples(wall: t0).count == 2)
    let events = try phone.delete(waterApp.bundleID, [own], wall: t0)
    guard case .samplesDeleted(let tombstones) = events.first else {
      Issue.record("expected a deletion event")
      return
    }
    #expect(tombstones.map(\.uuid) == [own])
    #expect(phone.storedTombstones.map(\.uuid) == [own])
    expectError(.errorInvalidArgument) { _ = try phone.delete(waterApp.bundleID, [own], wall: t0) }
    // After revocation an app can no longer delete its own objects.
    let again = UUID()
    _ = try phone.save(waterApp.bundleID, [waterInput(1, uuid: again)], wall: t0)
    _ = try phone.changeSettings(waterApp.bundleID, .set(Permission(water, .share), on: false))
    expectError(.errorAuthorizationDenied) { _ = try phone.delete(waterApp.bundleID, [again], wall: t0) }
  }

  @Test func watchRetentionWindow() throws {
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful])
    let eight = t0.addingTimeInterval(-8 * 86400)
    #expect(watch.earliestPermittedSampleDate(wall: t0) == t0.addingTimeInterval(-7 * 86400))
    expectError(.errorInvalidArgument) {
      _ = try watch.save(returnApp.bundleID, [mindfulInput(minutes: 10, at: eight)], wall: t0)
    }
    _ = try watch.save(returnApp.bundleID, [mindfulInput(minutes: 10, at: t0.addingTimeInterval(-86400))], wall: t0)
    #expect(watch.storedSamples(wall: t0).count == 1)
    // Seven days later the sample falls out of the window and is pruned.
    _ = try watch.advanceClock(by: 7 * 86400, wall: t0)
    #expect(watch.storedSamples(wall: t0).isEmpty)
    #expect(watch.store.liveCount == 0)
    #expect(makeDevice(.phone).earliestPermittedSampleDate(wall: t0) == .distantPast)
  }

  @Test func datePredicateSemantics() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    // A: 07:30–08:30 (straddles 08:00), B: 08:00–08:00, C: 09:00–10:00, D: 10:00–10:00.
    let a = SampleInput(
      uuid: UUID(), type: water, value: .quantity(1, unit: "mL"), start: t0.addingTimeInterval(-1800),
      end: t0.addingTimeInterval(1800))
    let b = waterInput(2, at: t0)
    let c = SampleInput(
      uuid: UUID(), type: water, value: .quantity(3, unit: "mL"), start: t0.addingTimeInterval(3600),
      end: t0.addingTimeInterval(7200))
    let d = waterInput(4, at: t0.addingTimeInterval(7200))
    _ = try phone.save(waterApp.bundleID, [a, b, c, d], wall: t0)
    func values(_ start: TimeInterval, _ end: TimeInterval, _ options: QueryOptions) throws -> [Double] {
      let range = DateRange(start: t0.addingTimeInterval(start), end: t0.addingTimeInterval(end), options: options)
      return try phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water, range: range), wall: t0).map {
        $0.quantityValue!
      }.sorted()
    }
    // Default: endDate >= start AND startDate < end.
    #expect(try values(0, 7200, []) == [1, 2, 3])
    #expect(try values(0, 7200, .strictStartDate) == [2, 3])
    #expect(try values(0, 7200, .strictEndDate) == [1, 2, 3, 4])
    #expect(try values(0, 7200, [.strictStartDate, .strictEndDate]) == [2, 3, 4])
    #expect(try values(7200, 9000, []) == [3, 4])
  }

  @Test func sortLimitAndSourceFilter() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    try phone.grant(returnApp.bundleID, share: [water])
    for hour in [3.0, 1, 2] {
      _ = try phone.save(waterApp.bundleID, [waterInput(hour, at: t0.addingTimeInterval(hour * 3600))], wall: t0)
    }
    _ = try phone.save(returnApp.bundleID, [waterInput(9, at: t0)], wall: t0)
    let defaultOrder = try phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water), wall: t0).map {
      $0.quantityValue!
    }
    #expect(defaultOrder == [9, 1, 2, 3])
    let descending = try phone.sampleQuery(
      waterApp.bundleID, SampleQuery(type: water, limit: 2, sort: [SampleSort(.endDate, ascending: false)]), wall: t0)
    #expect(descending.map { $0.quantityValue! } == [3, 2])
    let mine = try phone.sampleQuery(
      waterApp.bundleID, SampleQuery(type: water, sources: [waterApp.bundleID]), wall: t0)
    #expect(mine.count == 3)
  }

  @Test func statistics() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water, heartRate], read: [water, heartRate])
    _ = try phone.save(waterApp.bundleID, [waterInput(250), waterInput(500, at: t0.addingTimeInterval(60))], wall: t0)
    let day = DateRange(start: parseDate("2026-01-05")!, end: parseDate("2026-01-06")!)
    let sum = try phone.statistics(
      waterApp.bundleID, StatisticsQuery(type: water, range: day, options: .cumulativeSum), wall: t0)
    #expect(sum.sum == 750)
    #expect(sum.sampleCount == 2)
    // Wrong kind of option for the type: an exception on a device.
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try phone.statistics(waterApp.bundleID, StatisticsQuery(type: water, options: .discreteAverage), wall: t0)
    }
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try phone.statistics(waterApp.bundleID, StatisticsQuery(type: heartRate, options: .cumulativeSum), wall: t0)
    }
    // Nothing matches: errorNoData.
    expectError(.errorNoData) {
      _ = try phone.statistics(waterApp.bundleID, StatisticsQuery(type: heartRate, options: .discreteAverage), wall: t0)
    }
    let bpm = [60.0, 90, 120].map { v in
      SampleInput(uuid: UUID(), type: heartRate, value: .quantity(v, unit: "count/min"), start: t0, end: t0)
    }
    _ = try phone.save(waterApp.bundleID, bpm, wall: t0)
    let hr = try phone.statistics(
      waterApp.bundleID, StatisticsQuery(type: heartRate, options: [.discreteAverage, .discreteMin, .discreteMax]),
      wall: t0)
    #expect(abs(hr.average! - 1.5) < 1e-12)  // 90 count/min in count/s
    #expect(abs(hr.minimum! - 1) < 1e-12)
    #expect(abs(hr.maximum! - 2) < 1e-12)
  }

  @Test func soundLevelsAverageAsEquivalentContinuousLevels() throws {
    // discreteEquivalentContinuousLevel (audio exposure): Leq = 10·log10(mean of 10^(L/10)), weighted by duration.
    let audio = SampleType.lookup(name: "environmentalAudioExposure")!
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [audio], read: [audio])
    func level(_ dB: Double, at start: Date, minutes: Double) -> SampleInput {
      SampleInput(
        uuid: UUID(), type: audio, value: .quantity(dB, unit: "dBASPL"), start: start,
        end: start.addingTimeInterval(minutes * 60))
    }
    _ = try phone.save(
      waterApp.bundleID, [level(60, at: t0, minutes: 30), level(90, at: t0.addingTimeInterval(1800), minutes: 10)],
      wall: t0)
    let stats = try phone.statistics(
      waterApp.bundleID, StatisticsQuery(type: audio, options: [.discreteAverage, .discreteMax]), wall: t0)
    // (30 min × 10^6 + 10 min × 10^9) / 40 min → 10·log10(2.50075e8) ≈ 83.98 dBASPL, not the arithmetic 67.5.
    let expected = 10 * log10((30 * 1e6 + 10 * 1e9) / 40)
    #expect(abs(stats.average! - expected) < 1e-9)
    #expect(stats.maximum == 90)
    // Levels far beyond a Double's range of powers stay finite (D9 allows up to 1e250 in the canonical unit).
    _ = try phone.save(waterApp.bundleID, [level(1e200, at: t0.addingTimeInterval(7200), minutes: 1)], wall: t0)
    let huge = try phone.statistics(
      waterApp.bundleID, StatisticsQuery(type: audio, options: .discreteAverage), wall: t0)
    #expect(huge.average!.isFinite)
  }

  @Test func dailyCollectionProratesSamplesAcrossMidnight() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [steps], read: [steps])
    let lateNight = parseDate("2026-01-05T23:00:00Z")!
    let walk = SampleInput(
      uuid: UUID(), type: steps, value: .quantity(1000, unit: "count"), start: lateNight,
      end: lateNight.addingTimeInterval(7200))
    _ = try phone.save(
      waterApp.bundleID,
      [walk, SampleInput(uuid: UUID(), type: steps, value: .quantity(10, unit: "count"), start: t0, end: t0)], wall: t0)
    let query = StatisticsQuery(
      type: steps, range: DateRange(start: parseDate("2026-01-04")!, end: parseDate("2026-01-07")!),
      options: .cumulativeSum,
      interval: 86400, anchor: parseDate("2026-01-01")!)
    let buckets = try phone.statisticsCollection(waterApp.bundleID, query, wall: t0)
    #expect(buckets.map(\.start) == [parseDate("2026-01-04")!, parseDate("2026-01-05")!, parseDate("2026-01-06")!])
    #expect(buckets.map(\.sum) == [nil, 510, 500])
  }

  @Test func anchoredQueryReturnsAdditionsAndDeletionsSinceTheAnchor() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    let first = UUID()
    _ = try phone.save(waterApp.bundleID, [waterInput(1, uuid: first), waterInput(2)], wall: t0)
    let initial = try phone.anchoredQuery(waterApp.bundleID, type: water, anchor: 0, range: nil, limit: 0, wall: t0)
    #expect(initial.added.count == 2)
    #expect(initial.deleted.isEmpty)
    _ = try phone.save(waterApp.bundleID, [waterInput(3)], wall: t0)
    _ = try phone.delete(waterApp.bundleID, [first], wall: t0)
    let next = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: initial.newAnchor, range: nil, limit: 0, wall: t0)
    #expect(next.added.map { $0.quantityValue! } == [3])
    #expect(next.deleted.map(\.uuid) == [first])
    let limited = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: initial.newAnchor, range: nil, limit: 1, wall: t0)
    #expect(limited.added.count == 1 && limited.deleted.isEmpty)
    let rest = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: limited.newAnchor, range: nil, limit: 0, wall: t0)
    #expect(rest.added.isEmpty && rest.deleted.map(\.uuid) == [first])
    let none = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: next.newAnchor, range: nil, limit: 0, wall: t0)
    #expect(none.added.isEmpty && none.deleted.isEmpty)
  }
}

@Suite("Sync bookkeeping in the engine")
struct EngineSyncTests {
  @Test func samplesAndDeletionsFlowAndReDeliveryIsIgnored() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful])
    let id = UUID()
    _ = try watch.save(returnApp.bundleID, [mindfulInput(minutes: 10, uuid: id)], wall: t0)
    let entries = watch.outboundEntries(after: 0, maxItems: 100)
    #expect(entries.map(\.seq) == [1])
    #expect(!phone.receivePeerEntries(entries, wall: t0).isEmpty)
    #expect(phone.receivePeerEntries(entries, wall: t0).isEmpty, "a re-delivery applies nothing")
    let mirrored = try #require(phone.storedSamples(wall: t0).first)
    #expect(mirrored.uuid == id && mirrored.source == SampleSource(bundleID: returnApp.bundleID, device: .watch))
    _ = try watch.delete(returnApp.bundleID, [id], wall: t0)
    _ = phone.receivePeerEntries(watch.outboundEntries(after: 1, maxItems: 100), wall: t0)
    #expect(phone.storedSamples(wall: t0).isEmpty)
    #expect(phone.storedTombstones.map(\.uuid) == [id])
    // The phone never received authorization.
    #expect(try phone.authorizationStatus(returnApp.bundleID, mindful) == .notDetermined)
    _ = watch.receivePeerAck(2)
    #expect(watch.sync.pendingCount == 0)
  }

  @Test func gapsAreNotApplied() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful])
    for _ in 0..<3 { _ = try watch.save(returnApp.bundleID, [mindfulInput(minutes: 1)], wall: t0) }
    let entries = watch.outboundEntries(after: 0, maxItems: 100)
    _ = phone.receivePeerEntries([entries[0], entries[2]], wall: t0)
    #expect(phone.sync.appliedFromPeer == 1)
  }

  @Test func theWatchDoesNotMirrorPhoneSamplesOlderThanItsWindow() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try phone.grant(waterApp.bundleID, share: [water])
    _ = try phone.save(
      waterApp.bundleID, [waterInput(1, at: t0.addingTimeInterval(-30 * 86400)), waterInput(2)], wall: t0)
    _ = watch.receivePeerEntries(phone.outboundEntries(after: 0, maxItems: 100), wall: t0)
    #expect(watch.storedSamples(wall: t0).map { $0.quantityValue! } == [2])
  }

  @Test func largeSavesAreSplitIntoBoundedEntries() throws {
    var phone = makeDevice(.phone)
    try phone.grant(waterApp.bundleID, share: [water])
    _ = try phone.save(waterApp.bundleID, (0..<10_000).map { _ in waterInput(1) }, wall: t0)
    #expect(phone.sync.lastSeq == 3)
    #expect(phone.outboundEntries(after: 0, maxItems: 5000).count == 1)
    #expect(phone.outboundEntries(after: 1, maxItems: 100_000).map(\.seq) == [2, 3])
  }
}

@Suite("Replay")
struct ReplayTests {
  /// Applying the recorded events to a fresh device rebuilds exactly the same state.
  @Test(arguments: [1, 2, 3, 42])
  func replayRebuildsTheSameState(seed: UInt64) throws {
    var rng = SplitMix(seed: seed)
    var live = makeDevice(.watch)
    var log: [DeviceEvent] = [.clockSet(t0)] + [waterApp, returnApp].map { DeviceEvent.appInstalled($0) }
    let types = [water, mindful, steps]
    var saved: [UUID] = []
    for _ in 0..<300 {
      do {
        switch rng.next() % 7 {
        case 0:
          let type = types[Int(rng.next() % 3)]
          if case .prompt = try live.requestAuthorization(waterApp.bundleID, share: [type], read: [type], wall: t0) {
            let answers: [PromptAnswer] = [.allowAll, .denyAll, .cancel, .failToPresent(.error)]
            log += try live.answerPrompt(id: nil, bundleID: nil, answer: answers[Int(rng.next() % 4)]).events
          }
        case 1, 2:
          let id = UUID(uuid: rng.uuid())
          log += try live.save(
            waterApp.bundleID,
            [waterInput(Double(rng.next() % 500), at: t0.addingTimeInterval(-Double(rng.next() % 500_000)), uuid: id)],
            wall: t0)
          saved.append(id)
        case 3:
          if let id = saved.randomElement(using: &rng) { log += try live.delete(waterApp.bundleID, [id], wall: t0) }
        case 4:
          log += try live.advanceClock(by: Double(rng.next() % 86400), wall: t0)
        case 5:
          log += try live.queueWatchSettings(waterApp.bundleID, .reset)
        default:
          log += try live.setPolicy(
            DevicePolicy(reprompt: rng.next() % 2 == 0 ? .strict : .standard, retention: 7 * 86400))
        }
      } catch {
        // Rejected operations change nothing and return no events.
      }
    }
    var replayed = DeviceState(device: .watch)
    for event in log { replayed.apply(event) }
    var live2 = live
    _ = live2.withdrawAllPrompts()
    #expect(replayed.snapshot(wall: t0).apps == live.snapshot(wall: t0).apps)
    #expect(replayed.storedSamples(wall: t0) == live.storedSamples(wall: t0))
    #expect(replayed.storedTombstones == live.storedTombstones)
    #expect(replayed.sync == live.sync)
    #expect(replayed.virtualNow == live.virtualNow)
    #expect(replayed.policy == live.policy)
  }
}

/// A small deterministic generator for tests.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func uuid() -> uuid_t {
    let a = next()
    let b = next()
    return withUnsafeBytes(of: (a, b)) { $0.load(as: uuid_t.self) }
  }
}

@Suite("Top-k selection")
struct TopKTests {
  @Test func theSmallestKEqualTheSortedPrefix() {
    var state: UInt64 = 42
    func next() -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(state >> 45)
    }
    for size in [0, 1, 2, 7, 50, 51, 1000] {
      let values = (0..<size).map { _ in next() % 300 }  // many ties
      for k in [0, 1, 3, 50, 999, 2000] {
        // Ties broken by position, so the order is total, as the engine's is.
        let indexed = Array(values.enumerated())
        let order = { (a: (offset: Int, element: Int), b: (offset: Int, element: Int)) in
          a.element != b.element ? a.element > b.element : a.offset < b.offset
        }
        let expected = Array(indexed.sorted(by: order).prefix(k))
        #expect(indexed.smallest(k, by: order).map(\.offset) == expected.map(\.offset), "size \(size), k \(k)")
        // With the first key given (descending element: the key is its negation), the result is the same.
        #expect(
          indexed.smallest(k, key: { -Double($0.element) }, by: order).map(\.offset) == expected.map(\.offset),
          "keyed, size \(size), k \(k)")
      }
    }
  }
}

@Suite("Index against brute force")
struct IndexPropertyTests {
  /// Saves in random date order (with ties and durations), deletes, and range queries sorted by start or end date,
  /// ascending or descending, with and without a limit: every answer lists the same samples in the same order as
  /// filtering and sorting everything directly — ties by save order, as HealthPair orders them.
  @Test(arguments: [5 as UInt64, 6, 7, 8])
  func queriesMatchBruteForceUnderOutOfOrderInsertsAndDeletes(seed: UInt64) throws {
    var rng = SplitMix(seed: seed)
    var device = makeDevice()
    _ = try device.requestAuthorization(waterApp.bundleID, share: [water], read: [water], wall: t0)
    _ = try device.answerPrompt(id: nil, bundleID: nil, answer: .allowAll)
    struct Saved {
      var uuid: UUID
      var start: Date
      var end: Date
      var order: Int
    }
    var live: [Saved] = []
    var order = 0
    for round in 0..<80 {
      if rng.next() % 4 == 0, !live.isEmpty {
        let victim = live.remove(at: Int(rng.next() % UInt64(live.count)))
        _ = try device.delete(waterApp.bundleID, [victim.uuid], wall: t0)
      }
      let batch = (0..<Int(1 + rng.next() % 20)).map { _ -> SampleInput in
        // Coarse dates, so equal dates are common; durations, so start order and end order differ.
        let start = t0.addingTimeInterval(-Double(rng.next() % 200) * 600)
        let end = start.addingTimeInterval(Double(rng.next() % 4) * 900)
        return SampleInput(
          uuid: UUID(uuid: rng.uuid()), type: water, value: .quantity(Double(1 + rng.next() % 100), unit: "mL"),
          start: start, end: end)
      }
      _ = try device.save(waterApp.bundleID, batch, wall: t0)
      for input in batch {
        live.append(Saved(uuid: input.uuid, start: input.start, end: input.end, order: order))
        order += 1
      }
      let from = t0.addingTimeInterval(-Double(rng.next() % 200) * 600)
      let to = from.addingTimeInterval(Double(rng.next() % 50) * 600)
      let limit = Int(rng.next() % 30)
      let ascending = rng.next() % 2 == 0
      let byEnd = rng.next() % 2 == 0
      let query = SampleQuery(
        type: water, range: DateRange(start: from, end: to), limit: limit,
        sort: [SampleSort(byEnd ? .endDate : .startDate, ascending: ascending)])
      let got = try device.sampleQuery(waterApp.bundleID, query, wall: t0).map(\.uuid)
      // HealthKit's default predicate: endDate >= start and startDate < end.
      var expected = live.filter { $0.end >= from && $0.start < to }.sorted { a, b in
        let (ka, kb) = byEnd ? (a.end, b.end) : (a.start, b.start)
        if ka != kb { return ascending ? ka < kb : ka > kb }
        return a.order < b.order
      }.map(\.uuid)
      if limit > 0 { expected = Array(expected.prefix(limit)) }
      #expect(
        got == expected,
        "round \(round), limit \(limit), \(byEnd ? "end" : "start") \(ascending ? "ascending" : "descending")")
    }
  }
}

/// Inputs the fuzzers produced that once trapped the engine.
@Suite("Hostile engine inputs (fuzz regressions)")
struct HostileEngineInputTests {
  @Test func aCollectionWithAstronomicalBucketsIsAnInvalidArgument() throws {
    var phone = makeDevice()
    // Reading granted too: without it the query fails as not determined before any bucket is computed.
    try phone.grant(waterApp.bundleID, share: [steps], read: [steps])
    _ = try phone.save(
      waterApp.bundleID,
      [SampleInput(uuid: UUID(), type: steps, value: .quantity(5, unit: "count"), start: t0, end: t0)], wall: t0)
    // A tiny interval anchored far away: the bucket numbers do not fit an Int.
    let far = StatisticsQuery(
      type: steps, options: .cumulativeSum, interval: 1e-300, anchor: Date(timeIntervalSinceReferenceDate: -1e300))
    expectError(.errorInvalidArgument) { _ = try phone.statisticsCollection(waterApp.bundleID, far, wall: t0) }
    let ranged = StatisticsQuery(
      type: steps, range: DateRange(start: t0.addingTimeInterval(-86400), end: t0.addingTimeInterval(86400)),
      options: .cumulativeSum,
      interval: 1e-6, anchor: t0)
    expectError(.errorInvalidArgument) { _ = try phone.statisticsCollection(waterApp.bundleID, ranged, wall: t0) }
  }

  @Test func aPeerEntryAtTheLastSequenceNumberDoesNotOverflow() {
    var watch = makeDevice(.watch)
    let entry = SyncEntry(seq: UInt64.max, payload: .samples([]))
    #expect(watch.receivePeerEntries([entry], wall: t0).isEmpty, "a gap: not applied")
  }
}

/// Issue 10 item 1: numbers a request carries that used to be accepted and journaled, or poisoned sums.
@Suite("Out-of-range request values")
struct OutOfRangeRequestTests {
  func simulatorError(
    _ body: () throws(HealthError) -> [DeviceEvent], sourceLocation: SourceLocation = #_sourceLocation
  ) -> HealthError? {
    do throws(HealthError) {
      let events = try body()
      Issue.record("accepted and journaled \(events)", sourceLocation: sourceLocation)
      return nil
    } catch {
      #expect(error.kind == .simulator, "\(error)", sourceLocation: sourceLocation)
      return error
    }
  }

  @Test func theClockRefusesNonFiniteAndFarDates() throws {
    var phone = makeDevice()
    for seconds in [Double.infinity, -.infinity, .nan, 1e300, -1e300] {
      let error = simulatorError { () throws(HealthError) in
        try phone.setClock(Date(timeIntervalSinceReferenceDate: seconds))
      }
      #expect(error?.message.contains("between 0001-01-01 and 3000-01-01") == true)
    }
    #expect(phone.virtualNow == t0, "nothing changed")
    let lastMoment = latestSampleDate.addingTimeInterval(-1)
    #expect(try phone.setClock(lastMoment) == [.clockSet(lastMoment)])
    _ = simulatorError { () throws(HealthError) in try phone.setClock(latestSampleDate) }
    #expect(try phone.setClock(earliestSampleDate) == [.clockSet(earliestSampleDate)])
    #expect(try phone.setClock(nil) == [.clockSet(nil)])
  }

  @Test func advancingTheClockCannotOverflowOrLeaveTheRange() throws {
    var phone = makeDevice()
    // now + 1e308 s used to be journaled as a clock in the year 3e300.
    for seconds in [1e308, Double.greatestFiniteMagnitude, 1e12] {
      let error = simulatorError { () throws(HealthError) in try phone.advanceClock(by: seconds, wall: t0) }
      #expect(error?.message.contains("from 2026-01-05T08:00:00Z") == true, "\(String(describing: error))")
    }
    _ = simulatorError { () throws(HealthError) in try phone.advanceClock(by: .infinity, wall: t0) }
    #expect(phone.virtualNow == t0)
    let toTheEnd = latestSampleDate.timeIntervalSince(t0) - 1
    #expect(try phone.advanceClock(by: toTheEnd, wall: t0) == [.clockSet(t0.addingTimeInterval(toTheEnd))])
  }

  @Test func retentionMustBeAPositiveDurationOfAtMost1e12Seconds() throws {
    var watch = makeDevice(.watch)
    for retention in [Double.infinity, .nan, 0, -1, 1e300, 1.0000001e12] {
      _ = simulatorError { () throws(HealthError) in
        try watch.setPolicy(DevicePolicy(reprompt: .strict, retention: retention))
      }
    }
    _ = try watch.setPolicy(DevicePolicy(reprompt: .strict, retention: 1e12))
  }

  @Test func queryDatesMustBeFinite() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [steps], read: [steps])
    let input = SampleInput(uuid: UUID(), type: steps, value: .quantity(5, unit: "count"), start: t0, end: t0 + 60)
    _ = try phone.save(waterApp.bundleID, [input], wall: t0)
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    for range in [
      DateRange(start: nan, end: nil), DateRange(start: nil, end: nan),
      DateRange(start: t0 - 60, end: Date(timeIntervalSinceReferenceDate: .infinity)),
    ] {
      // The statistics sum used to come back as NaN.
      expectError(.errorInvalidArgument) {
        let query = StatisticsQuery(type: steps, range: range, options: .cumulativeSum)
        _ = try phone.statistics(waterApp.bundleID, query, wall: t0)
      }
      expectError(.errorInvalidArgument) {
        _ = try phone.sampleQuery(waterApp.bundleID, SampleQuery(type: steps, range: range), wall: t0)
      }
      expectError(.errorInvalidArgument) {
        _ = try phone.anchoredQuery(waterApp.bundleID, type: steps, anchor: 0, range: range, limit: 0, wall: t0)
      }
    }
    let badAnchor = StatisticsQuery(type: steps, options: .cumulativeSum, interval: 3600, anchor: nan)
    expectError(.errorInvalidArgument) { _ = try phone.statisticsCollection(waterApp.bundleID, badAnchor, wall: t0) }
  }

  @Test func aCollectionIntervalIsPositiveAndAtMost1e12Seconds() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [steps], read: [steps])
    let input = SampleInput(uuid: UUID(), type: steps, value: .quantity(5, unit: "count"), start: t0, end: t0)
    _ = try phone.save(waterApp.bundleID, [input], wall: t0)
    for interval in [1e300, Double.greatestFiniteMagnitude, .nan, 0] {
      // A bucket of 1.8e308 s used to end at an infinite date.
      let query = StatisticsQuery(
        type: steps, range: DateRange(start: t0, end: t0 + 1), options: .cumulativeSum, interval: .seconds(interval),
        anchor: t0)
      expectError(.errorInvalidArgument, kind: .wouldTerminate) {
        _ = try phone.statisticsCollection(waterApp.bundleID, query, wall: t0)
      }
    }
  }

  @Test func anOverflowingSaveLeavesStatisticsFinite() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    let huge = SampleInput(uuid: UUID(), type: water, value: .quantity(1e308, unit: "L"), start: t0, end: t0)
    expectError(.errorInvalidArgument) { _ = try phone.save(waterApp.bundleID, [huge], wall: t0) }
    _ = try phone.save(waterApp.bundleID, [waterInput(250)], wall: t0)
    let stats = try phone.statistics(waterApp.bundleID, StatisticsQuery(type: water, options: .cumulativeSum), wall: t0)
    #expect(stats.sum == 250)
  }
}

@Suite("Sync identifiers and versions (D10)")
struct SyncIdentifierTests {
  func drink(_ mL: Double, _ identifier: String?, _ version: MetadataValue?) -> SampleInput {
    var metadata: Metadata = [:]
    if let identifier { metadata[MetadataKey.syncIdentifier] = .string(identifier) }
    if let version { metadata[MetadataKey.syncVersion] = version }
    return SampleInput(
      uuid: UUID(), type: water, value: .quantity(mL, unit: "mL"), start: t0, end: t0, metadata: metadata)
  }

  @Test func aGreaterVersionReplacesAndAnEqualOrLowerOneIsNotStored() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    let v1 = drink(250, "a", .int(1))
    _ = try phone.save(waterApp.bundleID, [v1], wall: t0)
    let events = try phone.save(waterApp.bundleID, [drink(300, "a", .double(1.5))], wall: t0)
    guard events.count == 2, case .samplesDeleted(let gone) = events[0], case .samplesSaved(let added) = events[1]
    else {
      Issue.record("expected a deletion then a save, got \(events)")
      return
    }
    #expect(gone.map(\.uuid) == [v1.uuid] && added.map(\.value) == [.quantity(300)])
    #expect(try phone.save(waterApp.bundleID, [drink(1, "a", .int(1)), drink(2, "a", .double(1.5))], wall: t0).isEmpty)
    #expect(phone.storedSamples(wall: t0).map(\.value) == [.quantity(300)])
    // Another identifier, and no identifier, are untouched; in one batch the greatest version wins.
    _ = try phone.save(
      waterApp.bundleID, [drink(5, "b", .int(3)), drink(6, "b", .int(9)), drink(7, "b", .int(4)), drink(8, nil, nil)],
      wall: t0)
    #expect(phone.storedSamples(wall: t0).map(\.value).sorted { "\($0)" < "\($1)" }.count == 3)
    #expect(phone.storedSamples(wall: t0).contains { $0.value == .quantity(6) })
  }

  @Test func anotherAppsIdentifierIsNotMatched() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    let other = AppRecord(
      bundleID: "com.other", displayName: "Other", writeUsageDescription: "w", readUsageDescription: "r")
    _ = try phone.install(other)
    try phone.grant(other.bundleID, share: [water])
    _ = try phone.save(waterApp.bundleID, [drink(250, "a", .int(1))], wall: t0)
    _ = try phone.save(other.bundleID, [drink(300, "a", .int(2))], wall: t0)
    #expect(phone.storedSamples(wall: t0).count == 2)
  }

  @Test func anIdentifierWithoutANumericVersionWouldTerminate() throws {
    var phone = makeDevice()
    _ = try phone.grant(waterApp.bundleID, share: [water])
    for bad in [drink(1, "a", nil), drink(1, "a", .string("2"))] {
      let error = #expect(throws: HealthError.self) { try phone.save(waterApp.bundleID, [bad], wall: t0) }
      #expect(error?.kind == .wouldTerminate && error?.message.contains("HKMetadataKeySyncVersion") == true)
    }
    #expect(try phone.save(waterApp.bundleID, [drink(1, "a", .int(1))], wall: t0).count == 1)
  }
}
