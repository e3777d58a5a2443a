import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel

private let systolic = SampleType.lookup(name: "bloodPressureSystolic")!
private let diastolic = SampleType.lookup(name: "bloodPressureDiastolic")!
private let food = SampleType.lookup(name: "food")!
private let energy = SampleType.lookup(name: "dietaryEnergyConsumed")!
private let bpApp = AppRecord(
  bundleID: "com.example.bp", displayName: "BP", writeUsageDescription: "w", readUsageDescription: "r")

private func part(_ type: SampleType, _ mmHg: Double, at date: Date = t0) -> SampleInput {
  SampleInput(uuid: UUID(), type: type, value: .quantity(mmHg, unit: "mmHg"), start: date, end: date)
}

private func reading(_ high: Double, _ low: Double, at date: Date = t0) -> CorrelationInput {
  CorrelationInput(
    uuid: UUID(), type: bloodPressure, start: date, end: date, metadata: ["HKWasUserEntered": .bool(true)],
    members: [part(systolic, high, at: date), part(diastolic, low, at: date)])
}

/// A device with the blood-pressure app granted both parts in both directions.
private func bpDevice(_ kind: DeviceKind = .phone) throws -> DeviceState {
  var device = makeDevice(kind, apps: [bpApp, waterApp])
  try device.grant(bpApp.bundleID, share: [systolic, diastolic], read: [systolic, diastolic])
  return device
}

/// Replays `events` into a fresh device of the same kind, through the journal encoding.
private func replayed(_ events: [DeviceEvent], kind: DeviceKind) throws -> DeviceState {
  var fresh = DeviceState(device: kind)
  for event in events {
    var writer = BinaryWriter()
    writer.event(event)
    let decoded = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.event()
    }
    #expect(decoded == event)
    fresh.apply(decoded)
  }
  return fresh
}

@Suite("Correlations (behavior.md T8–T13)")
struct CorrelationTests {
  @Test func savingStoresTheCorrelationAndItsSamplesTogether() throws {
    var device = try bpDevice()
    let input = reading(121, 79)
    let events = try device.saveCorrelations(bpApp.bundleID, [input], samples: [], wall: t0)
    #expect(events.count == 2)
    let results = try device.correlationQuery(
      bpApp.bundleID, CorrelationQuery(base: SampleQuery(type: bloodPressure)), wall: t0)
    #expect(results.count == 1)
    #expect(results[0].correlation.uuid == input.uuid)
    #expect(Set(results[0].objects.map(\.type)) == [systolic, diastolic])
    #expect(results[0].correlation.metadata == ["HKWasUserEntered": .bool(true)])
    #expect(try device.sampleQuery(bpApp.bundleID, SampleQuery(type: systolic), wall: t0).count == 1)
  }

  @Test func aCorrelationMustFitItsType() throws {
    var device = try bpDevice()
    var missing = reading(121, 79)
    missing.members.removeLast()
    expectError(.errorInvalidArgument) {
      _ = try device.saveCorrelations(bpApp.bundleID, [missing], samples: [], wall: t0)
    }
    var twice = reading(121, 79)
    twice.members.append(part(systolic, 130))
    expectError(.errorInvalidArgument) {
      _ = try device.saveCorrelations(bpApp.bundleID, [twice], samples: [], wall: t0)
    }
    var stray = reading(121, 79)
    stray.members.append(waterInput(250))
    expectError(.errorInvalidArgument) {
      _ = try device.saveCorrelations(bpApp.bundleID, [stray], samples: [], wall: t0)
    }
    var empty = reading(121, 79)
    empty.members = []
    expectError(.errorInvalidArgument) {
      _ = try device.saveCorrelations(bpApp.bundleID, [empty], samples: [], wall: t0)
    }
    var backwards = reading(121, 79)
    backwards.start = t0.addingTimeInterval(60)
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try device.saveCorrelations(bpApp.bundleID, [backwards], samples: [], wall: t0)
    }
    #expect(device.store.slots.isEmpty && device.correlationStore.isEmpty, "nothing of a refused save is stored")
  }

  @Test func sharePermissionIsNeededForTheParts() throws {
    var device = makeDevice(.phone, apps: [bpApp])
    expectError(.errorAuthorizationNotDetermined) {
      _ = try device.saveCorrelations(bpApp.bundleID, [reading(121, 79)], samples: [], wall: t0)
    }
    try device.grant(bpApp.bundleID, share: [systolic, diastolic], read: [], answer: .denyAll)
    expectError(.errorAuthorizationDenied) {
      _ = try device.saveCorrelations(bpApp.bundleID, [reading(121, 79)], samples: [], wall: t0)
    }
  }

  @Test func identifiersMustBeNewAndTheBatchIsAllOrNothing() throws {
    var device = try bpDevice()
    let first = reading(121, 79)
    _ = try device.saveCorrelations(bpApp.bundleID, [first], samples: [], wall: t0)
    var again = reading(120, 80)
    again.uuid = first.uuid
    expectError(.errorInvalidArgument) {
      _ = try device.saveCorrelations(bpApp.bundleID, [reading(110, 70), again], samples: [], wall: t0)
    }
    #expect(device.correlationStore.live.count == 1 && device.store.slots.count == 2)
  }

  @Test func readPrivacyIsThePartsAndAQueryNeedsADecidedRead() throws {
    var device = try bpDevice()
    _ = try device.saveCorrelations(bpApp.bundleID, [reading(121, 79)], samples: [], wall: t0)
    let query = CorrelationQuery(base: SampleQuery(type: bloodPressure))
    // Never asked to read a part: code 5 (R5).
    expectError(.errorAuthorizationNotDetermined) {
      _ = try device.correlationQuery(waterApp.bundleID, query, wall: t0)
    }
    // Read of the systolic part only: the correlation with that part.
    try device.grant(waterApp.bundleID, read: [systolic])
    let seen = try device.correlationQuery(waterApp.bundleID, query, wall: t0)
    #expect(seen.count == 1 && seen[0].objects.map(\.type) == [systolic])
    // Sample predicates: a condition on the systolic value.
    let high = CorrelationQuery(
      base: SampleQuery(type: bloodPressure),
      members: [CorrelationQuery.MemberCondition(type: systolic, filter: .value(.greaterThan, 140))])
    #expect(try device.correlationQuery(bpApp.bundleID, high, wall: t0).isEmpty)
    let low = CorrelationQuery(
      base: SampleQuery(type: bloodPressure),
      members: [CorrelationQuery.MemberCondition(type: systolic, filter: .value(.lessThan, 140))])
    #expect(try device.correlationQuery(bpApp.bundleID, low, wall: t0).count == 1)
    // A sample predicate on a type the correlation cannot hold is refused.
    let wrong = CorrelationQuery(
      base: SampleQuery(type: bloodPressure), members: [CorrelationQuery.MemberCondition(type: water)])
    expectError(.errorInvalidArgument) { _ = try device.correlationQuery(bpApp.bundleID, wrong, wall: t0) }
  }

  @Test func deletingACorrelationKeepsItsSamples() throws {
    var device = try bpDevice()
    let input = reading(121, 79)
    _ = try device.saveCorrelations(bpApp.bundleID, [input], samples: [], wall: t0)
    expectError(.errorInvalidArgument) { _ = try device.delete(waterApp.bundleID, [input.uuid], wall: t0) }
    let events = try device.delete(bpApp.bundleID, [input.uuid], wall: t0)
    #expect(events.count == 1)
    #expect(device.correlationStore.live.isEmpty && device.correlationStore.deleted[input.uuid] != nil)
    #expect(try device.sampleQuery(bpApp.bundleID, SampleQuery(type: systolic), wall: t0).count == 1)
  }

  @Test func journalReplayAndSnapshotsRebuildTheSameState() throws {
    var device = try bpDevice()
    var events = device.journalSoFar
    events += try device.saveCorrelations(bpApp.bundleID, [reading(121, 79), reading(118, 77)], samples: [], wall: t0)
    let gone = device.correlationStore.ordered[0].uuid
    events += try device.delete(bpApp.bundleID, [gone], wall: t0)
    #expect(try replayed(events, kind: .phone).differences(from: device) == [])
    var writer = BinaryWriter()
    writer.deviceState(device) { (_: inout BinaryWriter) in }
    let restored = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      let state = try reader.deviceState()
      try reader.expectEnd("state")
      return state
    }
    #expect(restored.differences(from: device) == [])
  }

  @Test func correlationsAndTheirDeletionsTravelAndTheWatchKeepsItsWindow() throws {
    var phone = try bpDevice(.phone)
    var watch = try bpDevice(.watch)
    let old = reading(140, 90, at: t0.addingTimeInterval(-10 * 86_400))
    let recent = reading(121, 79, at: t0.addingTimeInterval(-3_600))
    _ = try phone.saveCorrelations(bpApp.bundleID, [old, recent], samples: [], wall: t0)
    _ = try phone.delete(bpApp.bundleID, [recent.uuid], wall: t0)
    let entries = phone.outboundEntries(after: 0, maxItems: 10_000)
    // Through the wire encoding, as the peer link carries them.
    let carried = try entries.map { entry in
      var writer = BinaryWriter()
      writer.syncEntry(entry)
      return try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
        var reader = BinaryReader(buffer)
        return try reader.syncEntry()
      }
    }
    #expect(carried == entries)
    _ = watch.receivePeerEntries(carried, wall: t0)
    #expect(watch.correlationStore.live.isEmpty, "the old one is before the window, the recent one deleted")
    #expect(watch.correlationStore.deleted[recent.uuid] != nil)
    // A restarted log re-sends the live correlations.
    _ = phone.restartSyncLog(logID: 7)
    let resent = phone.outboundEntries(after: 0, maxItems: 10_000)
    #expect(
      resent.contains { if case .correlations(let c) = $0.payload { c.map(\.uuid) == [old.uuid] } else { false } })
    // The watch prunes what leaves its window.
    var watch2 = try bpDevice(.watch)
    _ = try watch2.saveCorrelations(bpApp.bundleID, [reading(121, 79)], samples: [], wall: t0)
    _ = try watch2.advanceClock(by: 8 * 86_400, wall: t0)
    #expect(watch2.correlationStore.live.isEmpty)
  }

  @Test func foodHoldsDietarySamples() throws {
    var device = makeDevice(.phone, apps: [bpApp])
    try device.grant(bpApp.bundleID, share: [water, energy], read: [water, energy])
    let meal = CorrelationInput(
      uuid: UUID(), type: food, start: t0, end: t0, metadata: ["HKFoodType": .string("Soup")],
      members: [
        waterInput(250),
        SampleInput(uuid: UUID(), type: energy, value: .quantity(180, unit: "kcal"), start: t0, end: t0),
      ])
    _ = try device.saveCorrelations(bpApp.bundleID, [meal], samples: [waterInput(100)], wall: t0)
    let results = try device.correlationQuery(bpApp.bundleID, CorrelationQuery(base: SampleQuery(type: food)), wall: t0)
    #expect(results.count == 1 && results[0].objects.count == 2)
    #expect(try device.sampleQuery(bpApp.bundleID, SampleQuery(type: water), wall: t0).count == 2)
  }
}

extension DeviceState {
  /// The events that rebuild this test device's set-up (install, clock, decisions) in a fresh one.
  fileprivate var journalSoFar: [DeviceEvent] {
    var events: [DeviceEvent] = [.clockSet(virtualNow)]
    for app in apps.values.sorted(by: { $0.bundleID < $1.bundleID }) { events.append(.appInstalled(app)) }
    for (bundleID, changes) in Dictionary(grouping: decisions, by: { $0.key.bundleID }) {
      events.append(
        .promptAnswered(
          bundleID: bundleID,
          changes: changes.map { AuthorizationChange($0.key.permission, $0.value) }))
    }
    return events
  }
}
