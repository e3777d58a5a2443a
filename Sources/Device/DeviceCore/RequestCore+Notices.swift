import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// What subscribers hear of journaled events (`samplesChanged`, `syncApplied`, `peerAcknowledged`): one exhaustive
// switch over the device's events.

extension RequestCore {
  /// The notices subscribers get for journaled events: samples added or deleted (here or arriving from the peer),
  /// sync progress.
  package static func notices(for events: [DeviceEvent], device: DeviceKind) -> [DaemonEvent] {
    var notices: [DaemonEvent] = []
    for event in events {
      switch event {
      case .samplesSaved(let samples):
        notices.append(
          .samplesChanged(types: distinct(samples.map(\.type)), origin: device, added: samples.count, deleted: 0))
      case .samplesDeleted(let tombstones), .correlationsDeleted(let tombstones):
        notices.append(
          .samplesChanged(types: distinct(tombstones.map(\.type)), origin: device, added: 0, deleted: tombstones.count))
      case .correlationsSaved(let correlations):
        notices.append(
          .samplesChanged(
            types: distinct(correlations.map(\.type)), origin: device, added: correlations.count, deleted: 0))
      case .workoutsSaved(let workouts):
        notices.append(.samplesChanged(types: [.workoutType], origin: device, added: workouts.count, deleted: 0))
      case .routesSaved(let routes):
        notices.append(.samplesChanged(types: [.workoutRouteType], origin: device, added: routes.count, deleted: 0))
      case .heartbeatSeriesSaved(let series):
        notices.append(
          .samplesChanged(types: [.heartbeatSeriesType], origin: device, added: series.count, deleted: 0))
      case .electrocardiogramsStored(let ecgs):
        notices.append(.samplesChanged(types: [.ecgType], origin: device, added: ecgs.count, deleted: 0))
      case .audiogramsSaved(let audiograms):
        notices.append(.samplesChanged(types: [.audiogramType], origin: device, added: audiograms.count, deleted: 0))
      case .statesOfMindSaved(let states):
        notices.append(.samplesChanged(types: [.stateOfMindType], origin: device, added: states.count, deleted: 0))
      case .cdaDocumentsSaved(let documents):
        notices.append(.samplesChanged(types: [.cdaType], origin: device, added: documents.count, deleted: 0))
      case .scoredAssessmentsSaved(let assessments):
        notices.append(
          .samplesChanged(
            types: distinct(assessments.map(\.objectType)), origin: device, added: assessments.count, deleted: 0))
      case .clinicalRecordsReceived(let records):
        notices.append(
          .samplesChanged(types: distinct(records.map(\.type)), origin: device, added: records.count, deleted: 0))
      case .visionPrescriptionsSaved(let prescriptions):
        notices.append(
          .samplesChanged(types: [.prescriptionType], origin: device, added: prescriptions.count, deleted: 0))
      case .medicationsAdded(let medications):
        notices.append(
          .samplesChanged(types: [.medicationType], origin: device, added: medications.count, deleted: 0))
      case .medicationDosesLogged(let doses):
        notices.append(.samplesChanged(types: [.doseEventType], origin: device, added: doses.count, deleted: 0))
      case .objectReadChosen(_, let choices):
        // What an app may read changed: its observer queries of the per-object types fire (no object was added or
        // deleted; the choices do not say which type their objects have).
        if !choices.isEmpty {
          notices.append(
            .samplesChanged(
              types: [.prescriptionType, .cdaType, .medicationType, .doseEventType], origin: device, added: 0,
              deleted: 0))
        }
      case .workoutObjectsDeleted(let tombstones):
        notices.append(
          .samplesChanged(types: distinct(tombstones.map(\.type)), origin: device, added: 0, deleted: tombstones.count))
      case .peerEntriesApplied(let entries, _):
        var added: [SampleType] = []
        var deleted: [SampleType] = []
        var items = 0
        for entry in entries {
          items += entry.payload.itemCount
          switch entry.payload {
          case .samples(let s): added += s.map(\.type)
          case .deletions(let t): deleted += t.map(\.type)
          case .correlations(let c): added += c.map(\.type)
          case .correlationDeletions(let t): deleted += t.map(\.type)
          case .workouts(let w): added += w.map { _ in .workoutType }
          case .routes(let r): added += r.map { _ in .workoutRouteType }
          case .heartbeatSeries(let s): added += s.map { _ in .heartbeatSeriesType }
          case .workoutDeletions(let t): deleted += t.map(\.type)
          case .electrocardiograms(let e): added += e.map { _ in .ecgType }
          case .audiograms(let a): added += a.map { _ in .audiogramType }
          case .statesOfMind(let s): added += s.map { _ in .stateOfMindType }
          case .scoredAssessments(let a): added += a.map(\.objectType)
          case .medications(let m): added += m.map { _ in .medicationType }
          case .medicationDoses(let d): added += d.map { _ in .doseEventType }
          case .workoutAssociations: break
          case .watchSettings, .authorization, .userSetting, .sourceOrder: break
          }
        }
        if !added.isEmpty || !deleted.isEmpty {
          notices.append(
            .samplesChanged(
              types: distinct(added + deleted), origin: device.peer, added: added.count, deleted: deleted.count))
        }
        notices.append(.syncApplied(upTo: entries.last?.seq ?? 0, items: items))
      case .peerAcknowledged(let seq):
        notices.append(.peerAcknowledged(seq))
      case .appInstalled, .appUninstalled, .promptAnswered, .promptCancelled, .settingsChanged, .watchSettingsQueued,
        .clockSet, .policyChanged, .syncLogRestarted, .peerLogAdopted, .authorizationShared, .importStaged,
        .importCommitted, .importAbandoned, .deviceLocked, .deviceUnlocked, .samplesSavedWhileLocked,
        .workoutsSavedWhileLocked,
        .userSettingChanged, .backgroundDeliveryChanged, .sourceOrderChanged, .changeNumbersAdvanced,
        .peerResendRequested, .peerResendAnswered, .importCorrelationsStaged, .workoutSamplesAssociated,
        .importWorkoutsStaged, .importElectrocardiogramsStaged, .importAudiogramsStaged,
        .importVisionPrescriptionsStaged, .importClinicalRecordsStaged:
        // Changes subscribers learn of otherwise (sheets, lock, imports: by the request that made them) or not at all.
        break
      }
    }
    return notices
  }

  private static func distinct(_ types: [SampleType]) -> [SampleType] {
    // Most changes are of one type: no set is built for them.
    if let first = types.first, types.allSatisfy({ $0 == first }) { return [first] }
    return Array(Set(types)).sorted()
  }
}

extension SampleType {
  /// `HKWorkoutType` (code 70).
  fileprivate static let workoutType = SampleType.lookup(name: "workout")!
  /// `HKSeriesType.workoutRoute()` (code 75).
  fileprivate static let workoutRouteType = SampleType.lookup(name: "workoutRoute")!
  /// `HKSeriesType.heartbeat()` (code 76).
  fileprivate static let heartbeatSeriesType = SampleType.lookup(name: "heartbeatSeries")!
  /// `HKElectrocardiogramType` (code 72).
  fileprivate static let ecgType = SampleType.lookup(name: "electrocardiogram")!
  /// `HKAudiogramSampleType` (code 73).
  fileprivate static let audiogramType = SampleType.lookup(name: "audiogram")!
  /// `HKDocumentType(.CDA)` (code 90).
  fileprivate static let cdaType = SampleType.lookup(name: "CDA")!
  /// `HKStateOfMindType` (code 77).
  fileprivate static let stateOfMindType = SampleType.lookup(name: "stateOfMind")!
  /// `HKPrescriptionType` (code 74).
  fileprivate static let prescriptionType = SampleType.lookup(name: "visionPrescription")!
  /// `HKUserAnnotatedMedicationType` (code 91).
  fileprivate static let medicationType = SampleType.lookup(name: "userAnnotatedMedication")!
  /// `HKMedicationDoseEventType` (code 92).
  fileprivate static let doseEventType = SampleType.lookup(name: "medicationDoseEvent")!
}
