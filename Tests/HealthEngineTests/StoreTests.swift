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

  /// The rest of a predicate is applied before the limit: a limited query returns the first matching changes, and
  /// its anchor stops after them (before, the daemon limited first and the client filtered, so a page came back
  /// short while more matches waited).
  @Test func anchoredQueryFiltersBeforeItLimits() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    let ids = (0..<5).map { _ in UUID() }
    _ = try phone.save(
      waterApp.bundleID, ids.enumerated().map { waterInput(Double($0.offset + 1), uuid: $0.element) }, wall: t0)
    let wanted: SampleFilter = .uuids([ids[3], ids[4]])
    let first = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: 0, range: nil, limit: 1, filter: wanted, wall: t0)
    #expect(first.added.map(\.uuid) == [ids[3]])
    let second = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: first.newAnchor, range: nil, limit: 1, filter: wanted, wall: t0)
    #expect(second.added.map(\.uuid) == [ids[4]])
    let none = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: second.newAnchor, range: nil, limit: 1, filter: wanted, wall: t0)
    #expect(none.added.isEmpty)
    // A deletion passes the conditions it can be checked against.
    _ = try phone.delete(waterApp.bundleID, [ids[0], ids[4]], wall: t0)
    let deleted = try phone.anchoredQuery(
      waterApp.bundleID, type: water, anchor: none.newAnchor, range: nil, limit: 0, filter: wanted, wall: t0)
    #expect(deleted.deleted.map(\.uuid) == [ids[4]])
  }
}
