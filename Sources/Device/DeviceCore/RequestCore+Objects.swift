import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// The special object families' requests (opcodes 120–147 and 150): electrocardiograms, audiograms, States of Mind,
// clinical records, vision prescriptions, scored assessments, CDA documents and medications, each a call of the
// engine's and its reply.

extension RequestCore {
  /// Answers one of the object families' requests against `state`: the reply and the events to journal.
  /// - Throws: the engine's error; a simulator error for a request of another family.
  static func objectRequest(_ request: Request, state: inout DeviceState, wall: Date) throws(HealthError)
    -> (Reply, [DeviceEvent])
  {
    switch request {
    case .recordElectrocardiogram(let recording):
      return (.ok, try state.recordElectrocardiogram(recording, wall: wall))
    case .electrocardiogramQuery(let bundleID, let query):
      return (.electrocardiogramHeaders(try state.electrocardiogramQuery(bundleID, query, wall: wall)), [])
    case .electrocardiogramVoltages(let bundleID, let uuid):
      return (.voltages(try state.electrocardiogramVoltages(bundleID, uuid, wall: wall)), [])
    case .importElectrocardiograms(let id, let ecgs):
      return (.ok, try state.stageImportElectrocardiograms(id, ecgs))
    case .storedElectrocardiograms(let offset):
      let all = state.specialObjects.electrocardiograms.ordered
      let start = min(max(0, offset), all.count)
      let page = all[start..<min(all.count, start + Request.storedElectrocardiogramPage)]
      return (.electrocardiograms(page.map(\.value)), [])
    case .saveFamilies(let bundleID, let s, let c, let w, let a, let m, let p, let q, let d):
      let events = try state.saveFamilies(
        bundleID, samples: s, correlations: c, workouts: w, audiograms: a, statesOfMind: m, prescriptions: p,
        assessments: q, documents: d, wall: wall)
      return (.ok, events)
    case .saveAudiograms(let bundleID, let audiograms):
      return (.ok, try state.saveAudiograms(bundleID, audiograms, wall: wall))
    case .audiogramQuery(let bundleID, let query):
      return (.audiograms(try state.audiogramQuery(bundleID, query, wall: wall)), [])
    case .importAudiograms(let id, let audiograms):
      return (.ok, try state.stageImportAudiograms(id, audiograms))
    case .storedAudiograms:
      return (.audiograms(state.specialObjects.audiograms.ordered.map(\.value)), [])
    case .saveCDADocuments(let bundleID, let documents):
      return (.ok, try state.saveCDADocuments(bundleID, documents, wall: wall))
    case .cdaDocumentQuery(let bundleID, let query):
      return (.cdaDocuments(try state.cdaDocumentQuery(bundleID, query, wall: wall)), [])
    case .addMedications(let medications):
      return (.ok, try state.addMedications(medications, wall: wall))
    case .logMedicationDoses(let doses):
      return (.ok, try state.logMedicationDoses(doses, wall: wall))
    case .medicationQuery(let bundleID, let query):
      return (.medications(try state.medicationQuery(bundleID, query, wall: wall)), [])
    case .medicationDoseQuery(let bundleID, let query):
      return (.medicationDoses(try state.medicationDoseQuery(bundleID, query, wall: wall)), [])
    case .saveScoredAssessments(let bundleID, let assessments):
      return (.ok, try state.saveScoredAssessments(bundleID, assessments, wall: wall))
    case .scoredAssessmentQuery(let bundleID, let query):
      return (.scoredAssessments(try state.scoredAssessmentQuery(bundleID, query, wall: wall)), [])
    case .saveStatesOfMind(let bundleID, let states):
      return (.ok, try state.saveStatesOfMind(bundleID, states, wall: wall))
    case .stateOfMindQuery(let bundleID, let query):
      return (.statesOfMind(try state.stateOfMindQuery(bundleID, query, wall: wall)), [])
    case .receiveClinicalRecords(let records):
      return (.ok, try state.receiveClinicalRecords(records))
    case .clinicalRecordQuery(let bundleID, let query):
      return (.clinicalRecords(try state.clinicalRecordQuery(bundleID, query, wall: wall)), [])
    case .saveVisionPrescriptions(let bundleID, let prescriptions):
      return (.ok, try state.saveVisionPrescriptions(bundleID, prescriptions, wall: wall))
    case .visionPrescriptionQuery(let bundleID, let query):
      return (.visionPrescriptions(try state.visionPrescriptionQuery(bundleID, query, wall: wall)), [])
    case .importVisionPrescriptions(let id, let prescriptions):
      return (.ok, try state.stageImportVisionPrescriptions(id, prescriptions))
    case .storedVisionPrescriptions:
      return (.visionPrescriptions(state.storedVisionPrescriptions()), [])
    case .importClinicalRecords(let id, let records):
      return (.ok, try state.stageImportClinicalRecords(id, records))
    case .storedClinicalRecords:
      return (.clinicalRecords(state.storedClinicalRecords()), [])
    case .hello, .installApp, .uninstallApp, .requestAuthorization, .answerPrompt, .authorizationStatus,
      .requestStatus, .save, .delete, .deleteMatching, .sampleQuery, .statistics, .statisticsCollection,
      .anchoredQuery, .changeSettings, .watchSettings, .setClock, .advanceClock, .setPolicy, .dump, .storedSamples,
      .subscribe, .earliestPermittedSampleDate, .link, .ping, .importBatch, .importCommit, .importAbort, .setLocked,
      .readCharacteristic, .preferredUnits, .changeUserSetting, .enableBackgroundDelivery,
      .disableBackgroundDelivery, .completeBackgroundDelivery, .backgroundDeliveries, .setSourceOrder,
      .saveCorrelations, .correlationQuery, .importCorrelations, .storedCorrelations, .saveWorkout, .saveObjects,
      .addSamplesToWorkout, .saveRoute, .saveHeartbeatSeries, .workoutQuery, .routeQuery, .heartbeatSeriesQuery,
      .workoutSession, .activitySummaryQuery, .anchoredWorkoutQuery, .importWorkouts, .importRoutes,
      .importActivitySummaries, .storedWorkouts, .storedRoutes, .storedActivitySummaries, .requestPerObjectRead,
      .requestAuthorizationFromExtension, .handleAuthorizationForExtension:
      throw .simulator("\(request.name) is not an object family's request")
    }
  }
}
