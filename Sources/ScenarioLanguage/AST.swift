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

  /// The app record the daemon installs.
  package var record: AppRecord {
    AppRecord(
      bundleID: bundleID, displayName: name,
      writeUsageDescription: hasWriteDescription ? "\(name) saves your health data." : nil,
      readUsageDescription: hasReadDescription ? "\(name) shows your health data." : nil, entitlements: entitlements)
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

/// An app's background delivery call in a scenario.
package enum BackgroundAction: Hashable, Sendable {
  /// `enableBackgroundDelivery(for:frequency:)`.
  case enable(SampleType, UpdateFrequency)
  /// `disableBackgroundDelivery(for:)`, or `disableAllBackgroundDelivery()` (nil).
  case disable(SampleType?)
  /// The observer query's completion handler for the delivery waiting for the type.
  case complete(SampleType)
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
  /// An app saves samples.
  case save(DeviceKind, app: String, [SampleSpec])
  /// An app saves a correlation with its member samples (`as <name>` names the correlation; behavior.md T10).
  case saveCorrelation(DeviceKind, app: String, CorrelationSpec)
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
