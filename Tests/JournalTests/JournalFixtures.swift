import FoundationEssentials

@testable import HealthEngine
@testable import HealthModel

/// The events the checked-in journal fixtures hold: fixed identifiers, so the bytes are reproducible.
enum JournalFixture {
  static let savedID = UUID(uuidString: "5A1E0000-0000-4000-8000-000000000001")!
  static let sessionID = UUID(uuidString: "5A1E0000-0000-4000-8000-000000000002")!
  static let phoneSource = SampleSource(bundleID: app.bundleID, device: .phone)

  static let events: [DeviceEvent] = [
    .clockSet(t0),
    .appInstalled(app),
    .promptAnswered(
      bundleID: app.bundleID,
      changes: [
        AuthorizationChange(Permission(water, .share), .authorized),
        AuthorizationChange(Permission(water, .read), .denied),
      ]),
    .samplesSaved([
      Sample(
        uuid: savedID, type: water, value: .quantity(250), start: t0, end: t0,
        metadata: ["HKWasUserEntered": .bool(true), "note": .string("fixture"), "q": .quantity(2, unit: "kg")],
        source: phoneSource)
    ]),
    .samplesSaved([
      Sample(
        uuid: sessionID, type: mindful, value: .category(0), start: t0, end: t0.addingTimeInterval(600),
        source: phoneSource)
    ]),
    .samplesDeleted([Tombstone(uuid: savedID, type: water, source: phoneSource, deletedAt: t0.addingTimeInterval(60))]),
    .policyChanged(DevicePolicy(reprompt: .strict, retention: 86400)),
  ]
}
