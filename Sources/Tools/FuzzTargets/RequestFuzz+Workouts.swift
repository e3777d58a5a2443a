import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Wire

// The palettes of the workout family's request fields (RequestTable+Workouts.swift): workouts, routes, heartbeat
// series, activity summaries and days, each with the extreme values of the other palettes (non-finite numbers and
// dates, empty and oversized lists, unknown activity types, events out of order).

extension RequestFuzz.Palette {
  /// Activity types: common, the largest published, unknown and extreme raw values.
  static let activityTypes: [WorkoutActivityType] = [
    .running, .walking, .cycling, .swimming, .other, WorkoutActivityType(rawValue: 81),
    WorkoutActivityType(rawValue: 0), WorkoutActivityType(rawValue: UInt(UInt32.max)),
  ]
  /// Days: ordinary, leap, the first and last the encoding holds.
  static let days: [LocalDay] = [
    LocalDay(year: 2026, month: 1, day: 5), LocalDay(year: 2024, month: 2, day: 29),
    LocalDay(year: 2026, month: 12, day: 31), LocalDay(year: Int(Int32.min), month: 1, day: 1),
    LocalDay(year: Int(Int32.max), month: 12, day: 31),
  ]
}

extension RequestFuzz.Choices {
  /// A statistic of a quantity type (or of any type), with extreme values.
  mutating func workoutStatistic() -> WorkoutStatistic {
    typealias Palette = RequestFuzz.Palette
    let start = pick(Palette.dates)
    return WorkoutStatistic(
      type: pick(Palette.types), start: start, end: byte() & 1 == 0 ? start : pick(Palette.dates),
      sum: pick([nil] + Palette.doubles), minimum: pick([nil, 1]), maximum: pick([nil] + Palette.doubles),
      average: pick([nil, 2]), mostRecent: pick([nil] + Palette.doubles))
  }
  /// A workout event of any type, possibly outside its workout.
  mutating func workoutEvent() -> WorkoutEvent {
    typealias Palette = RequestFuzz.Palette
    let start = pick(Palette.dates)
    return WorkoutEvent(
      type: pick(WorkoutEventType.allCases), start: start, end: byte() & 1 == 0 ? start : pick(Palette.dates),
      metadata: pick(Palette.metadata))
  }
  /// An activity, open or closed.
  mutating func workoutActivity() -> WorkoutActivity {
    typealias Palette = RequestFuzz.Palette
    let configuration = WorkoutConfiguration(
      activityType: pick(Palette.activityTypes), location: pick(WorkoutLocationType.allCases),
      swimmingLocation: pick(SwimmingLocationType.allCases), lapLength: pick([nil] + Palette.doubles))
    return WorkoutActivity(
      uuid: pick(Palette.uuids), configuration: configuration, start: pick(Palette.dates),
      end: pick([nil] + Palette.dates), metadata: pick(Palette.metadata),
      statistics: (0..<Int(byte() % 3)).map { _ in workoutStatistic() })
  }
  /// None to two of `make`'s values.
  mutating func few<T>(_ make: (inout Self) -> T) -> [T] { (0..<Int(byte() % 3)).map { _ in make(&self) } }
  /// A route location with extreme values.
  mutating func routeLocation() -> RouteLocation {
    typealias Palette = RequestFuzz.Palette
    return RouteLocation(
      timestamp: pick(Palette.dates), latitude: pick([48.85, -91, 90] + Palette.doubles),
      longitude: pick([2.35, 181] + Palette.doubles), altitude: pick(Palette.doubles),
      horizontalAccuracy: pick([5, -1] + Palette.doubles), verticalAccuracy: pick([5, -1]),
      speed: pick([-1, 3] + Palette.doubles), speedAccuracy: pick([-1, 0.5]), course: pick([-1, 90, 360.5]),
      courseAccuracy: pick([-1, 10]))
  }
}

extension Codec.NewWorkout: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> WorkoutInput {
    typealias Palette = RequestFuzz.Palette
    let start = c.pick(Palette.dates)
    return WorkoutInput(
      uuid: c.pick(Palette.uuids), activityType: c.pick(Palette.activityTypes), start: start,
      end: c.byte() & 1 == 0 ? start.addingTimeInterval(1_800) : c.pick(Palette.dates),
      duration: c.pick([nil] + Palette.doubles), events: c.few { $0.workoutEvent() },
      activities: c.few { $0.workoutActivity() }, statistics: c.few { $0.workoutStatistic() },
      metadata: c.pick(Palette.metadata), associated: c.few { $0.pick(Palette.uuids) })
  }
}
extension Codec.NewRoute: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> RouteInput {
    typealias Palette = RequestFuzz.Palette
    return RouteInput(
      uuid: c.pick(Palette.uuids), locations: c.few { $0.routeLocation() }, metadata: c.pick(Palette.metadata))
  }
}
extension Codec.NewHeartbeatSeries: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> HeartbeatSeriesInput {
    typealias Palette = RequestFuzz.Palette
    let start = c.pick(Palette.dates)
    return HeartbeatSeriesInput(
      uuid: c.pick(Palette.uuids), start: start, end: c.byte() & 1 == 0 ? start : c.pick(Palette.dates),
      beats: c.few { Heartbeat(offset: $0.pick([0, 0.8, -1] + Palette.doubles), precededByGap: $0.byte() & 1 == 0) },
      metadata: c.pick(Palette.metadata))
  }
}
extension Codec.StoredWorkout: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Workout {
    typealias Palette = RequestFuzz.Palette
    let input = Codec.NewWorkout.draw(&c)
    return Workout(
      uuid: input.uuid, activityType: input.activityType, start: input.start, end: input.end,
      duration: input.duration ?? 1_800, events: input.events, activities: input.activities,
      statistics: input.statistics, metadata: input.metadata, source: c.pick(Palette.sources),
      associated: Array(Set(input.associated)))
  }
}
extension Codec.StoredRoute: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> WorkoutRoute {
    typealias Palette = RequestFuzz.Palette
    let input = Codec.NewRoute.draw(&c)
    return WorkoutRoute(
      uuid: input.uuid, workout: c.pick(Palette.uuids), locations: input.locations, metadata: input.metadata,
      source: c.pick(Palette.sources))
  }
}
extension Codec.Summary: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> ActivitySummary {
    typealias Palette = RequestFuzz.Palette
    return ActivitySummary(
      day: c.pick(Palette.days), moveMode: c.pick(ActivityMoveMode.allCases), activeEnergy: c.pick(Palette.doubles),
      activeEnergyGoal: c.pick([0, 500] + Palette.doubles), moveTime: c.pick([0, 30]), moveTimeGoal: c.pick([0, 30]),
      exerciseTime: c.pick(Palette.doubles), exerciseTimeGoal: c.pick([30, -1]), standHours: c.pick([0, 12, 25]),
      standHoursGoal: c.pick([12, 0]), isPaused: c.byte() & 1 == 0)
  }
}
extension Codec.Filter: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> SampleFilter {
    c.pick([
      .associatedWith(c.pick(RequestFuzz.Palette.uuids)), .workoutActivityType([37]), c.filter() ?? .constant(true),
      .electrocardiogram(.classification, [2, 100]), .electrocardiogram(.symptomsStatus, [-1]),
      .stateOfMindValence(.lessThan, c.pick(RequestFuzz.Palette.doubles)), .stateOfMind(.label, 17),
      .fhirResource("Observation", identifier: nil),
    ])
  }
}
extension Codec.Day: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> LocalDay { c.pick(RequestFuzz.Palette.days) }
}
extension Codec.Session: FuzzPalette {
  /// Session calls on a few session objects (so a run creates, drives and finishes the same ones), with the
  /// palettes' extreme dates and configurations.
  static func draw(_ c: inout RequestFuzz.Choices) -> SessionCall {
    typealias Palette = RequestFuzz.Palette
    let uuid = c.pick(Array(Palette.uuids.prefix(3)))
    let id = WorkoutSessionID(uuid: uuid, generation: c.pick([0, 0, 1]))
    let date = c.pick(Palette.dates)
    let commands: [SessionCommand] = [
      .prepare, .startActivity(date), .pause, .resume, .stopActivity(date), .end, .endCurrentActivity(date),
      .beginNewActivity(
        WorkoutConfiguration(activityType: c.pick(Palette.activityTypes), location: .outdoor), date: date,
        metadata: c.pick(Palette.metadata), uuid: c.pick(Palette.uuids)),
    ]
    let configuration = WorkoutConfiguration(
      activityType: c.pick(Palette.activityTypes), location: c.pick(WorkoutLocationType.allCases))
    return c.pick([
      .create(uuid: uuid, configuration: configuration), .command(id, c.pick(commands)), .builder(id),
      .beginCollection(id, date), .endCollection(id, date), .finishWorkout(id, workout: c.pick(Palette.uuids)),
      .status(id),
    ])
  }
}
