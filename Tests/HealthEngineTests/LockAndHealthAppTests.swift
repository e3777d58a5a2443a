import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

let dateOfBirth = SampleType.lookup(name: "dateOfBirth")!
let biologicalSex = SampleType.lookup(name: "biologicalSex")!
let bloodType = SampleType.lookup(name: "bloodType")!
let moveMode = SampleType.lookup(name: "activityMoveMode")!
let profileApp = AppRecord(
  bundleID: "com.example.profile", displayName: "Profile", writeUsageDescription: "Profile saves your weight.",
  readUsageDescription: "Profile shows your details.")

/// Replays `events` into a fresh device of the same kind: what a restart rebuilds.
func replayed(_ kind: DeviceKind, _ events: [DeviceEvent]) -> DeviceState {
  var device = DeviceState(device: kind)
  for event in events { device.apply(event) }
  return device
}

/// Carries everything `from` logged that `to` has not applied yet.
func deliver(_ from: DeviceState, to: inout DeviceState) {
  _ = to.receivePeerEntries(from.outboundEntries(after: to.sync.appliedFromPeer, maxItems: 100), wall: t0)
}

@Suite("The device lock (behavior.md L1–L6)")
struct DeviceLockEngineTests {
  func grantedPhone() throws -> DeviceState {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    return phone
  }

  @Test(arguments: DeviceKind.allCases)
  func queriesDeletesAndReadsFailWithCode6WhileAuthorizationStillAnswers(_ kind: DeviceKind) throws {
    var device = makeDevice(kind)
    try device.grant(waterApp.bundleID, share: [water], read: [water])
    let glass = UUID()
    _ = try device.save(waterApp.bundleID, [waterInput(250, uuid: glass)], wall: t0)
    let (events, dismissed) = device.lock(wall: t0)
    #expect(events == [.deviceLocked(at: t0)] && dismissed.isEmpty && device.isLocked)
    expectError(.errorDatabaseInaccessible) {
      _ = try device.sampleQuery(waterApp.bundleID, SampleQuery(type: water), wall: t0)
    }
    expectError(.errorDatabaseInaccessible) {
      _ = try device.statistics(waterApp.bundleID, StatisticsQuery(type: water, options: .cumulativeSum), wall: t0)
    }
    expectError(.errorDatabaseInaccessible) {
      _ = try device.statisticsCollection(
        waterApp.bundleID, StatisticsQuery(type: water, options: .cumulativeSum, interval: 86_400, anchor: t0),
        wall: t0)
    }
    expectError(.errorDatabaseInaccessible) {
      _ = try device.anchoredQuery(waterApp.bundleID, type: water, anchor: 0, range: nil, limit: 0, wall: t0)
    }
    expectError(.errorDatabaseInaccessible) { _ = try device.delete(waterApp.bundleID, [glass], wall: t0) }
    expectError(.errorDatabaseInaccessible) {
      _ = try device.deleteMatching(waterApp.bundleID, type: water, range: nil, wall: t0)
    }
    expectError(.errorDatabaseInaccessible) { _ = try device.preferredUnits(waterApp.bundleID, [water]) }
    // Management data: still answered.
    #expect(try device.authorizationStatus(waterApp.bundleID, water) == .sharingAuthorized)
    #expect(try device.requestStatus(waterApp.bundleID, share: [water], read: [water]) == .unnecessary)
    // Authorization is checked before the protected store: a read never decided is still 5.
    _ = try device.install(profileApp)
    expectError(.errorAuthorizationNotDetermined) {
      _ = try device.sampleQuery(profileApp.bundleID, SampleQuery(type: water), wall: t0)
    }
    _ = device.unlock(wall: t0)
    #expect(try device.sampleQuery(waterApp.bundleID, SampleQuery(type: water), wall: t0).count == 1)
  }

  @Test func savesWaitInTheLockedJournalThenMergeInOrderAndSync() throws {
    var phone = try grantedPhone()
    var watch = makeDevice(.watch)
    _ = phone.lock(wall: t0)
    let first = UUID()
    let second = UUID()
    let events = try phone.save(waterApp.bundleID, [waterInput(250, uuid: first)], wall: t0)
    _ = try phone.save(waterApp.bundleID, [waterInput(100, at: t0.addingTimeInterval(60), uuid: second)], wall: t0)
    #expect(events.count == 1)
    if case .samplesSavedWhileLocked = events.first {} else { Issue.record("expected a locked save, got \(events)") }
    #expect(phone.lockedJournal.map(\.uuid) == [first, second])
    #expect(phone.storedSamples(wall: t0).isEmpty)
    #expect(phone.sync.lastSeq == 0, "nothing to send while the samples wait")
    // A duplicate identifier is refused at once, against the locked journal too.
    expectError(.errorInvalidArgument) { _ = try phone.save(waterApp.bundleID, [waterInput(5, uuid: first)], wall: t0) }
    // The virtual clock wins over the wall clock.
    let merge = phone.unlock(wall: t0.addingTimeInterval(120))
    #expect(merge.first == .deviceUnlocked(at: t0))
    #expect(phone.lockedJournal.isEmpty && !phone.isLocked)
    let merged: Set<UUID> = Set(phone.storedSamples(wall: t0).map(\.uuid))
    #expect(merged == [first, second])
    deliver(phone, to: &watch)
    #expect(Set(watch.storedSamples(wall: t0).map(\.uuid)) == [first, second])
  }

  @Test func syncIdentifiersAreResolvedAtTheMerge() throws {
    var phone = try grantedPhone()
    func versioned(_ mL: Double, _ version: Int64) -> SampleInput {
      var input = waterInput(mL)
      input.metadata = [MetadataKey.syncIdentifier: .string("day-1"), MetadataKey.syncVersion: .int(version)]
      return input
    }
    let v1 = versioned(100, 1)
    _ = try phone.save(waterApp.bundleID, [v1], wall: t0)
    _ = phone.lock(wall: t0)
    let v3 = versioned(300, 3)
    _ = try phone.save(waterApp.bundleID, [v3], wall: t0)
    _ = try phone.save(waterApp.bundleID, [versioned(200, 2)], wall: t0)
    let events = phone.unlock(wall: t0)
    #expect(events.contains { if case .samplesDeleted(let t) = $0 { t.map(\.uuid) == [v1.uuid] } else { false } })
    #expect(phone.storedSamples(wall: t0).map(\.uuid) == [v3.uuid])
  }

  @Test func theLockAndItsJournalSurviveReplay() throws {
    var phone = try grantedPhone()
    var journal: [DeviceEvent] = []
    _ = try phone.setPolicy(DevicePolicy(reprompt: .standard, retention: nil, units: .metric))
    journal += phone.lock(wall: t0).events
    journal += try phone.save(waterApp.bundleID, [waterInput(250)], wall: t0)
    var rebuilt = makeDevice()
    try rebuilt.grant(waterApp.bundleID, share: [water], read: [water])
    _ = try rebuilt.setPolicy(DevicePolicy(reprompt: .standard, retention: nil, units: .metric))
    for event in journal { rebuilt.apply(event) }
    #expect(rebuilt.differences(from: phone) == [])
    #expect(rebuilt.isLocked && rebuilt.lockedJournal.count == 1)
  }

  @Test func lockingDismissesSheetsAndALockedDeviceShowsNone() throws {
    var phone = makeDevice()
    guard
      case .prompt(let prompt) = try phone.requestAuthorization(waterApp.bundleID, share: [water], read: [], wall: t0)
    else {
      Issue.record("expected a sheet")
      return
    }
    let (_, dismissed) = phone.lock(wall: t0)
    #expect(dismissed.map(\.prompt.id) == [prompt.id])
    #expect(dismissed.first?.result.success == false)
    #expect(dismissed.first?.result.error?.code == .errorAuthorizationNotDetermined)
    #expect(phone.prompts.isEmpty)
    #expect(phone.decision(waterApp.bundleID, Permission(water, .share)) == nil)
    guard
      case .completed(let result) = try phone.requestAuthorization(
        waterApp.bundleID, share: [water], read: [], wall: t0)
    else {
      Issue.record("a locked device presented a sheet")
      return
    }
    #expect(!result.success && result.error?.code == .errorAuthorizationNotDetermined)
    // The user cannot use Settings or the Health app of a locked device.
    expectError(.unknownError, kind: .simulator) { _ = try phone.changeSettings(waterApp.bundleID, .reset) }
    expectError(.unknownError, kind: .simulator) {
      _ = try phone.changeUserSetting(.characteristic(biologicalSex, .value(1)), wall: t0)
    }
    // Locking or unlocking twice does nothing.
    #expect(phone.lock(wall: t0).events.isEmpty)
    #expect(!phone.unlock(wall: t0).isEmpty)
    #expect(phone.unlock(wall: t0).isEmpty)
  }

  @Test func entriesArrivingWhileLockedAreAppliedAndVisibleAfterTheUnlock() throws {
    var phone = try grantedPhone()
    var watch = makeDevice(.watch)
    try watch.grant(waterApp.bundleID, share: [water], read: [water])
    _ = watch.lock(wall: t0)
    let glass = UUID()
    _ = try phone.save(waterApp.bundleID, [waterInput(250, uuid: glass)], wall: t0)
    deliver(phone, to: &watch)
    #expect(watch.storedSamples(wall: t0).map(\.uuid) == [glass])
    expectError(.errorDatabaseInaccessible) {
      _ = try watch.sampleQuery(waterApp.bundleID, SampleQuery(type: water), wall: t0)
    }
    _ = watch.unlock(wall: t0)
    #expect(try watch.sampleQuery(waterApp.bundleID, SampleQuery(type: water), wall: t0).map(\.uuid) == [glass])
  }
}

@Suite("Characteristics and preferred units (behavior.md C1–C5, R6)")
struct HealthAppEngineTests {
  func profilePhone(_ kind: DeviceKind = .phone) -> DeviceState { makeDevice(kind, apps: [profileApp]) }

  @Test func characteristicsAreReadOnlyAndNotSampleTypes() throws {
    var phone = profilePhone()
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try phone.requestAuthorization(profileApp.bundleID, share: [biologicalSex], read: [], wall: t0)
    }
    try phone.grant(profileApp.bundleID, read: [biologicalSex])
    #expect(try phone.authorizationStatus(profileApp.bundleID, biologicalSex) == .sharingDenied)
    expectError(.errorInvalidArgument) {
      _ = try phone.sampleQuery(profileApp.bundleID, SampleQuery(type: biologicalSex), wall: t0)
    }
    let input = SampleInput(uuid: UUID(), type: biologicalSex, value: .category(1), start: t0, end: t0)
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try phone.save(profileApp.bundleID, [input], wall: t0)
    }
    #expect(
      SampleType.catalog.filter(\.isCharacteristic).allSatisfy { (60...69).contains($0.code) && !$0.appsMayShare })
  }

  @Test func readsFollowTheReadDecision() throws {
    var phone = profilePhone()
    _ = try phone.changeUserSetting(.characteristic(dateOfBirth, .dateOfBirth(year: 1990, month: 4, day: 2)), wall: t0)
    _ = try phone.changeUserSetting(.characteristic(biologicalSex, .value(1)), wall: t0)
    expectError(.errorAuthorizationNotDetermined) { _ = try phone.readCharacteristic(profileApp.bundleID, dateOfBirth) }
    try phone.grant(
      profileApp.bundleID, read: [dateOfBirth, biologicalSex, bloodType, moveMode],
      answer: .choices([Permission(dateOfBirth, .read): true, Permission(bloodType, .read): true]))
    #expect(
      try phone.readCharacteristic(profileApp.bundleID, dateOfBirth) == .dateOfBirth(year: 1990, month: 4, day: 2))
    // Denied reads exactly as not set.
    #expect(try phone.readCharacteristic(profileApp.bundleID, biologicalSex) == nil)
    #expect(try phone.readCharacteristic(profileApp.bundleID, bloodType) == nil)
    // The move mode has no notSet: the default.
    #expect(try phone.readCharacteristic(profileApp.bundleID, moveMode) == .value(1))
    expectError(.errorInvalidArgument) { _ = try phone.readCharacteristic(profileApp.bundleID, water) }
  }

  @Test func valuesAreValidated() throws {
    var phone = profilePhone()
    for bad: UserSetting in [
      .characteristic(dateOfBirth, .dateOfBirth(year: 2023, month: 2, day: 29)),
      .characteristic(dateOfBirth, .value(1)), .characteristic(biologicalSex, .value(0)),
      .characteristic(biologicalSex, .dateOfBirth(year: 1990, month: 1, day: 1)), .characteristic(water, nil),
      .preferredUnit(water, "kg"), .preferredUnit(water, "bogus"), .preferredUnit(biologicalSex, "kg"),
    ] {
      expectError(.unknownError, kind: .simulator) { _ = try phone.changeUserSetting(bad, wall: t0) }
    }
    #expect(CharacteristicValue.parse("2024-02-29", for: dateOfBirth) == .dateOfBirth(year: 2024, month: 2, day: 29))
    #expect(CharacteristicValue.parse("1900-02-29", for: dateOfBirth) == nil)
    #expect(CharacteristicValue.parse("oNegative", for: bloodType) == .value(8))
    #expect(CharacteristicValue.parse("notSet", for: bloodType) == nil)
  }

  @Test func preferredUnitsFollowTheHeaderAndTheLocaleModel() throws {
    var phone = profilePhone()
    _ = try phone.install(waterApp)
    expectError(.errorAuthorizationNotDetermined) { _ = try phone.preferredUnits(profileApp.bundleID, [bodyMass]) }
    try phone.grant(profileApp.bundleID, share: [bodyMass])
    #expect(try phone.preferredUnits(profileApp.bundleID, [bodyMass]).map(\.unit) == ["lb"])
    _ = try phone.changeUserSetting(.preferredUnit(bodyMass, "kg"), wall: t0)
    #expect(try phone.preferredUnits(profileApp.bundleID, [bodyMass]).map(\.unit) == ["kg"])
    // Neither permission granted: the locale's default only.
    try phone.grant(waterApp.bundleID, read: [bodyMass, water], answer: .denyAll)
    _ = try phone.changeUserSetting(.preferredUnit(water, "mL"), wall: t0)
    let units = try phone.preferredUnits(waterApp.bundleID, [water, bodyMass])
    #expect(units.map(\.unit) == ["fl_oz_us", "lb"])
    // One undetermined type fails the whole call; a non-quantity type is an invalid argument.
    expectError(.errorAuthorizationNotDetermined) { _ = try phone.preferredUnits(waterApp.bundleID, [water, steps]) }
    expectError(.errorInvalidArgument) { _ = try phone.preferredUnits(waterApp.bundleID, [mindful]) }
    _ = try phone.setPolicy(DevicePolicy(reprompt: .standard, retention: nil, units: .uk))
    #expect(try phone.preferredUnits(waterApp.bundleID, [bodyMass]).map(\.unit) == ["st"])
  }

  @Test func everyLocaleDefaultMeasuresItsType() throws {
    for type in SampleType.all where type.descriptor.isQuantity {
      for locale in UnitLocale.allCases {
        let unit = try #require(locale.defaultUnit(for: type))
        #expect(try HealthUnit(parsing: unit).isCompatible(with: type.descriptor.canonicalUnit!), "\(type) \(locale)")
      }
    }
    for (name, row) in UnitLocale.defaults {
      for unit in [row.us, row.metric, row.uk] { #expect((try? HealthUnit(parsing: unit)) != nil, "\(name) \(unit)") }
    }
  }

  @Test func valuesTravelAndTheLaterChangeWins() throws {
    var phone = profilePhone()
    var watch = profilePhone(.watch)
    _ = try phone.changeUserSetting(.characteristic(bloodType, .value(1)), wall: t0)
    _ = try phone.changeUserSetting(.preferredUnit(bodyMass, "kg"), wall: t0)
    deliver(phone, to: &watch)
    #expect(watch.characteristics[bloodType] == .value(1) && watch.preferredUnits[bodyMass] == "kg")
    // Apart: the watch changes later; the phone's change arrives after it and loses.
    _ = try phone.setClock(t0.addingTimeInterval(60))
    _ = try watch.setClock(t0.addingTimeInterval(120))
    _ = try phone.changeUserSetting(.characteristic(bloodType, .value(2)), wall: t0)
    _ = try watch.changeUserSetting(.characteristic(bloodType, .value(3)), wall: t0)
    deliver(phone, to: &watch)
    deliver(watch, to: &phone)
    #expect(phone.characteristics[bloodType] == .value(3) && watch.characteristics[bloodType] == .value(3))
    // The same instant: the iPhone's wins on both.
    _ = try watch.setClock(t0.addingTimeInterval(60))
    _ = try phone.changeUserSetting(.characteristic(bloodType, .value(4)), wall: t0)
    _ = try watch.changeUserSetting(.characteristic(bloodType, .value(5)), wall: t0)
    deliver(watch, to: &phone)
    deliver(phone, to: &watch)
    #expect(phone.characteristics[bloodType] == .value(4) && watch.characteristics[bloodType] == .value(4))
    // Cleared values travel too.
    _ = try phone.setClock(t0.addingTimeInterval(600))
    _ = try phone.changeUserSetting(.characteristic(bloodType, nil), wall: t0)
    deliver(phone, to: &watch)
    #expect(watch.characteristics[bloodType] == nil)
  }

  @Test func aRestartedLogResendsTheValuesThisDeviceSet() throws {
    var phone = profilePhone()
    var watch = profilePhone(.watch)
    _ = try phone.changeUserSetting(.characteristic(biologicalSex, .value(2)), wall: t0)
    _ = try watch.changeUserSetting(.preferredUnit(water, "L"), wall: t0)
    deliver(watch, to: &phone)
    _ = phone.restartSyncLog(logID: 42)
    let resent = phone.outboundEntries(after: 0, maxItems: 100).compactMap { entry -> UserSetting? in
      if case .userSetting(let setting, _) = entry.payload { return setting }
      return nil
    }
    #expect(resent == [.characteristic(biologicalSex, .value(2))], "only what the phone set itself")
  }
}
