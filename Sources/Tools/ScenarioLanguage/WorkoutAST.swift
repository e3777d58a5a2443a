import FoundationEssentials
import HealthEngine
import HealthModel

/// A workout to save, as a `saves workout …` step writes it (docs/scenario-language.md, "The app"). The runner turns
/// it into a `WorkoutInput`, its associated samples and its route, all derived from these values alone (no random
/// numbers), so the same step always saves the same workout.
package struct WorkoutSpec: Hashable, Sendable {
  /// The activity type (`running`).
  package var activity: WorkoutActivityType
  /// Start of the workout.
  package var start: TimeSpec
  /// Its end: a duration after the start or a time.
  package var end: SampleSpec.Either
  /// `paused <time> to <time>`: a `pause` event and a `resume` event each, in the order written.
  package var pauses: [WorkoutPauseSpec] = []
  /// `energy <n> <unit>`, `distance <n> <unit> [<type>]`: cumulative totals, each saved as associated samples (one per
  /// stretch between pauses, shares of the total by time) and as the workout's statistic of that type.
  package var totals: [WorkoutTotalSpec] = []
  /// `heart rate every <duration> at <n> bpm`, `series <type> every <duration> at <value> <unit>`: instantaneous
  /// associated samples at a fixed interval from the start, none while paused.
  package var series: [WorkoutSeriesSpec] = []
  /// `activity <activity> from <time> to <time>|for <duration>`: the workout's `HKWorkoutActivity`s in the order
  /// written (none: HealthKit adds one spanning the workout).
  package var activities: [WorkoutLegSpec] = []
  /// `route …`: a synthetic route saved after the workout (a route builder's `finishRoute(with:)`).
  package var route: RouteSpec?
  /// `indoor` / `outdoor` (`HKMetadataKeyIndoorWorkout` and the configuration's location), or unknown.
  package var location: WorkoutLocationType = .unknown
  /// `with <key>=<value>…`: the workout's metadata.
  package var metadata: Metadata = [:]
  /// `uuid <UUID>`: the identifier to save it under (nil: one drawn from the seed).
  package var uuid: UUID?
  /// `as <name>`: the workout's name in later steps and expectations.
  package var name: String?

  /// A workout of `activity` from `start` to `end` with nothing else.
  package init(activity: WorkoutActivityType, start: TimeSpec, end: SampleSpec.Either) {
    self.activity = activity
    self.start = start
    self.end = end
  }
}

/// One paused period of a workout: a `pause` event at `start`, a `resume` event at `end`.
package struct WorkoutPauseSpec: Hashable, Sendable {
  /// When the workout pauses.
  package var start: TimeSpec
  /// When it resumes: a duration after the pause or a time.
  package var end: SampleSpec.Either
}

/// One activity of a multisport workout (`activity swimming from 07:00 to 07:20`): its configuration's activity type
/// and its dates.
package struct WorkoutLegSpec: Hashable, Sendable {
  /// The activity's configuration's activity type.
  package var activity: WorkoutActivityType
  /// Its start.
  package var start: TimeSpec
  /// Its end: a duration after the start or a time.
  package var end: SampleSpec.Either
}

/// What `<App>'s workout <name> activity <k> …` checks of the workout's k-th activity (1-based).
package enum WorkoutLegCheck: Hashable, Sendable {
  /// `is <activity>`: its configuration's activity type.
  case activity(WorkoutActivityType)
  /// `lasts <duration>`: end minus start, seconds.
  case duration(Double)
  /// `<statistic> of <type> is <value> <unit>`: the activity's `statistics(for:)`.
  case statistic(StatisticKind, SampleType, value: Double, unit: HealthUnit)
}

/// A cumulative total of a workout (`energy 350 kcal`, `distance 5 km`).
package struct WorkoutTotalSpec: Hashable, Sendable {
  /// The cumulative quantity type (`activeEnergyBurned`, `distanceWalkingRunning`, …).
  package var type: SampleType
  /// The total in `unit`.
  package var value: Double
  /// The unit as written (`kcal`).
  package var unit: String
}

/// Samples at a fixed interval over a workout's active time (`heart rate every 5s at 140 bpm`).
package struct WorkoutSeriesSpec: Hashable, Sendable {
  /// The quantity type (`heartRate`).
  package var type: SampleType
  /// Seconds between two samples (the first at the workout's start).
  package var interval: Double
  /// Each sample's value in `unit`.
  package var value: Double
  /// The unit as written (`count/min`; `bpm` is written as `count/min`).
  package var unit: String
}

/// A synthetic route: fixes at a fixed interval over the workout's active time, from a starting point heading north
/// at a constant speed (the workout's distance over its active time, else 3 m/s).
package struct RouteSpec: Hashable, Sendable {
  /// Seconds between two fixes (`1 Hz` is 1, `every 5s` is 5).
  package var interval: Double
  /// Latitude of the first fix, degrees.
  package var latitude: Double
  /// Longitude of the first fix, degrees.
  package var longitude: Double
  /// `at <n> m/s`: the speed (nil: the workout's distance over its active time, else 3 m/s).
  package var speed: Double?
}

/// A workout query as an expectation writes it: `<App> sees <n> workouts [of <activity>…] [lasting at least
/// <duration>] [query]`.
package struct WorkoutQuerySpec: Hashable, Sendable {
  /// The query of the workout type: the app, the date range, `from <App>…`, sort, limit, metadata.
  package var query: SampleQuerySpec
  /// `of <activity>…`: `predicateForWorkouts(with:)` for each, any of them matching (empty: every activity type).
  package var activities: [WorkoutActivityType] = []
  /// `with activity <activity> [or <activity>…]`: `predicateForWorkouts(activityPredicate:)` of
  /// `predicateForWorkoutActivities(workoutActivityType:)`, any of them matching.
  package var withActivities: [WorkoutActivityType] = []
  /// `lasting at least <duration>`: `predicateForWorkouts(with: .greaterThanOrEqualTo, duration:)`.
  package var minimumDuration: Double?

  /// A query of every workout `app` may read.
  package init(app: String) {
    query = SampleQuerySpec(app: app, type: SampleType.lookup(name: "workout")!)
  }
}

/// What `<App>'s workout <name> …` checks of one workout as the app reads it (found by its identifier).
package enum WorkoutCheck: Hashable, Sendable {
  /// `lasts <duration>`: its `duration` (start to end minus pauses), seconds.
  case duration(Double)
  /// `is <activity>`: its activity type.
  case activity(WorkoutActivityType)
  /// `<statistic> of <type> is <value> <unit>`: `statistics(for:)`'s sum, average, min, max or most recent.
  case statistic(StatisticKind, SampleType, value: Double, unit: HealthUnit)
  /// `has no <type> statistics`: `statistics(for:)` is nil.
  case noStatistic(SampleType)
  /// `has <n> [<type>] samples`: the samples `predicateForObjects(from: workout)` matches that the app may read
  /// (of one type, or of every type the app reads).
  case samples(SampleType?, Int)
  /// `has <n> routes [with <m> locations [each]]`: its routes (`HKWorkoutRoute`s from the workout) and, given, how
  /// many locations a route query returns for each.
  case routes(Int, locations: Int?)
  /// `has <n> events`: `workoutEvents.count`.
  case events(Int)
  /// `has <n> <event type> events` (`pause`, `lap`, `segment`, …): how many of `workoutEvents` have that type.
  case eventsOfType(WorkoutEventType, Int)
  /// `has <n> activities [of <activity>]`: `workoutActivities.count`, of one activity type when given.
  case activities(Int, WorkoutActivityType?)
  /// `activity <k> is <activity> | lasts <duration> | <statistic> of <type> is <value> <unit>`: the k-th
  /// (1-based) of `workoutActivities`.
  case leg(Int, WorkoutLegCheck)
  /// `is not found`: the app's query by the workout's identifier returns nothing (deleted, never saved, or not
  /// readable).
  case notFound
}

/// One ring value an activity summary expectation names (`move 350 kcal`, `exercise goal 30 min`).
package enum ActivityRing: String, Hashable, Sendable, CaseIterable {
  /// `move`: `activeEnergyBurned`, kilocalories.
  case move
  /// `move goal`: `activeEnergyBurnedGoal`.
  case moveGoal = "move goal"
  /// `move time`: `appleMoveTime`, minutes.
  case moveTime = "move time"
  /// `move time goal`: `appleMoveTimeGoal`.
  case moveTimeGoal = "move time goal"
  /// `exercise`: `appleExerciseTime`, minutes.
  case exercise
  /// `exercise goal`: `exerciseTimeGoal`.
  case exerciseGoal = "exercise goal"
  /// `stand`: `appleStandHours`, hours (a count).
  case stand
  /// `stand goal`: `standHoursGoal`.
  case standGoal = "stand goal"

  /// The unit a value of the ring is compared in (the summary's own: kcal, min, hours as a count).
  package var canonicalUnit: String {
    switch self {
    case .move, .moveGoal: "kcal"
    case .moveTime, .moveTimeGoal, .exercise, .exerciseGoal: "min"
    case .stand, .standGoal: "count"
    }
  }
}

/// One value of an activity summary expectation, in the unit written (`350 kcal`, `45 min`, `2 h` — hours of
/// standing, written `h`, `hr` or as a bare count).
package struct ActivityRingValue: Hashable, Sendable {
  /// The ring value.
  package var ring: ActivityRing
  /// The value converted to the ring's unit (`ActivityRing.canonicalUnit`).
  package var value: Double
}

/// What `<App> sees activity summary <date>: …` checks: the ring values listed (the others not checked), and
/// `paused` / `not paused` when written.
package struct ActivitySummaryCheck: Hashable, Sendable {
  /// The ring values to compare.
  package var values: [ActivityRingValue] = []
  /// `paused` / `not paused`: `isPaused`, when given.
  package var paused: Bool?

  /// Checks nothing but that the summary exists.
  package init() {}
}
