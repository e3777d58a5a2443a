import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

@Suite("Snapshots carry companion authorization")
struct CompanionSnapshotTests {
  @Test func decisionStampsAndPendingDecisionsSurviveTheStateEncoding() throws {
    var state = DeviceState(device: .phone)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    var policy = state.policy
    policy.authorization = .companion
    policy.watchSettings = .iPhoneOnly
    _ = try state.setPolicy(policy)
    try allowAll(&state, share: [water], read: [water])
    _ = try state.changeSettings(waterApp.bundleID, .reset, wall: t0)
    #expect(!state.decisionStamps.isEmpty)
    #expect(state.sync.pendingEntries.contains { if case .authorization = $0.payload { true } else { false } })
    var writer = BinaryWriter()
    writer.deviceState(state) { (_: inout BinaryWriter) in }
    let restored = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.deviceState()
    }
    #expect(restored.differences(from: state) == [])
    #expect(restored.policy.authorization == .companion && restored.policy.watchSettings == .iPhoneOnly)
  }

  @Test func theLockAndTheHealthAppsValuesAreCarried() throws {
    var state = DeviceState(device: .watch)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    _ = try state.setPolicy(DevicePolicy(reprompt: .strict, retention: 86_400 * 7, units: .metric))
    let water = SampleType.lookup(name: "dietaryWater")!
    let blood = SampleType.lookup(name: "bloodType")!
    let birth = SampleType.lookup(name: "dateOfBirth")!
    _ = try state.changeUserSetting(.characteristic(blood, .value(7)), wall: t0)
    _ = try state.changeUserSetting(.characteristic(birth, .dateOfBirth(year: 1990, month: 4, day: 2)), wall: t0)
    _ = try state.changeUserSetting(.preferredUnit(water, "L"), wall: t0)
    try allowAll(&state, share: [water], read: [])
    _ = state.lock(wall: t0)
    _ = try state.save(
      waterApp.bundleID, [SampleInput(uuid: UUID(), type: water, value: .quantity(1, unit: "L"), start: t0, end: t0)],
      wall: t0)
    #expect(state.isLocked && state.lockedJournal.count == 1 && state.userSettingStamps.count == 3)
    var writer = BinaryWriter()
    writer.deviceState(state) { (_: inout BinaryWriter) in }
    let restored = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.deviceState()
    }
    #expect(restored.differences(from: state) == [])
    // A snapshot written before the lock existed ends after the store: unlocked, nothing set.
    var plain = DeviceState(device: .phone)
    _ = try plain.install(waterApp)
    var old = BinaryWriter()
    old.deviceState(plain) { (_: inout BinaryWriter) in }
    // The user section, then the (empty) background delivery and correlation sections after it (two empty arrays
    // each), then the (empty) workout section (five empty arrays; snapshot version 2 on).
    let userSection = 1 + 4 + 4 + 4 + 4
    let backgroundSection = 4 + 4
    let correlationSection = 4 + 4
    let workoutSection = 5 * 4
    let cut = Array(old.bytes.dropLast(userSection + backgroundSection + correlationSection + workoutSection))
    let restoredOld = try cut.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.deviceState()
    }
    #expect(restoredOld.differences(from: plain) == [])
  }

  @Test func entitlementsAndBackgroundRegistrationsAreSnapshottedAndOlderSnapshotsStillRead() throws {
    var state = DeviceState(device: .phone)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    func encode(_ state: DeviceState) -> [UInt8] {
      var writer = BinaryWriter()
      writer.deviceState(state) { (_: inout BinaryWriter) in }
      return writer.bytes
    }
    let decode = decodeState
    // A snapshot written before background delivery ends where the two (empty) extra lists begin; one written
    // before correlations, where the two (empty) correlation lists begin (the five empty workout lists of
    // version 2 follow them).
    let plain = encode(state)
    #expect(try decode(Array(plain.dropLast(16 + 20))).differences(from: state) == [])
    #expect(try decode(Array(plain.dropLast(8 + 20))).differences(from: state) == [])
    _ = try state.install(trackerApp)
    _ = try state.enableBackgroundDelivery(trackerApp.bundleID, water, .daily)
    var policy = state.policy
    policy.background = BackgroundDeliveryModel(responseWindow: 10, retryDelay: 20)
    _ = try state.setPolicy(policy)
    let restored = try decode(encode(state))
    #expect(restored.differences(from: state) == [])
    #expect(restored.apps[trackerApp.bundleID]?.entitlements == [.backgroundDelivery])
    #expect(restored.policy.background.retryDelay == 20)
  }

  @Test func healthRecordsKeysAreSnapshottedAndHostileOnesRefusedWhereTheyAre() throws {
    var state = DeviceState(device: .phone)
    let chart = AppRecord(
      bundleID: "com.example.chart", displayName: "Chart", writeUsageDescription: nil, readUsageDescription: nil,
      healthRecords: HealthRecordsInfo(usageDescription: "c", requiredTypes: ["a", "b", "c"]))
    _ = try state.install(chart)
    var writer = BinaryWriter()
    writer.deviceState(state) { (_: inout BinaryWriter) in }
    let bytes = writer.bytes
    let decode = decodeState
    #expect(try decode(bytes).apps[chart.bundleID]?.healthRecords == chart.healthRecords)
    // Section 7 naming an app the snapshot does not install is refused at that entry.
    var renamed = bytes
    let name = Array(chart.bundleID.utf8)
    let at = (0...(renamed.count - name.count)).last { Array(renamed[$0..<($0 + name.count)]) == name }!
    renamed[at + name.count - 1] = UInt8(ascii: "x")
    #expect(throws: DecodeError.self) { try decode(renamed) }
    do {
      _ = try decode(renamed)
    } catch let error as DecodeError {
      #expect(error.offset == at - 4 && error.message.contains("which is not installed"))
    }
    // More required types than the format holds are refused before they are read.
    var info = BinaryWriter()
    info.healthRecordsInfo(HealthRecordsInfo(requiredTypes: Array(repeating: "x", count: 33)))
    let refused = info.bytes.withUnsafeBytes { buffer -> DecodeError? in
      var reader = BinaryReader(buffer)
      do throws(DecodeError) { _ = try reader.healthRecordsInfo() } catch { return error }
      return nil
    }
    #expect(refused?.offset == 1 && refused?.message.hasPrefix("33 required clinical types") == true)
  }

  @Test(
    "A slot record whose change number or source index does not fit the packed slot is refused at the field",
    arguments: [(40, UInt64(1) << 48, "change number"), (52, UInt64(1) << 31, "source index")])
  func slotFieldsBeyondThePackedLimits(field: Int, value: UInt64, what: String) throws {
    var state = DeviceState(device: .phone)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    try allowAll(&state, share: [water], read: [])
    let id = UUID()
    _ = try state.save(
      waterApp.bundleID, [SampleInput(uuid: id, type: water, value: .quantity(1, unit: "L"), start: t0, end: t0)],
      wall: t0)
    var writer = BinaryWriter()
    writer.deviceState(state) { (_: inout BinaryWriter) in }
    var bytes = writer.bytes
    // The slot record starts with the identifier's bytes (nothing else in the state holds them).
    let idBytes = withUnsafeBytes(of: id.uuid) { Array($0) }
    let record = try #require((0...(bytes.count - 16)).first { Array(bytes[$0..<$0 + 16]) == idBytes })
    let width = field == 40 ? 8 : 4
    withUnsafeBytes(of: value.littleEndian) { for k in 0..<width { bytes[record + field + k] = $0[k] } }
    let outcome = bytes.withUnsafeBytes { buffer in
      Result { () throws(DecodeError) -> DeviceState in
        var reader = BinaryReader(buffer)
        return try reader.deviceState()
      }
    }
    guard case .failure(let error) = outcome else {
      Issue.record("expected the slot to be refused")
      return
    }
    #expect(error.offset == record + field)
    #expect(error.message.contains(what))
  }
}

/// Water asks for `share` and `read`, and the user allows all (the sheet must be shown).
private func allowAll(_ state: inout DeviceState, share: Set<SampleType>, read: Set<SampleType>) throws {
  let asked = try state.requestAuthorization(waterApp.bundleID, share: share, read: read, wall: t0)
  guard case .prompt(let prompt) = asked else {
    Issue.record("expected a sheet, got \(asked)")
    return
  }
  _ = try state.answerPrompt(id: prompt.id, bundleID: nil, answer: .allowAll, wall: t0)
}

/// Decodes a whole encoded device state (nothing may follow it).
private func decodeState(_ bytes: [UInt8]) throws -> DeviceState {
  try bytes.withUnsafeBytes { buffer throws(DecodeError) in
    var reader = BinaryReader(buffer)
    let state = try reader.deviceState()
    try reader.expectEnd("state")
    return state
  }
}
