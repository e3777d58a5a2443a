import FoundationEssentials
import HealthEngine
import HealthModel

// Every sync payload kind defined once, in `SyncPayloadTable`: its tag, and its fields — those of the journal event
// that records the same change on its origin device (EventTable.swift). One table serves the two forms an entry
// takes: a `SyncEntry` (on the peer link and in the journal's `peerEntriesApplied`) and a `SyncLedger.StoredEntry`
// (a snapshot's unacknowledged outbound entries), which differ only in how saved samples are held.
// `EventFixtureTests` pins every tag's bytes in both forms.

/// The tag byte of each kind of sync payload (docs/protocol.md; docs/journal.md, "What a snapshot holds").
package enum SyncPayloadTag: UInt8, CaseIterable, Sendable {
  /// Saved samples: `[sample]` in a sync entry; in a snapshot's stored entry the store slots that hold them
  /// (`start u32, count u32`).
  case samples = 0
  /// Deletions: `[tombstone]`.
  case deletions = 1
  /// A Watch-app settings change: bundleID, settings-change.
  case watchSettings = 2
  /// Companion decisions: bundleID, `[shared-decision]`, at date.
  case authorization = 3
  /// Samples with their sources listed once (import-samples): a sync entry's samples when any source has details.
  /// Never in a snapshot (its samples are slots).
  case importedSamples = 4
  /// A Health app value: user-setting, at date.
  case userSetting = 10
  /// A data-source order: type, source-order.
  case sourceOrder = 50
  /// Correlations: `[correlation]`.
  case correlations = 75
  /// Correlation deletions: `[tombstone]`.
  case correlationDeletions = 76
  /// Workouts: `[workout]`.
  case workouts = 80
  /// Samples associated with a workout: workout uuid, `[uuid]`.
  case workoutAssociations = 81
  /// Routes: `[route]`.
  case routes = 82
  /// Heartbeat series: `[heartbeat-series]`.
  case heartbeatSeries = 83
  /// Deletions of workouts, routes and heartbeat series: `[tombstone]`.
  case workoutDeletions = 84
  /// Electrocardiograms: `[ecg]`.
  case electrocardiograms = 90
  /// Audiograms: `[audiogram]`.
  case audiograms = 91
  /// States of Mind: `[state-of-mind]`.
  case statesOfMind = 92
  /// Scored assessments: `[assessment]`.
  case scoredAssessments = 93
  /// Medications: `[medication]`.
  case medications = 94
  /// Medication doses: `[dose]`.
  case medicationDoses = 95
}

/// The payload cases a ``SyncEntry`` and a ``SyncLedger/StoredEntry`` share, so one table builds both.
protocol SharedSyncPayload: Sendable {
  static func deletions(_ tombstones: [Tombstone]) -> Self
  static func watchSettings(bundleID: String, change: SettingsChange) -> Self
  static func authorization(bundleID: String, decisions: [SharedDecision], at: Date) -> Self
  static func userSetting(_ setting: UserSetting, at: Date) -> Self
  static func sourceOrder(_ type: SampleType, _ order: SourceOrder) -> Self
  static func correlations(_ correlations: [Correlation]) -> Self
  static func correlationDeletions(_ tombstones: [Tombstone]) -> Self
  static func workouts(_ workouts: [Workout]) -> Self
  static func workoutAssociations(workout: UUID, samples: [UUID]) -> Self
  static func routes(_ routes: [WorkoutRoute]) -> Self
  static func heartbeatSeries(_ series: [HeartbeatSeries]) -> Self
  static func workoutDeletions(_ tombstones: [Tombstone]) -> Self
  static func electrocardiograms(_ ecgs: [Electrocardiogram]) -> Self
  static func audiograms(_ audiograms: [Audiogram]) -> Self
  static func statesOfMind(_ states: [StateOfMind]) -> Self
  static func scoredAssessments(_ assessments: [ScoredAssessment]) -> Self
  static func medications(_ medications: [Medication]) -> Self
  static func medicationDoses(_ doses: [MedicationDoseEvent]) -> Self
}

extension SyncPayload: SharedSyncPayload {}
extension SyncLedger.StoredPayload: SharedSyncPayload {}

/// Every sync payload kind both forms share, built as `Payload`; each row has the fields of the event that records
/// the same change.
struct SyncPayloadTable<Payload: SharedSyncPayload>: Sendable {
  /// One kind of payload.
  typealias Row<Fields> = RecordDefinition<SyncPayloadTag, Payload, Fields>

  /// 1: the fields of `samplesDeleted`.
  let deletions = Row(.deletions, fieldsOf: EventTable.samplesDeleted) { Payload.deletions($0) }
  /// 2: the fields of `watchSettingsQueued`.
  let watchSettings = Row(.watchSettings, fieldsOf: EventTable.watchSettingsQueued) { id, change in
    Payload.watchSettings(bundleID: id, change: change)
  }
  /// 3: the fields of `authorizationShared`.
  let authorization = Row(.authorization, fieldsOf: EventTable.authorizationShared) { id, decisions, at in
    Payload.authorization(bundleID: id, decisions: decisions, at: at)
  }
  /// 10: the fields of `userSettingChanged`.
  let userSetting = Row(.userSetting, fieldsOf: EventTable.userSettingChanged) { setting, at in
    Payload.userSetting(setting, at: at)
  }
  /// 50: the fields of `sourceOrderChanged`.
  let sourceOrder = Row(.sourceOrder, fieldsOf: EventTable.sourceOrderChanged) { type, order in
    Payload.sourceOrder(type, order)
  }
  /// 75: the fields of `correlationsSaved`.
  let correlations = Row(.correlations, fieldsOf: EventTable.correlationsSaved) { Payload.correlations($0) }
  /// 76: the fields of `correlationsDeleted`.
  let correlationDeletions = Row(.correlationDeletions, fieldsOf: EventTable.correlationsDeleted) {
    Payload.correlationDeletions($0)
  }
  /// 80: the fields of `workoutsSaved`.
  let workouts = Row(.workouts, fieldsOf: EventTable.workoutsSaved) { Payload.workouts($0) }
  /// 81: the fields of `workoutSamplesAssociated`.
  let workoutAssociations = Row(.workoutAssociations, fieldsOf: EventTable.workoutSamplesAssociated) { w, s in
    Payload.workoutAssociations(workout: w, samples: s)
  }
  /// 82: the fields of `routesSaved`.
  let routes = Row(.routes, fieldsOf: EventTable.routesSaved) { Payload.routes($0) }
  /// 83: the fields of `heartbeatSeriesSaved`.
  let heartbeatSeries = Row(.heartbeatSeries, fieldsOf: EventTable.heartbeatSeriesSaved) {
    Payload.heartbeatSeries($0)
  }
  /// 84: the fields of `workoutObjectsDeleted`.
  let workoutDeletions = Row(.workoutDeletions, fieldsOf: EventTable.workoutObjectsDeleted) {
    Payload.workoutDeletions($0)
  }
  /// 90: the fields of `electrocardiogramsStored`.
  let electrocardiograms = Row(.electrocardiograms, fieldsOf: EventTable.electrocardiogramsStored) {
    Payload.electrocardiograms($0)
  }
  /// 91: the fields of `audiogramsSaved`.
  let audiograms = Row(.audiograms, fieldsOf: EventTable.audiogramsSaved) { Payload.audiograms($0) }
  /// 92: the fields of `statesOfMindSaved`.
  let statesOfMind = Row(.statesOfMind, fieldsOf: EventTable.statesOfMindSaved) { Payload.statesOfMind($0) }
  /// 93: the fields of `scoredAssessmentsSaved`.
  let scoredAssessments = Row(.scoredAssessments, fieldsOf: EventTable.scoredAssessmentsSaved) {
    Payload.scoredAssessments($0)
  }
  /// 94: the fields of `medicationsAdded`.
  let medications = Row(.medications, fieldsOf: EventTable.medicationsAdded) { Payload.medications($0) }
  /// 95: the fields of `medicationDosesLogged`.
  let medicationDoses = Row(.medicationDoses, fieldsOf: EventTable.medicationDosesLogged) {
    Payload.medicationDoses($0)
  }
}

extension SyncPayload {
  /// The payload rows as sync entries use them.
  static let table = SyncPayloadTable<SyncPayload>()
  /// 0: the fields of `samplesSaved`.
  static let samplesRow = RecordDefinition(SyncPayloadTag.samples, fieldsOf: EventTable.samplesSaved) {
    SyncPayload.samples($0)
  }
  /// 4: the samples field of `importStaged`.
  static let importedSamplesRow = RecordDefinition(
    SyncPayloadTag.importedSamples, Fields.importSamples
  ) { SyncPayload.samples($0) }
}

extension SyncLedger.StoredPayload {
  /// The payload rows as a snapshot's stored entries use them.
  static let table = SyncPayloadTable<SyncLedger.StoredPayload>()
  /// 0: the store slots `start..<start+count`, as `u32` bit patterns.
  static let slotsRow = RecordDefinition(
    SyncPayloadTag.samples, Fields.slot, Fields.slot, make: SyncLedger.StoredPayload.slots)
}

extension Fields {
  /// A slot index or count as the `u32` bit pattern of an `Int32`.
  static let slot = RecordField<Int32>(
    write: { $0.u32(UInt32(bitPattern: $1)) }, read: { r throws(DecodeError) in Int32(bitPattern: try r.u32()) })
}

extension BinaryWriter {
  /// `u64` seq, `u8` tag and the payload (``SyncPayloadTag``): samples without source details as tag 0, with them
  /// as tag 4 (their sources listed once, ``importSamples(_:)``).
  package mutating func syncEntry(_ e: SyncEntry) {
    u64(e.seq)
    let table = SyncPayload.table
    switch e.payload {
    case .samples(let s):
      // Samples without details keep tag 0 and the layout without details (pinned in `events.txt`).
      if s.contains(where: { $0.source.details != nil }) {
        SyncPayload.importedSamplesRow.write(s, into: &self)
      } else {
        SyncPayload.samplesRow.write(s, into: &self)
      }
    case .deletions(let t): table.deletions.write(t, into: &self)
    case .watchSettings(let id, let c): table.watchSettings.write((id, c), into: &self)
    case .authorization(let id, let decisions, let at): table.authorization.write((id, decisions, at), into: &self)
    case .userSetting(let setting, let at): table.userSetting.write((setting, at), into: &self)
    case .sourceOrder(let type, let order): table.sourceOrder.write((type, order), into: &self)
    case .correlations(let c): table.correlations.write(c, into: &self)
    case .correlationDeletions(let t): table.correlationDeletions.write(t, into: &self)
    case .workouts(let w): table.workouts.write(w, into: &self)
    case .workoutAssociations(let w, let s): table.workoutAssociations.write((w, s), into: &self)
    case .routes(let r): table.routes.write(r, into: &self)
    case .heartbeatSeries(let s): table.heartbeatSeries.write(s, into: &self)
    case .workoutDeletions(let t): table.workoutDeletions.write(t, into: &self)
    case .electrocardiograms(let e): table.electrocardiograms.write(e, into: &self)
    case .audiograms(let a): table.audiograms.write(a, into: &self)
    case .statesOfMind(let s): table.statesOfMind.write(s, into: &self)
    case .scoredAssessments(let a): table.scoredAssessments.write(a, into: &self)
    case .medications(let m): table.medications.write(m, into: &self)
    case .medicationDoses(let d): table.medicationDoses.write(d, into: &self)
    }
  }

  /// A snapshot's outbound entry: `u64` seq, `u8` tag and the payload, saved samples as their slots.
  mutating func storedEntry(_ e: SyncLedger.StoredEntry) {
    u64(e.seq)
    let table = SyncLedger.StoredPayload.table
    switch e.payload {
    case .slots(let start, let count): SyncLedger.StoredPayload.slotsRow.write((start, count), into: &self)
    case .deletions(let t): table.deletions.write(t, into: &self)
    case .watchSettings(let id, let c): table.watchSettings.write((id, c), into: &self)
    case .authorization(let id, let decisions, let at): table.authorization.write((id, decisions, at), into: &self)
    case .userSetting(let setting, let at): table.userSetting.write((setting, at), into: &self)
    case .sourceOrder(let type, let order): table.sourceOrder.write((type, order), into: &self)
    case .correlations(let c): table.correlations.write(c, into: &self)
    case .correlationDeletions(let t): table.correlationDeletions.write(t, into: &self)
    case .workouts(let w): table.workouts.write(w, into: &self)
    case .workoutAssociations(let w, let s): table.workoutAssociations.write((w, s), into: &self)
    case .routes(let r): table.routes.write(r, into: &self)
    case .heartbeatSeries(let s): table.heartbeatSeries.write(s, into: &self)
    case .workoutDeletions(let t): table.workoutDeletions.write(t, into: &self)
    case .electrocardiograms(let e): table.electrocardiograms.write(e, into: &self)
    case .audiograms(let a): table.audiograms.write(a, into: &self)
    case .statesOfMind(let s): table.statesOfMind.write(s, into: &self)
    case .scoredAssessments(let a): table.scoredAssessments.write(a, into: &self)
    case .medications(let m): table.medications.write(m, into: &self)
    case .medicationDoses(let d): table.medicationDoses.write(d, into: &self)
    }
  }
}

extension BinaryReader {
  /// Reads a sync entry.
  /// - Throws: ``DecodeError`` for an unknown tag or at the first bad byte of its payload.
  package mutating func syncEntry() throws(DecodeError) -> SyncEntry {
    let seq = try u64()
    let raw = try u8()
    guard let tag = SyncPayloadTag(rawValue: raw) else { throw error("unknown sync payload tag \(raw)") }
    let table = SyncPayload.table
    let payload: SyncPayload
    switch tag {
    case .samples: payload = try SyncPayload.samplesRow.read(from: &self)
    case .importedSamples: payload = try SyncPayload.importedSamplesRow.read(from: &self)
    case .deletions: payload = try table.deletions.read(from: &self)
    case .watchSettings: payload = try table.watchSettings.read(from: &self)
    case .authorization: payload = try table.authorization.read(from: &self)
    case .userSetting: payload = try table.userSetting.read(from: &self)
    case .sourceOrder: payload = try table.sourceOrder.read(from: &self)
    case .correlations: payload = try table.correlations.read(from: &self)
    case .correlationDeletions: payload = try table.correlationDeletions.read(from: &self)
    case .workouts: payload = try table.workouts.read(from: &self)
    case .workoutAssociations: payload = try table.workoutAssociations.read(from: &self)
    case .routes: payload = try table.routes.read(from: &self)
    case .heartbeatSeries: payload = try table.heartbeatSeries.read(from: &self)
    case .workoutDeletions: payload = try table.workoutDeletions.read(from: &self)
    case .electrocardiograms: payload = try table.electrocardiograms.read(from: &self)
    case .audiograms: payload = try table.audiograms.read(from: &self)
    case .statesOfMind: payload = try table.statesOfMind.read(from: &self)
    case .scoredAssessments: payload = try table.scoredAssessments.read(from: &self)
    case .medications: payload = try table.medications.read(from: &self)
    case .medicationDoses: payload = try table.medicationDoses.read(from: &self)
    }
    return SyncEntry(seq: seq, payload: payload)
  }

  /// Reads a snapshot's outbound entry (``BinaryWriter/storedEntry(_:)``).
  /// - Throws: ``DecodeError`` for an unknown tag (tag 4 included) or at the first bad byte of its payload.
  mutating func storedEntry() throws(DecodeError) -> SyncLedger.StoredEntry {
    let seq = try u64()
    let raw = try u8()
    guard let tag = SyncPayloadTag(rawValue: raw) else { throw error("unknown stored sync entry tag \(raw)") }
    let table = SyncLedger.StoredPayload.table
    let payload: SyncLedger.StoredPayload
    switch tag {
    case .samples: payload = try SyncLedger.StoredPayload.slotsRow.read(from: &self)
    case .importedSamples: throw error("unknown stored sync entry tag \(raw)")
    case .deletions: payload = try table.deletions.read(from: &self)
    case .watchSettings: payload = try table.watchSettings.read(from: &self)
    case .authorization: payload = try table.authorization.read(from: &self)
    case .userSetting: payload = try table.userSetting.read(from: &self)
    case .sourceOrder: payload = try table.sourceOrder.read(from: &self)
    case .correlations: payload = try table.correlations.read(from: &self)
    case .correlationDeletions: payload = try table.correlationDeletions.read(from: &self)
    case .workouts: payload = try table.workouts.read(from: &self)
    case .workoutAssociations: payload = try table.workoutAssociations.read(from: &self)
    case .routes: payload = try table.routes.read(from: &self)
    case .heartbeatSeries: payload = try table.heartbeatSeries.read(from: &self)
    case .workoutDeletions: payload = try table.workoutDeletions.read(from: &self)
    case .electrocardiograms: payload = try table.electrocardiograms.read(from: &self)
    case .audiograms: payload = try table.audiograms.read(from: &self)
    case .statesOfMind: payload = try table.statesOfMind.read(from: &self)
    case .scoredAssessments: payload = try table.scoredAssessments.read(from: &self)
    case .medications: payload = try table.medications.read(from: &self)
    case .medicationDoses: payload = try table.medicationDoses.read(from: &self)
    }
    return SyncLedger.StoredEntry(seq: seq, payload: payload)
  }
}
