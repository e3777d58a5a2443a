import FoundationEssentials
import HealthEngine
import HealthModel

/// A cross-device difference in `expect diverged`.
package struct Divergence: Hashable, Sendable {
  /// The device that has the samples.
  package var onlyOn: DeviceKind
  /// Sample names.
  package var names: [String]
}

/// One expected sample line in a block.
package struct ExpectedSample: Hashable, Sendable {
  /// The value text as the report prints it (`250 mL`, `notApplicable`).
  package var value: String
  /// Start time.
  package var at: TimeSpec
  /// The saving app, if given.
  package var app: String?
  /// The saving device, if given.
  package var device: DeviceKind?
  /// The line's location.
  package var location: SourceLocation
}

/// One expected bucket of a statistics collection.
package struct ExpectedBucket: Hashable, Sendable {
  /// The bucket start (a date, or a time for hourly buckets).
  package var start: TimeSpec
  /// The value in `unit`, or nil for an empty bucket.
  package var value: Double?
  /// The unit of the value.
  package var unit: HealthUnit?
}

/// What an app's last call ended with.
package enum CallExpectation: Hashable, Sendable {
  /// Succeeded with no error (a request: completed with success = true and no error).
  case succeeded
  /// Failed with an HKError — this code when given — whose message contains every fragment.
  case failed(HealthErrorCode?, fragments: [String])
  /// Would terminate the app on a device; the exception's message contains every fragment.
  case wouldTerminate([String])
  /// Still pending (a sheet is up).
  case pending
}

/// Which statistic (an `HKStatisticsOptions` option and the `HKStatistics` accessor that reads it).
package enum StatisticKind: String, Hashable, Sendable, CaseIterable {
  /// `cumulativeSum`: `sumQuantity()`.
  case sum
  /// `discreteAverage`: `averageQuantity()`.
  case average
  /// `discreteMin`: `minimumQuantity()`.
  case min
  /// `discreteMax`: `maximumQuantity()`.
  case max
  /// `mostRecent`: `mostRecentQuantity()`.
  case mostRecent
  /// `duration`: `duration()`, the time the matching samples cover.
  case duration

  /// The option that computes it.
  package var option: StatisticsOptions {
    switch self {
    case .sum: .cumulativeSum
    case .average: .discreteAverage
    case .min: .discreteMin
    case .max: .discreteMax
    case .mostRecent: .mostRecent
    case .duration: .duration
    }
  }

  /// HealthKit's name of the option (`cumulativeSum`, `discreteAverage`, …).
  package var optionName: String {
    switch self {
    case .sum: "cumulativeSum"
    case .average: "discreteAverage"
    case .min: "discreteMin"
    case .max: "discreteMax"
    case .mostRecent: "mostRecent"
    case .duration: "duration"
    }
  }

  /// The kind a word names: the short word (`sum`) or HealthKit's option name (`cumulativeSum`), any case.
  package init?(word: String) {
    let lower = word.lowercased()
    guard
      let kind = Self.allCases.first(where: { $0.rawValue.lowercased() == lower || $0.optionName.lowercased() == lower }
      )
    else { return nil }
    self = kind
  }

  /// Every word that names a statistic, short words first.
  package static let words: [String] =
    allCases.map(\.rawValue)
    + allCases.map(\.optionName).filter { name in
      !allCases.contains { $0.rawValue == name }
    }

  /// The value this kind reads from a result (in the type's canonical unit; seconds for a duration).
  package func value(of statistics: Statistics) -> Double? {
    switch self {
    case .sum: statistics.sum
    case .average: statistics.average
    case .min: statistics.minimum
    case .max: statistics.maximum
    case .mostRecent: statistics.mostRecent
    case .duration: statistics.duration
    }
  }
}

/// What `<App>'s background delivery of <type> is …` expects.
package enum BackgroundState: Hashable, Sendable {
  /// No registration.
  case off
  /// Registered and not stopped; with a frequency, the one the device applies.
  case on(UpdateFrequency?)
  /// Stopped after three misses in a row.
  case stopped
  /// A delivery waits for the completion handler.
  case waiting
}

/// What `getRequestStatusForAuthorization` is expected to give: a status, or an exception a device would raise
/// (the checks of `requestAuthorization`, behavior.md A11), whose message contains every fragment.
package enum RequestStatusOutcome: Hashable, Sendable {
  /// The call returns this status.
  case status(AuthorizationRequestStatus)
  /// The call would terminate the app.
  case wouldTerminate([String])
}

/// An expectation about the devices.
package enum Expectation: Hashable, Sendable {
  /// `authorizationStatus(for:)` as the app sees it.
  case shareStatus(Devices, app: String, SampleType, AuthorizationStatus)
  /// The hidden read decision (nil = undecided).
  case hiddenRead(Devices, app: String, SampleType, Decision?)
  /// `getRequestStatusForAuthorization` (nil lists: the types the app declares on the device asked).
  case requestStatus(Devices, app: String, share: [SampleType]?, read: [SampleType]?, RequestStatusOutcome)
  /// The app's last call on the device.
  case lastCall(DeviceKind, app: String, CallExpectation)
  /// The app's last request showed a sheet, listing these permissions (nil: don't check the list).
  case sheetShown(DeviceKind, app: String, listing: [Permission]?)
  /// The app's last request showed no sheet.
  case noSheet(DeviceKind, app: String)
  /// How many sheets are up on the device.
  case pendingSheets(DeviceKind, Int)
  /// The strict re-prompt model's lockout.
  case lockedOut(Devices, app: String, Bool)
  /// How many samples the app's sample query returns.
  case seesCount(Devices, SampleQuerySpec, Int)
  /// The app's visible total over a day (quantities: sum; categories: duration).
  case seesTotal(Devices, app: String, SampleType, value: Double, unit: HealthUnit, day: Date?)
  /// The exact samples the app's sample query returns, in order.
  case seesSamples(DeviceKind, SampleQuerySpec, [ExpectedSample])
  /// A sample query that returns nothing, fails with a code or would terminate the app.
  case sampleQuery(DeviceKind, SampleQuerySpec, QueryOutcome)
  /// An `HKStatisticsQuery` and what it gives: a value, per-source values, no data, an error, an exception.
  case statistic(DeviceKind, StatisticsSpec, StatisticsOutcome)
  /// The last Settings change sent to the device was refused (or applied).
  case settingsRefused(DeviceKind, Bool)
  /// The device's clock.
  case clock(DeviceKind, TimeSpec)
  /// An `HKStatisticsCollectionQuery`: its buckets, or nothing in any bucket, an error, an exception.
  case collection(DeviceKind, CollectionSpec, CollectionOutcome)
  /// How the app's sheets on the device went: shown, answered, cancelled, failed to present.
  case sheetHistory(DeviceKind, app: String, SheetCounts)
  /// Changes an anchored query returns since the app's previous check.
  case changes(DeviceKind, app: String, SampleType, added: Int, deleted: Int)
  /// The raw store holds this many samples (of a type, or of every type).
  case storeCount(Devices, SampleType?, Int)
  /// `<App> sees <n> <type> correlations [with <m> objects each] [query]`: a correlation query's result count (and
  /// how many objects each correlation holds).
  case seesCorrelations(Devices, SampleQuerySpec, Int, objectsEach: Int?)
  /// The raw store holds (or lacks) a named sample.
  case storeHas(Devices, name: String, Bool)
  /// `earliestPermittedSampleDate()`.
  case earliestPermitted(DeviceKind, TimeSpec)
  /// Both raw stores hold the same samples — identifiers, values, dates, metadata, sources — and tombstones.
  case converged
  /// The stores differ exactly by these named samples.
  case diverged([Divergence])
  /// The link is up or down.
  case linkUp(Bool)
  /// `<App>'s queries of <type> fail with <code>`: sample, statistics (when the type aggregates), collection and
  /// anchored queries all fail with the code.
  case queriesFail(DeviceKind, app: String, SampleType, HealthErrorCode)
  /// `<devices>: <n> sync conflicts`.
  case syncConflicts(Devices, Int)
  /// `<device>: last import added <n> samples [, <m> already present] [, <k> before the retention window]`.
  case lastImport(DeviceKind, added: Int, alreadyPresent: Int?, beforeRetention: Int?)
  /// `<devices>: store has <n> [<type>] samples [from "<source>"] [with <key>=<value>…]`: samples of a source (its
  /// name in an imported export, or its bundle identifier) and carrying these metadata values.
  case storeCountMatching(Devices, SampleType?, Int, source: String?, metadata: Metadata)
  /// `<App> sees <n> workouts [of <activity>…] [lasting at least <duration>] [query]`: a workout query's count.
  case seesWorkouts(Devices, WorkoutQuerySpec, Int)
  /// `<App> sees <n> heartbeat series [with <m> beats] [and <k> gaps] [query]`: a sample query of
  /// `HKSeriesType.heartbeat()` and each series' beats (behavior.md E12–E13).
  case seesHeartbeatSeries(Devices, SampleQuerySpec, Int, HeartbeatSeriesCheck)
  /// `<App> sees <n> electrocardiograms [of <classification>…] [with symptoms] [with <m> voltages each] [query]`: a
  /// sample query of `electrocardiogramType()` and each recording's voltage query (behavior.md G3–G4).
  case seesElectrocardiograms(Devices, SampleQuerySpec, Int, ECGCheck)
  /// `<App> sees <n> audiograms [with <m> points each] [query]`: a sample query of `audiogramSampleType()`
  /// (behavior.md H2–H3).
  case seesAudiograms(Devices, SampleQuerySpec, Int, points: Int?)
  /// `<App> sees <n> states of mind [of <kind>] [labelled …] [about …] [with valence above|below <v>]
  /// [classified <class>] [query]`: a sample query of `stateOfMindType()` with HealthKit's predicates (M2–M3).
  case seesStatesOfMind(Devices, SampleQuerySpec, Int, StateOfMindCheck)
  /// `<App> sees <n> GAD-7|PHQ-9 assessments [scoring <s>] [at risk <risk>] [query]`: a sample query of the
  /// `HKScoredAssessmentType` (behavior.md N1–N2).
  case seesAssessments(Devices, SampleQuerySpec, Int, AssessmentCheck)
  /// `<App> sees <n> <clinical type> records [of <FHIR type>] [query]`: a sample query of the clinical type (F2).
  case seesClinicalRecords(Devices, SampleQuerySpec, Int, resourceType: String?)
  /// `<App> sees <n> vision prescriptions [query]`: a sample query of `visionPrescriptionType()`: the app's own and
  /// those the user turned on for it (behavior.md V3–V4).
  case seesPrescriptions(Devices, SampleQuerySpec, Int)
  /// `<App> sees <n> medications [archived] [scheduled]`: an `HKUserAnnotatedMedicationQuery` (behavior.md Z2).
  case seesMedications(Devices, app: String, Int, MedicationCheck)
  /// `<App> sees <n> dose events [of <name>] [<status>] [query]`: a sample query of `medicationDoseEventType()`
  /// (behavior.md Z3).
  case seesDoses(Devices, SampleQuerySpec, Int, MedicationCheck)
  /// `<App> sees <n> CDA documents [titled "<title>"] [query]`: the documents the app may read, as its
  /// `HKDocumentQuery` returns them after its sheet (behavior.md O3).
  case seesDocuments(Devices, SampleQuerySpec, Int, title: String?)
  /// `<App> sees <n> workout routes [with <m> locations [each]] [query]`: a route query of every workout the app
  /// may read (`HKSampleQuery` of `workoutRoute()`), each route's locations as `HKWorkoutRouteQuery` returns them.
  case seesRoutes(Devices, SampleQuerySpec, Int, locations: Int?)
  /// `<App>'s workout <name> …`: one workout as the app reads it.
  case workout(DeviceKind, app: String, name: String, WorkoutCheck)
  /// `<App> sees activity summary <date>[: <ring> <value>…]` (a check) or `sees no activity summary <date>` (nil):
  /// `HKActivitySummaryQuery` for that local day of the device.
  case activitySummary(Devices, app: String, LocalDay, ActivitySummaryCheck?)
  /// `<App>'s activity summary query [for <date>] fails with <code>…`: an activity summary query that fails.
  case activitySummaryQuery(DeviceKind, app: String, LocalDay?, QueryOutcome)
  /// `<App>'s workout session <name> …`: the named session as the device holds it, or what its delegate heard
  /// (behavior.md section X).
  case session(DeviceKind, app: String, name: String, SessionCheck)
  /// `<App> recovers workout session <name>` / `<App> has no workout session to recover` (nil):
  /// `recoverActiveWorkoutSession()`.
  case recovers(DeviceKind, app: String, name: String?)
  /// `expect both:` with an expectation about one device: checked on the phone, then on the watch.
  indirect case onBoth(phone: Expectation, watch: Expectation)
  /// `<devices>: locked` / `unlocked`.
  case locked(Devices, Bool)
  /// `<device>: <n> samples wait for unlock`: the locked journal's size.
  case waitingForUnlock(DeviceKind, Int)
  /// `<App> reads <characteristic> as <value>|notSet` (nil: not set) or `<App>'s read of <characteristic> fails
  /// with <code>`.
  case characteristic(DeviceKind, app: String, SampleType, CharacteristicExpectation)
  /// `<App>'s preferred unit for <type> is <unit>`.
  case preferredUnit(DeviceKind, app: String, SampleType, String)
  /// `<App>'s preferred units for <types> fail with <code>`.
  case preferredUnitsFail(DeviceKind, app: String, [SampleType], HealthErrorCode)
  /// `<App>'s background delivery of <type> is on|off|stopped|waiting` (behavior.md section B).
  case backgroundState(Devices, app: String, SampleType, BackgroundState)
  /// `<App>'s background deliveries of <type>: <n> woken, <n> completed, <n> missed` since the daemon started.
  case backgroundCounts(Devices, app: String, SampleType, woken: Int, completed: Int, missed: Int)
}

/// What an app's read of a characteristic should give.
package enum CharacteristicExpectation: Hashable, Sendable {
  /// This value (nil: `notSet`, or a date of birth that throws because none is readable).
  case value(CharacteristicValue?)
  /// An HKError with this code.
  case fails(HealthErrorCode)
}
