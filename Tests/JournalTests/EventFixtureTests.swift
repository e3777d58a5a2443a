import Foundation
import TestSupport
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel

/// The durable record formats, pinned: every journal event kind, every sync entry payload and every snapshot
/// outbound entry (``EventFixture``), encoded and compared byte for byte with `Fixtures/events.txt`, then decoded from
/// those checked-in bytes and encoded again. A change to a layout fails here even when round trips stay green; a
/// deliberate change is a format version bump (docs/journal.md) and refreshes the file with
/// `HEALTHPAIR_UPDATE_FIXTURES=1 swift test --filter EventFixtureTests`.
///
/// A new tag fails ``everyTagHasAFixture()`` until it has an example here and its line in the file.
@Suite("Pinned journal events and sync entries")
struct EventFixtureTests {
  static let fixturePath = "Tests/JournalTests/Fixtures/events.txt"

  /// Every example as (fixture key, record bytes).
  static var records: [(key: String, bytes: [UInt8])] {
    var all: [(String, [UInt8])] = []
    for (name, event) in EventFixture.events {
      var w = BinaryWriter()
      w.event(event)
      all.append(("event.\(name)", w.bytes))
    }
    // Each payload of the journal's peerEntriesApplied example, as one sync entry.
    for case .peerEntriesApplied(let entries, _) in EventFixture.events.map(\.event) {
      for entry in entries {
        var w = BinaryWriter()
        w.syncEntry(entry)
        all.append(("entry.\(w.bytes[8] == 4 ? "importedSamples" : Self.name(of: entry.payload))", w.bytes))
      }
    }
    for (name, entry) in EventFixture.storedEntries {
      var w = BinaryWriter()
      w.storedEntry(entry)
      all.append(("stored.\(name)", w.bytes))
    }
    return all
  }

  /// A payload's case name (exhaustive: a new payload does not compile without one).
  static func name(of payload: SyncPayload) -> String {
    switch payload {
    case .samples: "samples"
    case .deletions: "deletions"
    case .watchSettings: "watchSettings"
    case .authorization: "authorization"
    case .userSetting: "userSetting"
    case .sourceOrder: "sourceOrder"
    case .correlations: "correlations"
    case .correlationDeletions: "correlationDeletions"
    case .workouts: "workouts"
    case .workoutAssociations: "workoutAssociations"
    case .routes: "routes"
    case .heartbeatSeries: "heartbeatSeries"
    case .workoutDeletions: "workoutDeletions"
    case .electrocardiograms: "electrocardiograms"
    case .audiograms: "audiograms"
    case .statesOfMind: "statesOfMind"
    case .scoredAssessments: "scoredAssessments"
    case .medications: "medications"
    case .medicationDoses: "medicationDoses"
    }
  }

  /// The fixture file's lines as (key, bytes).
  static func fixture() throws -> [(key: String, bytes: [UInt8])] {
    try Repository.read(fixturePath).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
      let parts = line.split(separator: " ")
      return (String(parts[0]), Hex.bytes(parts[1]))
    }
  }

  @Test("Every event tag and every sync payload tag has an example, named for its tag")
  func everyTagHasAFixture() throws {
    let records = Self.records
    func tagName(_ key: String) -> Substring { key.split(separator: ".")[1] }
    let events = records.filter { $0.key.hasPrefix("event.") }
    #expect(Set(events.map { $0.bytes[0] }) == Set(DeviceEventTag.allCases.map(\.rawValue)))
    for (key, bytes) in events {
      #expect(tagName(key) == "\(DeviceEventTag(rawValue: bytes[0])!)", "\(key)")
    }
    // A sync entry's tag follows its u64 sequence number.
    for form in ["entry.", "stored."] {
      let entries = records.filter { $0.key.hasPrefix(form) }
      let expected = SyncPayloadTag.allCases.filter { form == "entry." || $0 != .importedSamples }
      #expect(Set(entries.map { $0.bytes[8] }) == Set(expected.map(\.rawValue)), "\(form)")
      for (key, bytes) in entries {
        #expect(tagName(key) == "\(SyncPayloadTag(rawValue: bytes[8])!)", "\(key)")
      }
    }
    #expect(Set(records.map(\.key)).count == records.count, "fixture names are distinct")
  }

  @Test("Each record's bytes are the checked-in ones, and the checked-in bytes decode to the example and back")
  func recordsMatchTheFixture() throws {
    let records = Self.records
    if ProcessInfo.processInfo.environment["HEALTHPAIR_UPDATE_FIXTURES"] == "1" {
      let text =
        "# Journal events (docs/journal.md), sync entries and snapshot entries: one record per line "
        + "(see EventFixtureTests).\n" + records.map { "\($0.key) \(Hex.string($0.bytes))" }.joined(separator: "\n")
        + "\n"
      try text.write(toFile: Repository.path(Self.fixturePath), atomically: true, encoding: .utf8)
    }
    let pinned = try Self.fixture()
    #expect(pinned.map(\.key) == records.map(\.key), "the fixture lists exactly the examples, in order")
    let byKey = Dictionary(uniqueKeysWithValues: pinned.map { ($0.key, $0.bytes) })
    for (key, bytes) in records {
      guard let fixed = byKey[key] else {
        Issue.record("\(key) has no line in \(Self.fixturePath): \(Hex.string(bytes))")
        continue
      }
      #expect(Hex.string(bytes) == Hex.string(fixed), "\(key)")
      // The checked-in bytes decode and encode again to themselves.
      let again = try fixed.withUnsafeBytes { buffer throws(DecodeError) -> [UInt8] in
        var reader = BinaryReader(buffer)
        var w = BinaryWriter()
        if key.hasPrefix("event.") {
          w.event(try reader.event())
        } else if key.hasPrefix("entry.") {
          w.syncEntry(try reader.syncEntry())
        } else {
          w.storedEntry(try reader.storedEntry())
        }
        try reader.expectEnd(key)
        return w.bytes
      }
      #expect(again == fixed, "\(key) re-encodes as \(Hex.string(again))")
    }
    // And decode to the examples themselves.
    for (name, event) in EventFixture.events {
      let decoded = try byKey["event.\(name)"].map { bytes in
        try bytes.withUnsafeBytes { buffer throws(DecodeError) in
          var reader = BinaryReader(buffer)
          return try reader.event()
        }
      }
      #expect(decoded == event, "\(name)")
    }
  }

  @Test("A sync payload is laid out as the event that records the same change, after its own tag")
  func syncPayloadsShareTheirEventsLayouts() {
    let pairs: [(DeviceEvent, SyncPayload)] = [
      (.samplesSaved([EventFixture.sample]), .samples([EventFixture.sample])),
      (.samplesDeleted([EventFixture.tombstone]), .deletions([EventFixture.tombstone])),
      (
        .watchSettingsQueued(bundleID: app.bundleID, change: .reset),
        .watchSettings(bundleID: app.bundleID, change: .reset)
      ),
      (
        .authorizationShared(bundleID: app.bundleID, decisions: EventFixture.decisions, at: t0),
        .authorization(bundleID: app.bundleID, decisions: EventFixture.decisions, at: t0)
      ),
      (.userSettingChanged(.preferredUnit(water, "L"), at: t0), .userSetting(.preferredUnit(water, "L"), at: t0)),
      (.sourceOrderChanged(water, EventFixture.order), .sourceOrder(water, EventFixture.order)),
      (.correlationsSaved([EventFixture.correlation]), .correlations([EventFixture.correlation])),
      (
        .correlationsDeleted([EventFixture.correlationTombstone]),
        .correlationDeletions([EventFixture.correlationTombstone])
      ),
      (.workoutsSaved([EventFixture.workout]), .workouts([EventFixture.workout])),
      (
        .workoutSamplesAssociated(workout: EventFixture.workout.uuid, samples: [JournalFixture.savedID]),
        .workoutAssociations(workout: EventFixture.workout.uuid, samples: [JournalFixture.savedID])
      ),
      (.routesSaved([EventFixture.route]), .routes([EventFixture.route])),
      (.heartbeatSeriesSaved([EventFixture.heartbeats]), .heartbeatSeries([EventFixture.heartbeats])),
      (.workoutObjectsDeleted([EventFixture.routeTombstone]), .workoutDeletions([EventFixture.routeTombstone])),
    ]
    for (event, payload) in pairs {
      var e = BinaryWriter()
      e.event(event)
      var s = BinaryWriter()
      s.syncEntry(SyncEntry(seq: 1, payload: payload))
      #expect(Array(e.bytes.dropFirst()) == Array(s.bytes.dropFirst(9)), "\(event)")
    }
  }

  @Test("An unknown tag is refused at the byte after it, naming the tag")
  func unknownTagsAreRefused() {
    /// The error `read` throws on `bytes`, nil when it reads them.
    func refusal(_ bytes: [UInt8], _ read: (inout BinaryReader) throws(DecodeError) -> Void) -> DecodeError? {
      bytes.withUnsafeBytes { buffer in
        var reader = BinaryReader(buffer)
        do throws(DecodeError) { try read(&reader) } catch { return error }
        return nil
      }
    }
    let known = Set(DeviceEventTag.allCases.map(\.rawValue))
    for raw in (0...UInt8.max).filter({ !known.contains($0) }) {
      #expect(
        refusal([raw]) { r throws(DecodeError) in _ = try r.event() }
          == DecodeError(offset: 1, "unknown journal event tag \(raw)"))
    }
    var stored = BinaryWriter()
    stored.u64(1)
    stored.u8(SyncPayloadTag.importedSamples.rawValue)
    #expect(
      refusal(stored.bytes) { r throws(DecodeError) in _ = try r.storedEntry() }
        == DecodeError(offset: 9, "unknown stored sync entry tag 4"))
  }
}
