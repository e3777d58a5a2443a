import FoundationEssentials
import HealthEngine
import HealthModel

/// A parsed scenario file.
package struct Scenario: Sendable {
  /// The file's path.
  package var file: String
  /// The title (`scenario:` line, else the file name).
  package var title: String
  /// The `seed` line's value, if any.
  package var seed: UInt64?
  /// The steps in order.
  package var steps: [Step]
  /// The apps the file installs, by name.
  package var apps: [String: AppDeclaration]
  /// The topic: the name of the directory the file is in.
  package var group: String
  /// For one row of an `examples:` table, the row's values by column name, in column order (empty otherwise).
  package var example: [ExampleValue] = []
}

/// One cell of an `examples:` row: the column's name and the row's value.
package struct ExampleValue: Hashable, Sendable {
  /// The column (placeholder) name, without angle brackets.
  package var name: String
  /// The value substituted for `<name>`.
  package var value: String
}

/// An app as a scenario declares it.
package struct AppDeclaration: Hashable, Sendable {
  /// The name used in steps (`Water`).
  package var name: String
  /// The bundle identifier (`com.example.water` unless `as` gives one).
  package var bundleID: String
  /// Types listed after `share` (the app's default request).
  package var share: [SampleType]
  /// Types listed after `read`.
  package var read: [SampleType]
  /// Whether the app's Info.plist has NSHealthUpdateUsageDescription.
  package var hasWriteDescription: Bool
  /// Whether the app's Info.plist has NSHealthShareUsageDescription.
  package var hasReadDescription: Bool
  /// The entitlements it is signed with (`with background delivery`, `with health records`).
  package var entitlements: Set<Entitlement> = []
  /// Whether the app's Info.plist has NSHealthClinicalHealthRecordsShareUsageDescription.
  package var hasHealthRecordsDescription = true
  /// NSHealthRequiredReadAuthorizationTypeIdentifiers, as listed after `requiring`.
  package var requiredTypes: [String] = []

  /// The app record the daemon installs.
  package var record: AppRecord {
    AppRecord(
      bundleID: bundleID, displayName: name,
      writeUsageDescription: hasWriteDescription ? "\(name) saves your health data." : nil,
      readUsageDescription: hasReadDescription ? "\(name) shows your health data." : nil, entitlements: entitlements,
      healthRecords: HealthRecordsInfo(
        usageDescription: hasHealthRecordsDescription ? "\(name) shows your health records." : nil,
        requiredTypes: requiredTypes))
  }
}

/// Which devices a step applies to.
package enum Devices: Hashable, Sendable, CustomStringConvertible {
  /// One device.
  case one(DeviceKind)
  /// Both devices.
  case both

  /// The devices, phone first.
  package var list: [DeviceKind] {
    switch self {
    case .one(let d): [d]
    case .both: [.phone, .watch]
    }
  }

  /// `phone`, `watch` or `phone and watch`.
  package var description: String {
    switch self {
    case .one(let d): d.description
    case .both: "phone and watch"
    }
  }
}

/// A point in time as written in a scenario, resolved against the virtual clock when the step runs.
package enum TimeSpec: Hashable, Sendable {
  /// `now`, optionally offset (`now-2h`).
  case now(offset: Double)
  /// A time of day on the virtual clock's current day in the device's time zone (`08:30`).
  case timeOfDay(seconds: Double)
  /// An absolute date (written with `Z`, or `distantPast`).
  case absolute(Date)
  /// A date and time written without a zone, read in the device's time zone (`2026-01-05T08:30`); the value holds
  /// the written fields as if they were UTC.
  case local(Date)
}

/// A correlation to save, as written: its type, name, metadata and members. Its dates are its members' (the
/// earliest start to the latest end).
package struct CorrelationSpec: Hashable, Sendable {
  /// The correlation type.
  package var type: SampleType
  /// `as <name>`.
  package var name: String?
  /// `with <key>=<value>…`: the correlation's own metadata.
  package var metadata: Metadata
  /// The members (`of <sample> plus <sample>…`).
  package var members: [SampleSpec]

  /// Creates a spec.
  package init(type: SampleType, name: String?, metadata: Metadata, members: [SampleSpec]) {
    self.type = type
    self.name = name
    self.metadata = metadata
    self.members = members
  }
}

/// A sample to save, as written.
package struct SampleSpec: Hashable, Sendable {
  /// The type.
  package var type: SampleType
  /// The value.
  package var value: SampleInput.Value
  /// Start time.
  package var start: TimeSpec
  /// Duration in seconds, or an explicit end.
  package var end: Either
  /// Metadata.
  package var metadata: Metadata
  /// `as <name>`.
  package var name: String?
  /// `uuid <UUID>`: the identifier to save it under (nil: one derived from the seed).
  package var uuid: UUID? = nil

  /// How the end is given.
  package enum Either: Hashable, Sendable {
    /// A duration after the start.
    case duration(Double)
    /// An explicit end time.
    case time(TimeSpec)
  }
}

/// How the user answers a sheet.
package enum UserAnswer: Hashable, Sendable {
  /// A `PromptAnswer`.
  case answer(PromptAnswer)
}

/// A link action.
package enum LinkAction: Hashable, Sendable {
  /// Drop the link until `reconnect`.
  case disconnect
  /// Allow the link again and wait for it.
  case reconnect
  /// Hold delivery from these devices.
  case hold([DeviceKind])
  /// Release delivery from these devices.
  case release([DeviceKind])
  /// Added latency.
  case latency(Double)
}

/// A date predicate as written: `from <time> to <time> [strictly starting] [strictly ending]`.
package struct RangeSpec: Hashable, Sendable {
  /// Start.
  package var start: TimeSpec
  /// End.
  package var end: TimeSpec
  /// Options.
  package var options: QueryOptions
}

/// An app's background delivery call in a scenario.
package enum BackgroundAction: Hashable, Sendable {
  /// `enableBackgroundDelivery(for:frequency:)`.
  case enable(SampleType, UpdateFrequency)
  /// `disableBackgroundDelivery(for:)`, or `disableAllBackgroundDelivery()` (nil).
  case disable(SampleType?)
  /// The observer query's completion handler for the delivery waiting for the type.
  case complete(SampleType)
}

/// An `import` step: an Apple Health export loaded into one device.
package struct ImportStep: Hashable, Sendable {
  /// The device.
  package var device: DeviceKind
  /// The file as written (relative to the scenario file's directory unless absolute).
  package var path: String
  /// `with source "<name>" as <bundle>` mappings.
  package var sources: [String: String]
  /// `fails [with "<text>"]`: the import must fail (its message containing the text, when given); nil when it
  /// must succeed.
  package var failure: String?
}

/// What a step does.
package enum StepKind: Hashable, Sendable {
  /// Installs an app on devices.
  case install(AppDeclaration, Devices)
  /// Uninstalls an app.
  case uninstall(app: String, Devices)
  /// Changes device policy.
  case policy(
    Devices, reprompt: RepromptPolicy?, retention: Double??, authorization: AuthorizationModel? = nil,
    watchSettings: WatchSettingsModel? = nil, units: UnitLocale? = nil, background: BackgroundDeliveryModel? = nil)
  /// Sets both virtual clocks (a time without a zone is read in the phone's time zone).
  case clockSet(TimeSpec)
  /// `clock: time zone <zone> [on <devices>]` / `travel <devices> to <zone>`: the devices' time zone.
  case timeZone(Devices, TimeZoneRule)
  /// `user on phone: in Health orders <type> sources <source>…`: the Health app's data-source order (empty: the
  /// default order).
  case sourceOrder(DeviceKind, SampleType, [SourceSpec])
  /// Advances both virtual clocks.
  case clockAdvance(Double)
  /// Switches sync between automatic and manual (held until `wait until synced`).
  case syncMode(manual: Bool)
  /// An app requests authorization (nil lists: the app's declared types).
  case request(DeviceKind, app: String, share: [SampleType]?, read: [SampleType]?)
  /// `requests from an extension …`: an app extension of the app requests authorization; it waits for the app
  /// (behavior.md A23).
  case requestFromExtension(DeviceKind, app: String, share: [SampleType]?, read: [SampleType]?)
  /// `handles authorization for its extensions`: `handleAuthorizationForExtension`, pending while its sheet is up.
  case handleExtensions(DeviceKind, app: String)
  /// An app saves samples.
  case save(DeviceKind, app: String, [SampleSpec])
  /// An app saves a correlation with its member samples (`as <name>` names the correlation; behavior.md T10).
  case saveCorrelation(DeviceKind, app: String, CorrelationSpec)
  /// `saves workout <activity> …`: an app saves a workout with its associated samples and, when written, its route
  /// (behavior.md section E).
  case saveWorkout(DeviceKind, app: String, WorkoutSpec)
  /// `saves route … for workout <name>`: a route builder's `finishRoute(with:)` for a named workout (saved, deleted
  /// or never stored).
  case saveRoute(DeviceKind, app: String, RouteSpec, workout: String)
  /// `adds <sample> [plus <sample>…] to workout <name>` / `adds <name>… to workout <name>`: the legacy
  /// `add(_:to:)`, which saves unsaved samples and associates them without changing the workout's totals or
  /// duration.
  case addToWorkout(DeviceKind, app: String, samples: [SampleSpec], named: [String], workout: String)
  /// `saves heartbeat series at <time> with beats every <duration> for <duration> [gap at …]…`: an
  /// `HKHeartbeatSeriesBuilder`'s beats and `finishSeries()` (behavior.md E12).
  case saveHeartbeatSeries(DeviceKind, app: String, HeartbeatSeriesSpec)
  /// `saves audiogram at <time> with <frequency> Hz <left>/<right> dBHL…`: one `HKAudiogramSample` (behavior.md H1).
  case saveAudiogram(DeviceKind, app: String, AudiogramSpec)
  /// `logs state of mind <kind> valence <v> …`: `save(_:)` of one `HKStateOfMind` (behavior.md M1).
  case logStateOfMind(DeviceKind, app: String, StateOfMindSpec)
  /// `logs GAD-7|PHQ-9 answers <a>… [at <time>] [as <name>]`: `save(_:)` of one `HKGAD7Assessment` or
  /// `HKPHQ9Assessment` (behavior.md N1).
  case logAssessment(DeviceKind, app: String, AssessmentSpec)
  /// `<device>: the provider sends <clinical type> "<name>" as <FHIR type> …`: a health record arrives (F1).
  case providerSends(DeviceKind, ClinicalRecordSpec)
  /// `saves glasses|contacts prescription …`: `save(_:)` of one `HKGlassesPrescription` or
  /// `HKContactsPrescription` (behavior.md V1).
  case savePrescription(DeviceKind, app: String, PrescriptionSpec)
  /// `asks to read vision prescriptions [issued from <time>]`: `requestPerObjectReadAuthorization` (V3).
  case requestObjects(DeviceKind, app: String, issuedFrom: TimeSpec?)
  /// `asks to read medications`: `requestPerObjectReadAuthorization(for: userAnnotatedMedicationType(), …)`, its
  /// sheet listing every medication (behavior.md Z2).
  case requestMedications(DeviceKind, app: String)
  /// `user on <device>: adds medication "<text>" …`: the user adds a medication in the Health app (Z1).
  case addMedication(DeviceKind, MedicationSpec)
  /// `user on <device>: logs a dose of <name> …`: the user logs a dose of a medication (Z3).
  case logDose(DeviceKind, DoseSpec)
  /// `saves CDA document "<title>" …`: `save(_:)` of one `HKCDADocumentSample` (behavior.md O1).
  case saveDocument(DeviceKind, app: String, DocumentSpec)
  /// `asks to read CDA documents [titled "<title>"]`: an `HKDocumentQuery`'s sheet, pending while it is up (O2).
  case requestDocuments(DeviceKind, app: String, title: String?)
  /// `user on <device>: turns on <name>…`: a per-object sheet's answer, the named objects on, the rest off (V3).
  case answerObjects(DeviceKind, names: [String], app: String?)
  /// `deletes workout <name>`: `delete(_:)` of the workout (its route goes with it).
  case deleteWorkout(DeviceKind, app: String, workout: String)
  /// An app saves seeded random samples.
  case saveRandom(DeviceKind, app: String, count: Int, type: SampleType, over: Double)
  /// An app saves a named sample again (same UUID).
  case resave(DeviceKind, app: String, name: String, changedTo: SampleInput.Value? = nil)
  /// An app deletes named samples.
  case delete(DeviceKind, app: String, names: [String])
  /// `deletes all <type> [from <time> to <time>]`: `deleteObjects(of:predicate:)` (the app's own objects only).
  case deleteAll(DeviceKind, app: String, SampleType, range: RangeSpec?)
  /// The user answers the sheet (optionally of one app).
  case answer(DeviceKind, PromptAnswer, app: String?)
  /// A Settings change (on the phone; sent to the watch it is refused).
  case settings(DeviceKind, app: String, SettingsChange)
  /// A Watch-app change on the phone for the watch.
  case watchSettings(app: String, SettingsChange)
  /// A link action.
  case link(LinkAction)
  /// Waits until both devices applied everything the other logged.
  case waitSynced(timeout: Double)
  /// SIGKILL a daemon.
  case kill(DeviceKind)
  /// SIGTERM a daemon.
  case stop(DeviceKind)
  /// Starts a stopped or killed daemon again.
  case restart(DeviceKind)
  /// Appends a torn record to a stopped daemon's journal (a write interrupted by a crash).
  case tearJournal(DeviceKind)
  /// `cut <device> journal by <n> records`: drops a stopped daemon's last records at a record boundary.
  case cutJournal(DeviceKind, records: Int)
  /// `import <file> on <device> …`: loads an Apple Health export (docs/import-export.md).
  case importExport(ImportStep)
  /// `export <device> to <name>`: writes the device's store as an Apple Health export named `name` in the pair's
  /// temporary directory; a later `import <name>` reads that file.
  case exportStore(DeviceKind, name: String)
  /// `lock <devices>` / `unlock <devices>` (the watch: taken off, put back on the wrist).
  case lock(Devices, locked: Bool)
  /// `user on <device>: sets <characteristic> …` / `prefers <unit> for <type>`: a change in the Health app.
  case userSetting(DeviceKind, UserSetting)
  /// An expectation.
  case expect(Expectation)
  /// `user on both:`: the step on the phone, then on the watch.
  indirect case onBoth(phone: StepKind, watch: StepKind)
  /// An app's background delivery call (behavior.md section B).
  case background(DeviceKind, app: String, BackgroundAction)
  /// An app's workout session call, or its process changing state (behavior.md section X).
  case session(DeviceKind, app: String, SessionStep)
  /// The world acting on the device's wearer: effort, the watch on or off the wrist (behavior.md section X).
  case wearer(DeviceKind, WearerChange)
}

/// A data source as a source order names it: an app, on one device or (nil) on both.
package struct SourceSpec: Hashable, Sendable {
  /// The app's name in the scenario.
  package var app: String
  /// The device, or nil for the app on both (the watch's first, as in the default order).
  package var device: DeviceKind?
}

/// A step with where it came from.
package struct Step: Hashable, Sendable {
  /// The step.
  package var kind: StepKind
  /// Its first line.
  package var location: SourceLocation
  /// The source text (first line, trimmed).
  package var text: String
}

extension Step {
  /// Whether the step is an `expect`.
  package var isExpectation: Bool {
    if case .expect = kind { return true }
    return false
  }
}
