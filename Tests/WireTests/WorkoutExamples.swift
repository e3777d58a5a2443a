import Foundation

@testable import HealthEngine
@testable import HealthModel
@testable import Wire

/// Fixed examples of the workout family's values, requests and replies: pinned in `Fixtures/frames.txt` by
/// `PinnedFrameTests` and round-tripped by `WorkoutCodecTests`.
enum WorkoutExamples {
  static let u1 = PinnedFrameTests.u1
  static let u2 = PinnedFrameTests.u2
  static let u3 = UUID(uuidString: "33333333-4444-4555-8666-777777777777")!
  static let source = SampleSource(bundleID: "com.example.run", device: .watch)
  static let heartRate = SampleType.lookup(name: "heartRate")!
  static let energy = SampleType.lookup(name: "activeEnergyBurned")!
  static let workoutType = SampleType.lookup(name: "workout")!
  static let routeType = SampleType.lookup(name: "workoutRoute")!
  static let seriesType = SampleType.lookup(name: "heartbeatSeries")!
  static let end = t0.addingTimeInterval(1_800)

  /// In date order, as a stored workout holds them.
  static let events = [
    WorkoutEvent(
      type: .lap, start: t0, end: t0.addingTimeInterval(900), metadata: ["HKLapLength": .quantity(400, unit: "m")]),
    WorkoutEvent(type: .pause, start: t0.addingTimeInterval(600)),
    WorkoutEvent(type: .resume, start: t0.addingTimeInterval(660)),
  ]
  static let statistics = [
    WorkoutStatistic(type: energy, start: t0, end: end, sum: 310.5),
    WorkoutStatistic(type: heartRate, start: t0, end: end, minimum: 1.5, maximum: 3, average: 2.5, mostRecent: 2),
  ]
  static let activity = WorkoutActivity(
    uuid: u3,
    configuration: WorkoutConfiguration(
      activityType: .swimming, location: .indoor, swimmingLocation: .pool, lapLength: 25),
    start: t0, end: end, metadata: ["HKIndoorWorkout": .bool(true)], statistics: [statistics[0]])
  static let openActivity = WorkoutActivity(
    uuid: u2, configuration: WorkoutConfiguration(activityType: .running), start: t0, end: nil)
  static let input = WorkoutInput(
    uuid: u1, activityType: .running, start: t0, end: end, duration: 1_740, events: events,
    activities: [activity, openActivity], statistics: statistics, metadata: ["HKIndoorWorkout": .bool(false)],
    associated: [u2, u3])
  static let workout = Workout(
    uuid: u1, activityType: .running, start: t0, end: end, duration: 1_740, events: events, activities: [activity],
    statistics: statistics, metadata: ["HKIndoorWorkout": .bool(false)], source: source, associated: [u2, u3])
  static let locations = [
    RouteLocation(
      timestamp: t0, latitude: 48.8566, longitude: 2.3522, altitude: 35, horizontalAccuracy: 4, verticalAccuracy: 3,
      speed: 2.8, speedAccuracy: 0.5, course: 90, courseAccuracy: 5),
    RouteLocation(timestamp: t0.addingTimeInterval(1), latitude: 48.8567, longitude: 2.3523),
  ]
  static let routeInput = RouteInput(uuid: u2, locations: locations, metadata: ["HKMetadataKeySyncVersion": .int(1)])
  static let route = WorkoutRoute(uuid: u2, workout: u1, locations: locations, metadata: [:], source: source)
  static let beats = [Heartbeat(offset: 0), Heartbeat(offset: 0.82), Heartbeat(offset: 2.1, precededByGap: true)]
  static let seriesInput = HeartbeatSeriesInput(uuid: u3, start: t0, end: t0.addingTimeInterval(60), beats: beats)
  static let series = HeartbeatSeries(
    uuid: u3, start: t0, end: t0.addingTimeInterval(60), beats: beats, metadata: ["k": .string("v")], source: source)
  static let day = LocalDay(year: 2026, month: 1, day: 5)
  static let summary = ActivitySummary(
    day: day, moveMode: .appleMoveTime, activeEnergy: 420, activeEnergyGoal: 500, moveTime: 31, moveTimeGoal: 30,
    exerciseTime: 42, exerciseTimeGoal: 30, standHours: 9, standHoursGoal: 12, isPaused: true)
  static let sampleInput = SampleInput(
    uuid: u2, type: heartRate, value: .quantity(150, unit: "count/min"), start: t0, end: t0)
  static let tombstone = Tombstone(uuid: u1, type: workoutType, source: source, deletedAt: end)

  /// One request of each workout opcode.
  static let requests: [Request] = [
    .saveWorkout(bundleID: "a", workout: input, route: routeInput),
    .saveObjects(bundleID: "a", correlations: [], samples: [sampleInput], workouts: [input]),
    .addSamplesToWorkout(bundleID: "a", workout: u1, samples: [sampleInput], existing: [u3]),
    .saveRoute(bundleID: "a", workout: u1, route: routeInput),
    .saveHeartbeatSeries(bundleID: "a", series: seriesInput),
    .workoutQuery(
      bundleID: "a",
      query: SampleQuery(
        type: workoutType, range: DateRange(start: t0, end: nil), limit: 5,
        sort: [SampleSort(.startDate, ascending: false)])),
    .routeQuery(bundleID: "a", workout: u1, query: SampleQuery(type: routeType)),
    .heartbeatSeriesQuery(bundleID: "a", query: SampleQuery(type: seriesType, limit: 1)),
    .activitySummaryQuery(bundleID: "a", from: day, to: nil),
    .anchoredWorkoutQuery(
      bundleID: "a", type: routeType, anchor: 4, range: nil, limit: 10, filter: .associatedWith(u1)),
    .importWorkouts(importID: 5, workouts: [workout]),
    .importRoutes(importID: 5, routes: [route]),
    .importActivitySummaries(importID: 5, summaries: [summary]),
    .storedWorkouts,
    .storedRoutes(workout: u1),
    .storedActivitySummaries,
    .workoutSession(
      bundleID: "a",
      call: .command(
        WorkoutSessionID(uuid: u1, generation: 2),
        .beginNewActivity(
          WorkoutConfiguration(activityType: .cycling, location: .outdoor), date: t0, metadata: ["leg": .int(2)],
          uuid: u3))),
  ]

  /// A session object, for the session examples.
  static let sessionID = WorkoutSessionID(uuid: u1, generation: 1)
  /// Every session call, for the round-trip test.
  static let sessionCalls: [SessionCall] = [
    .create(uuid: u1, configuration: WorkoutConfiguration(activityType: .swimming, location: .indoor, lapLength: 25)),
    .command(sessionID, .prepare), .command(sessionID, .startActivity(t0)), .command(sessionID, .pause),
    .command(sessionID, .resume), .command(sessionID, .stopActivity(end)), .command(sessionID, .end),
    .command(sessionID, .endCurrentActivity(end)), .builder(sessionID), .beginCollection(sessionID, t0),
    .endCollection(sessionID, end), .finishWorkout(sessionID, workout: u2), .status(sessionID),
    .setDelegate(sessionID, true), .startMirroring(sessionID), .stopMirroring(sessionID),
    .sendData(sessionID, Data([9, 8, 7])), .enableCollection(sessionID, heartRate, .associatedWith(u1)),
    .enableCollection(sessionID, heartRate, nil), .disableCollection(sessionID, heartRate),
    .shouldCollectEvents(sessionID, false), .addEvents(sessionID, [WorkoutEvent(type: .lap, start: t0, end: end)]),
    .addMetadata(sessionID, ["leg": .int(2)]), .addSamples(sessionID, [sampleInput]), .discard(sessionID),
    .recover, .runState(.suspended), .startWatchApp(WorkoutConfiguration(activityType: .running, location: .outdoor)),
    .effort(.intensity(0.85)), .effort(.speed(3.2)), .wrist(on: false),
  ]
  /// Every session and builder callback, as pushed events, for the round-trip test.
  static let sessionEvents: [DaemonEvent] = [
    .workoutSession(app: "a", session: sessionID, .didChange(to: .running, from: .prepared, date: t0)),
    .workoutSession(app: "a", session: sessionID, .didFail(.healthKit(.errorAnotherWorkoutSessionStarted, "x"))),
    .workoutSession(app: "a", session: sessionID, .didGenerate(WorkoutEvent(type: .pause, start: t0))),
    .workoutSession(app: "a", session: sessionID, .didBeginActivity(workout.activities[0], date: t0)),
    .workoutSession(app: "a", session: sessionID, .didEndActivity(workout.activities[0], date: end)),
    .workoutSession(app: "a", session: sessionID, .didReceiveData([Data([1, 2, 3]), Data()])),
    .workoutSession(app: "a", session: sessionID, .didDisconnect(.healthKit(.errorInvalidArgument, "gone"))),
    .workoutBuilder(app: "a", session: sessionID, .didCollectDataOf([heartRate, workoutType])),
    .workoutBuilder(app: "a", session: sessionID, .didCollectEvent(WorkoutEvent(type: .lap, start: t0, end: end))),
    .workoutBuilder(app: "a", session: sessionID, .didBeginActivity(workout.activities[0])),
    .workoutBuilder(app: "a", session: sessionID, .didEndActivity(workout.activities[0])),
    .mirroringStarted(app: "a", session: sessionID),
    .workoutDataSent(app: "a", session: sessionID, sequence: 3, error: nil),
    .workoutDataSent(app: "a", session: sessionID, sequence: 4, error: .healthKit(.errorDataSizeExceeded, "big")),
    .workoutConfigurationHandled(app: "a", WorkoutConfiguration(activityType: .running, location: .outdoor)),
  ]

  /// A running primary session with an activity and an event, as a mirrored snapshot carries it.
  static var mirroredSnapshot: MirroredSnapshot {
    var session = WorkoutSession(
      id: WorkoutSessionID(uuid: u1), app: "a", configuration: WorkoutConfiguration(activityType: .running))
    session.state = .running
    session.start = t0
    session.activities = [openActivity]
    session.events = [events[1]]
    return MirroredSnapshot(session, generation: 2)
  }
  /// Every session peer message kind (peer message 11), for the round-trip and pinned-frame tests.
  static let sessionPeerMessages: [SessionPeerMessage] = [
    .mirrorStart(mirroredSnapshot), .mirrorStop(u1), .stateChanged(u1, to: .paused, from: .running, date: end),
    .event(u1, events[0]), .activityBegan(u1, openActivity), .activityEnded(u1, activity),
    .control(u1, .stopActivity(end)), .data(u1, sequence: 7, Data([1, 2, 3])),
    .dataAnswer(u1, sequence: 8, error: .healthKit(.errorDataSizeExceeded, "over")),
    .startWatchApp(app: "a", WorkoutConfiguration(activityType: .cycling, location: .outdoor)),
  ]

  /// One reply of each workout reply tag.
  static let replies: [Reply] = [
    .workouts([workout]),
    .routes([route]),
    .heartbeatSeries([series]),
    .activitySummaries([summary]),
    .anchoredWorkouts(
      AnchoredWorkoutResult(
        workouts: [workout], routes: [route], series: [series], deleted: [tombstone], newAnchor: 7)),
    .sessionStatus(
      SessionStatus(
        id: sessionID, app: "a", state: .paused, type: .primary, start: t0, end: nil, waiting: true,
        configuration: WorkoutConfiguration(activityType: .running, location: .outdoor),
        activities: workout.activities, events: [WorkoutEvent(type: .pause, start: t0)], sequence: 2,
        builder: BuilderStatus(
          phase: .collecting, start: t0, end: nil, elapsed: 12.5, events: [WorkoutEvent(type: .pause, start: t0)],
          activities: workout.activities, statistics: workout.statistics, types: [heartRate],
          shouldCollectWorkoutEvents: true, metadata: ["leg": .int(2)]))),
  ]
}
