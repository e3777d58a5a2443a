import FoundationEssentials
import HealthEngine
import HealthModel

// What a daemon answers: every reply and its tag. Each reply's layout and log fields are its row in
// `ReplyTable`.

/// A successful answer; the tag tells which.
package enum Reply: Hashable, Sendable {
  /// Done, nothing to return.
  case ok
  /// Answer to `hello`.
  case hello(HelloInfo)
  /// The completion of `requestAuthorization`.
  case authorization(AuthorizationCallResult)
  /// A sheet is presented (interim answer to `requestAuthorization`, and the `promptShown` event).
  case prompt(Prompt)
  /// `authorizationStatus`.
  case status(AuthorizationStatus)
  /// `requestStatus`.
  case requestStatus(AuthorizationRequestStatus)
  /// Sample query results.
  case samples([Sample])
  /// One statistics result.
  case statistics(Statistics)
  /// A statistics collection, and the time zone its intervals were computed in.
  case collection([Statistics], timeZone: String)
  /// Anchored query results.
  case anchored(AnchoredResult)
  /// `dump`.
  case snapshot(DaemonSnapshot)
  /// A `storedSamples` page: samples in insertion order, tombstones in deletion order, and where the next page
  /// starts (nil: this was the last).
  case stored(samples: [Sample], tombstones: [Tombstone], next: StoredCursor?)
  /// A date.
  case date(Date)
  /// Link status (answer to `link`).
  case link(LinkStatus)
  /// How many objects were affected (answer to `deleteMatching`).
  case count(Int)
  /// What an import's commit added and left out (answer to `importCommit`).
  case imported(ImportOutcome)
  /// A characteristic's value as the app reads it (nil: not set, or read denied).
  case characteristic(SampleType, CharacteristicValue?)
  /// `preferredUnits(for:)`: a unit string per type.
  case units([SampleType: String])
  /// Background delivery registrations and the events since the daemon started (answer to
  /// `backgroundDeliveries`).
  case backgroundDeliveries([BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent])
  /// Correlations with the members the app may see (answer to `correlationQuery`).
  case correlations([CorrelationResult])
  /// Workouts (answer to `workoutQuery`, `storedWorkouts`).
  case workouts([Workout])
  /// Routes with every location (answer to `routeQuery`, `storedRoutes`).
  case routes([WorkoutRoute])
  /// Heartbeat series (answer to `heartbeatSeriesQuery`).
  case heartbeatSeries([HeartbeatSeries])
  /// Activity summaries, day-ascending (answer to `activitySummaryQuery`, `storedActivitySummaries`).
  case activitySummaries([ActivitySummary])
  /// Anchored query results of workouts, routes or heartbeat series (answer to `anchoredWorkoutQuery`).
  case anchoredWorkouts(AnchoredWorkoutResult)
  /// A workout session as it is after a call (answer to `workoutSession`).
  case sessionStatus(SessionStatus)
  /// Electrocardiograms with their voltages (answer to `storedElectrocardiograms`).
  case electrocardiograms([Electrocardiogram])
  /// Electrocardiograms without their voltages (answer to `electrocardiogramQuery`).
  case electrocardiogramHeaders([Electrocardiogram])
  /// One recording's voltages in microvolts (answer to `electrocardiogramVoltages`).
  case voltages([Float])
  /// Audiograms (answer to `audiogramQuery`, `storedAudiograms`).
  case audiograms([Audiogram])
  /// States of Mind (answer to `stateOfMindQuery`).
  case statesOfMind([StateOfMind])
  /// Clinical records (answer to `clinicalRecordQuery`).
  case clinicalRecords([ClinicalRecord])
  /// Vision prescriptions (answer to `visionPrescriptionQuery`).
  case visionPrescriptions([VisionPrescription])
  /// Scored assessments (answer to `scoredAssessmentQuery`).
  case scoredAssessments([ScoredAssessment])
  /// CDA documents (answer to `cdaDocumentQuery`).
  case cdaDocuments([CDADocument])
  /// Medications (answer to `medicationQuery`).
  case medications([Medication])
  /// Medication dose events (answer to `medicationDoseQuery`).
  case medicationDoses([MedicationDoseEvent])
}

/// Every reply's tag: its first byte after the status (docs/protocol.md); exhaustive like ``RequestOpcode``.
package enum ReplyTag: UInt8, CaseIterable, Sendable {
  /// ``Reply/ok``.
  case ok = 0
  /// ``Reply/hello``.
  case hello = 1
  /// ``Reply/authorization``.
  case authorization = 2
  /// ``Reply/prompt``.
  case prompt = 3
  /// ``Reply/status``.
  case status = 4
  /// ``Reply/requestStatus``.
  case requestStatus = 5
  /// ``Reply/samples``.
  case samples = 6
  /// ``Reply/statistics``.
  case statistics = 7
  /// ``Reply/collection``.
  case collection = 8
  /// ``Reply/anchored``.
  case anchored = 9
  /// ``Reply/snapshot``.
  case snapshot = 10
  /// ``Reply/stored``.
  case stored = 11
  /// ``Reply/date``.
  case date = 12
  /// ``Reply/link``.
  case link = 13
  /// ``Reply/count``.
  case count = 14
  /// ``Reply/imported``.
  case imported = 30
  /// ``Reply/characteristic``.
  case characteristic = 40
  /// ``Reply/units``.
  case units = 41
  /// ``Reply/backgroundDeliveries``.
  case backgroundDeliveries = 50
  /// ``Reply/correlations``.
  case correlations = 70
  /// ``Reply/workouts``.
  case workouts = 80
  /// ``Reply/routes``.
  case routes = 81
  /// ``Reply/heartbeatSeries``.
  case heartbeatSeries = 82
  /// ``Reply/activitySummaries``.
  case activitySummaries = 83
  /// ``Reply/anchoredWorkouts``.
  case anchoredWorkouts = 84
  /// ``Reply/sessionStatus``.
  case sessionStatus = 90
  /// ``Reply/electrocardiograms``.
  case electrocardiograms = 100
  /// ``Reply/voltages``.
  case voltages = 101
  /// ``Reply/audiograms``.
  case audiograms = 102
  /// ``Reply/statesOfMind``.
  case statesOfMind = 103
  /// ``Reply/clinicalRecords``.
  case clinicalRecords = 104
  /// ``Reply/electrocardiogramHeaders``.
  case electrocardiogramHeaders = 105
  /// ``Reply/visionPrescriptions``.
  case visionPrescriptions = 106
  /// ``Reply/scoredAssessments``.
  case scoredAssessments = 107
  /// ``Reply/cdaDocuments``.
  case cdaDocuments = 108
  /// ``Reply/medications``.
  case medications = 109
  /// ``Reply/medicationDoses``.
  case medicationDoses = 110
}

extension Reply {
  /// The reply's tag.
  package var tag: ReplyTag {
    switch self {
    case .ok: .ok
    case .hello: .hello
    case .authorization: .authorization
    case .prompt: .prompt
    case .status: .status
    case .requestStatus: .requestStatus
    case .samples: .samples
    case .statistics: .statistics
    case .collection: .collection
    case .anchored: .anchored
    case .snapshot: .snapshot
    case .stored: .stored
    case .date: .date
    case .link: .link
    case .count: .count
    case .imported: .imported
    case .characteristic: .characteristic
    case .units: .units
    case .backgroundDeliveries: .backgroundDeliveries
    case .correlations: .correlations
    case .workouts: .workouts
    case .routes: .routes
    case .heartbeatSeries: .heartbeatSeries
    case .activitySummaries: .activitySummaries
    case .anchoredWorkouts: .anchoredWorkouts
    case .sessionStatus: .sessionStatus
    case .electrocardiograms: .electrocardiograms
    case .voltages: .voltages
    case .audiograms: .audiograms
    case .statesOfMind: .statesOfMind
    case .clinicalRecords: .clinicalRecords
    case .electrocardiogramHeaders: .electrocardiogramHeaders
    case .visionPrescriptions: .visionPrescriptions
    case .scoredAssessments: .scoredAssessments
    case .cdaDocuments: .cdaDocuments
    case .medications: .medications
    case .medicationDoses: .medicationDoses
    }
  }
}
