import FoundationEssentials
import HealthModel

/// What an object of a family stored apart from samples exposes to the store: identity, type, dates, source, the
/// shelf it lives on and how it syncs. The family-independent steps (store, sync, peer apply, import, prune, query
/// candidates) are written once over this protocol (`DeviceState+Shelves.swift`).
package protocol ShelvedObject: Hashable, Sendable {
  /// The object's identifier.
  var uuid: UUID { get }
  /// The type it is stored and authorized under.
  var objectType: SampleType { get }
  /// When it starts (what date ranges and sorts use).
  var start: Date { get }
  /// When it ends (the retention window drops objects that end before it).
  var end: Date { get }
  /// Who stored it.
  var source: SampleSource { get }
  /// The shelf of ``SpecialObjectStore`` the family lives on.
  static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { get }
  /// The sync-log entry carrying `objects`, or nil for a family that stays on its device.
  static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload?
  /// The most objects one sync-log entry carries.
  static var perSyncEntry: Int { get }
}

extension ShelvedObject {
  /// ``SyncLedger/maxItemsPerEntry``, unless a family's objects are large.
  package static var perSyncEntry: Int { SyncLedger.maxItemsPerEntry }
}

extension Electrocardiogram: ShelvedObject {
  /// `HKElectrocardiogramType`.
  package var objectType: SampleType { SpecialObjectStore.electrocardiogramType }
  /// ``SpecialObjectStore/electrocardiograms``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.electrocardiograms }
  /// ``SyncLedger/StoredPayload/electrocardiograms(_:)``.
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { .electrocardiograms(objects) }
  /// ``SyncLedger/maxRecordingsPerEntry``.
  package static var perSyncEntry: Int { SyncLedger.maxRecordingsPerEntry }
}

extension Audiogram: ShelvedObject {
  /// `HKAudiogramSampleType`.
  package var objectType: SampleType { SpecialObjectStore.audiogramType }
  /// ``SpecialObjectStore/audiograms``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.audiograms }
  /// ``SyncLedger/StoredPayload/audiograms(_:)``.
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { .audiograms(objects) }
}

extension StateOfMind: ShelvedObject {
  /// `HKStateOfMindType`.
  package var objectType: SampleType { SpecialObjectStore.stateOfMindType }
  /// The moment it was logged.
  package var start: Date { date }
  /// ``SpecialObjectStore/statesOfMind``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.statesOfMind }
  /// ``SyncLedger/StoredPayload/statesOfMind(_:)``.
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { .statesOfMind(objects) }
}

extension ScoredAssessment: ShelvedObject {
  /// `HKScoredAssessmentType` of its kind.
  package var objectType: SampleType { SpecialObjectStore.assessmentType(kind) }
  /// The moment it was taken.
  package var start: Date { date }
  /// ``SpecialObjectStore/scoredAssessments``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.scoredAssessments }
  /// ``SyncLedger/StoredPayload/scoredAssessments(_:)``.
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { .scoredAssessments(objects) }
}

extension CDADocument: ShelvedObject {
  /// `HKDocumentType(.CDA)`.
  package var objectType: SampleType { SpecialObjectStore.cdaType }
  /// ``SpecialObjectStore/cdaDocuments``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.cdaDocuments }
  /// Nil: CDA documents stay on the iPhone, where they are saved (behavior.md O1).
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { nil }
}

extension ClinicalRecord: ShelvedObject {
  /// The record's clinical type.
  package var objectType: SampleType { type }
  /// The moment the record was received.
  package var start: Date { date }
  /// ``SpecialObjectStore/clinicalRecords``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.clinicalRecords }
  /// Nil: clinical records stay on the iPhone (behavior.md F1).
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { nil }
}

extension VisionPrescription: ShelvedObject {
  /// `HKPrescriptionType` (`visionPrescriptionType()`).
  package var objectType: SampleType { SpecialObjectStore.visionPrescriptionType }
  /// The date it was issued.
  package var start: Date { dateIssued }
  /// ``SpecialObjectStore/visionPrescriptions``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.visionPrescriptions }
  /// Nil: prescriptions stay on the iPhone, where they are saved (behavior.md V2).
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { nil }
}

extension Medication: ShelvedObject {
  /// `HKUserAnnotatedMedicationType`.
  package var objectType: SampleType { SpecialObjectStore.medicationType }
  /// When the user added it.
  package var start: Date { added }
  /// The distant future: a medication stays on the list (the retention window never drops it).
  package var end: Date { .distantFuture }
  /// ``SpecialObjectStore/medications``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.medications }
  /// ``SyncLedger/StoredPayload/medications(_:)``.
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { .medications(objects) }
}

extension MedicationDoseEvent: ShelvedObject {
  /// `HKMedicationDoseEventType`.
  package var objectType: SampleType { SpecialObjectStore.medicationDoseEventType }
  /// When it was logged.
  package var start: Date { date }
  /// ``SpecialObjectStore/medicationDoses``.
  package static var shelf: WritableKeyPath<SpecialObjectStore, ObjectShelf<Self>> { \.medicationDoses }
  /// ``SyncLedger/StoredPayload/medicationDoses(_:)``.
  package static func syncPayload(_ objects: [Self]) -> SyncLedger.StoredPayload? { .medicationDoses(objects) }
}

/// One family's stored objects by identifier, each with the change number it was stored under (drawn from the
/// sample store's counter, so anchors count in one sequence on the device).
package struct ObjectShelf<Value: ShelvedObject>: Hashable, Sendable {
  /// The live objects by identifier.
  package private(set) var entries: [UUID: WorkoutStore.Entry<Value>] = [:]

  /// Creates an empty shelf.
  package init() {}

  /// Restores a shelf from a snapshot's list.
  /// - Throws: ``StateRestoreError`` when an identifier is listed twice or a change number exceeds
  ///   `changeCounter`.
  package init(restoring list: [WorkoutStore.Entry<Value>], changeCounter: UInt64, what: String)
    throws(StateRestoreError)
  {
    for entry in list {
      guard entry.change <= changeCounter else {
        throw StateRestoreError("\(what) \(entry.value.uuid) has change number \(entry.change) above \(changeCounter)")
      }
      guard entries.updateValue(entry, forKey: entry.value.uuid) == nil else {
        throw StateRestoreError("\(what) \(entry.value.uuid) listed twice")
      }
    }
  }

  /// The live object `uuid`.
  package subscript(uuid: UUID) -> Value? { entries[uuid]?.value }
  /// Whether `uuid` is stored.
  package func contains(_ uuid: UUID) -> Bool { entries[uuid] != nil }
  /// How many objects are stored.
  package var count: Int { entries.count }
  /// The live objects in change order (the order they were stored): what snapshots and log restarts list.
  package var ordered: [WorkoutStore.Entry<Value>] { entries.values.sorted { $0.change < $1.change } }

  /// Stores an object; false (nothing changes) when its identifier is stored already.
  @discardableResult
  mutating func insert(_ value: Value, change: UInt64) -> Bool {
    guard entries[value.uuid] == nil else { return false }
    entries[value.uuid] = WorkoutStore.Entry(value, change: change)
    return true
  }

  /// Removes the object `uuid`; true when it was stored.
  mutating func remove(_ uuid: UUID) -> Bool { entries.removeValue(forKey: uuid) != nil }

  /// Drops the objects that end before `floor`; returns them.
  mutating func prune(endingBefore floor: Date) -> [Value] {
    var dropped: [Value] = []
    for (uuid, entry) in entries where entry.value.end < floor {
      entries[uuid] = nil
      dropped.append(entry.value)
    }
    return dropped
  }
}

/// The object families a device stores apart from samples and workouts: electrocardiograms (written only by the
/// system's ECG app or an import, read-only to apps), audiograms, States of Mind, scored assessments, vision
/// prescriptions and CDA documents (saved by apps), clinical records (from providers), medications and their dose
/// events (the user's); and the per-object read choices of prescriptions, documents and medications.
package struct SpecialObjectStore: Hashable, Sendable {
  /// Recorded electrocardiograms.
  package internal(set) var electrocardiograms = ObjectShelf<Electrocardiogram>()
  /// Saved or imported audiograms.
  package internal(set) var audiograms = ObjectShelf<Audiogram>()
  /// Saved States of Mind.
  package internal(set) var statesOfMind = ObjectShelf<StateOfMind>()
  /// Clinical records downloaded from providers (the iPhone only).
  package internal(set) var clinicalRecords = ObjectShelf<ClinicalRecord>()
  /// Saved vision prescriptions (the iPhone only).
  package internal(set) var visionPrescriptions = ObjectShelf<VisionPrescription>()
  /// Saved scored assessments (GAD-7, PHQ-9).
  package internal(set) var scoredAssessments = ObjectShelf<ScoredAssessment>()
  /// Saved CDA documents (the iPhone only).
  package internal(set) var cdaDocuments = ObjectShelf<CDADocument>()
  /// The medications the user added.
  package internal(set) var medications = ObjectShelf<Medication>()
  /// The doses the user logged.
  package internal(set) var medicationDoses = ObjectShelf<MedicationDoseEvent>()
  /// What the user chose on per-object read sheets: by app, each listed object's on (true) or off (false).
  package internal(set) var objectReadChoices: [String: [UUID: Bool]] = [:]

  /// Creates an empty store.
  package init() {}

  /// Restores a store from a snapshot's lists.
  /// - Throws: ``StateRestoreError`` as ``ObjectShelf/init(restoring:changeCounter:what:)``.
  package init(
    restoring electrocardiograms: [WorkoutStore.Entry<Electrocardiogram>],
    audiograms: [WorkoutStore.Entry<Audiogram>] = [], statesOfMind: [WorkoutStore.Entry<StateOfMind>] = [],
    clinicalRecords: [WorkoutStore.Entry<ClinicalRecord>] = [],
    visionPrescriptions: [WorkoutStore.Entry<VisionPrescription>] = [], objectReadChoices: [String: [UUID: Bool]] = [:],
    scoredAssessments: [WorkoutStore.Entry<ScoredAssessment>] = [],
    cdaDocuments: [WorkoutStore.Entry<CDADocument>] = [], medications: [WorkoutStore.Entry<Medication>] = [],
    medicationDoses: [WorkoutStore.Entry<MedicationDoseEvent>] = [], changeCounter: UInt64
  ) throws(StateRestoreError) {
    self.electrocardiograms = try ObjectShelf(
      restoring: electrocardiograms, changeCounter: changeCounter, what: "electrocardiogram")
    self.audiograms = try ObjectShelf(restoring: audiograms, changeCounter: changeCounter, what: "audiogram")
    self.statesOfMind = try ObjectShelf(restoring: statesOfMind, changeCounter: changeCounter, what: "state of mind")
    self.clinicalRecords = try ObjectShelf(
      restoring: clinicalRecords, changeCounter: changeCounter, what: "clinical record")
    self.visionPrescriptions = try ObjectShelf(
      restoring: visionPrescriptions, changeCounter: changeCounter, what: "vision prescription")
    self.scoredAssessments = try ObjectShelf(
      restoring: scoredAssessments, changeCounter: changeCounter, what: "scored assessment")
    self.cdaDocuments = try ObjectShelf(restoring: cdaDocuments, changeCounter: changeCounter, what: "CDA document")
    self.medications = try ObjectShelf(restoring: medications, changeCounter: changeCounter, what: "medication")
    self.medicationDoses = try ObjectShelf(
      restoring: medicationDoses, changeCounter: changeCounter, what: "medication dose event")
    for entry in medications {
      do throws(HealthError) { try entry.value.validate() } catch {
        throw StateRestoreError("medication \(entry.value.conceptID) is not valid: \(error.message)")
      }
    }
    for (app, chosen) in objectReadChoices {
      guard !chosen.isEmpty, chosen.keys.allSatisfy(self.readsPerObject) else {
        throw StateRestoreError(
          "the per-object choices of '\(app)' name no stored prescription, document or medication")
      }
    }
    self.objectReadChoices = objectReadChoices
    let all =
      electrocardiograms.map(\.value.uuid) + audiograms.map(\.value.uuid) + statesOfMind.map(\.value.uuid)
      + clinicalRecords.map(\.value.uuid) + visionPrescriptions.map(\.value.uuid)
      + scoredAssessments.map(\.value.uuid) + cdaDocuments.map(\.value.uuid) + medications.map(\.value.uuid)
      + medicationDoses.map(\.value.uuid)
    guard Set(all).count == all.count else {
      throw StateRestoreError("an identifier is listed in two object families")
    }
  }

  /// Whether the identifier names a stored object of any family here.
  package func isKnown(_ uuid: UUID) -> Bool {
    electrocardiograms.contains(uuid) || audiograms.contains(uuid) || statesOfMind.contains(uuid)
      || clinicalRecords.contains(uuid) || visionPrescriptions.contains(uuid) || scoredAssessments.contains(uuid)
      || cdaDocuments.contains(uuid) || medications.contains(uuid) || medicationDoses.contains(uuid)
  }

  /// Whether `uuid` names a stored object read object by object: a vision prescription, a CDA document or a
  /// medication.
  package func readsPerObject(_ uuid: UUID) -> Bool {
    visionPrescriptions.contains(uuid) || cdaDocuments.contains(uuid) || medications.contains(uuid)
  }

  /// Whether none of the first four families (a snapshot's objects section) has objects.
  package var isEmpty: Bool {
    electrocardiograms.count == 0 && audiograms.count == 0 && statesOfMind.count == 0 && clinicalRecords.count == 0
  }

  /// Whether no prescription is stored, so no choice names one (a snapshot's prescriptions section).
  package var hasNoPrescriptions: Bool { visionPrescriptions.count == 0 }

  /// Whether no medication or dose event is stored (a snapshot's medications section).
  package var hasNoMedications: Bool { medications.count == 0 && medicationDoses.count == 0 }

  /// Whether no scored assessment or CDA document is stored (a snapshot's assessments section).
  package var hasNoAssessmentsOrDocuments: Bool { scoredAssessments.count == 0 && cdaDocuments.count == 0 }

  /// Removes the app-saved object `uuid` (an audiogram, a State of Mind, a prescription, a CDA document or a scored
  /// assessment: recordings are never deleted by apps);
  /// true when it was stored. Its tombstone is kept with the workout family's (``WorkoutStore/deleted``).
  mutating func remove(_ uuid: UUID) -> Bool {
    if visionPrescriptions.remove(uuid) || cdaDocuments.remove(uuid) {
      forgetChoices(of: uuid)
      return true
    }
    return audiograms.remove(uuid) || statesOfMind.remove(uuid) || scoredAssessments.remove(uuid)
  }

  /// Records the user's per-object choices for `bundleID` (a sheet's answer), for the prescriptions and documents
  /// stored.
  mutating func choose(_ bundleID: String, _ choices: [UUID: Bool]) {
    let stored = choices.filter { readsPerObject($0.key) }
    guard !stored.isEmpty else { return }
    objectReadChoices[bundleID, default: [:]].merge(stored) { _, new in new }
  }

  /// Forgets an app's per-object choices (it was uninstalled).
  mutating func forgetChoices(of bundleID: String) { objectReadChoices[bundleID] = nil }

  /// Forgets every app's choice for a deleted object.
  mutating func forgetChoices(of uuid: UUID) {
    for app in objectReadChoices.keys {
      objectReadChoices[app]?[uuid] = nil
      if objectReadChoices[app]?.isEmpty == true { objectReadChoices[app] = nil }
    }
  }

  /// `HKUserAnnotatedMedicationType` (code 91, read per object).
  package static let medicationType = SampleType.lookup(name: "userAnnotatedMedication")!
  /// `HKMedicationDoseEventType` (code 92, read through its medications).
  package static let medicationDoseEventType = SampleType.lookup(name: "medicationDoseEvent")!
  /// `HKDocumentType(.CDA)` (code 90, read per object).
  package static let cdaType = SampleType.lookup(name: "CDA")!
  /// `HKPrescriptionType` (code 74, read per object).
  package static let visionPrescriptionType = SampleType.lookup(name: "visionPrescription")!
  /// `HKStateOfMindType` (code 77).
  package static let stateOfMindType = SampleType.lookup(name: "stateOfMind")!
  /// `HKScoredAssessmentType` of `kind` (codes 78 GAD-7, 79 PHQ-9).
  package static func assessmentType(_ kind: AssessmentKind) -> SampleType { kind == .gad7 ? gad7Type : phq9Type }
  /// `HKScoredAssessmentType(.GAD7)` (code 78).
  package static let gad7Type = SampleType.lookup(name: "GAD7")!
  /// `HKScoredAssessmentType(.PHQ9)` (code 79).
  package static let phq9Type = SampleType.lookup(name: "PHQ9")!
  /// `HKAudiogramSampleType` (code 73).
  package static let audiogramType = SampleType.lookup(name: "audiogram")!
  /// `HKElectrocardiogramType` (code 72, read-only).
  package static let electrocardiogramType = SampleType.lookup(name: "electrocardiogram")!
}
