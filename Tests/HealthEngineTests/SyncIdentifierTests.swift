import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

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
