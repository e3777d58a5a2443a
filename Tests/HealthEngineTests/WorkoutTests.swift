import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel

let workoutType = SampleType.lookup(name: "workout")!
let routeType = SampleType.lookup(name: "workoutRoute")!
let heartbeatType = SampleType.lookup(name: "heartbeatSeries")!
let activeEnergy = SampleType.lookup(name: "activeEnergyBurned")!
let running = WorkoutActivityType(rawValue: 37)
let swimming = WorkoutActivityType(rawValue: 46)
let runApp = AppRecord(
  bundleID: "com.example.run", displayName: "Run", writeUsageDescription: "w", readUsageDescription: "r")

/// A 30-minute run from `start`, with 300 kcal and a pause of 5 minutes.
func run(at start: Date = t0, uuid: UUID = UUID(), associated: [UUID] = []) -> WorkoutInput {
  WorkoutInput(
    uuid: uuid, activityType: running, start: start, end: start.addingTimeInterval(1800),
    events: [
      WorkoutEvent(type: .pause, start: start.addingTimeInterval(600)),
      WorkoutEvent(type: .resume, start: start.addingTimeInterval(900)),
    ],
    statistics: [WorkoutStatistic(type: activeEnergy, start: start, end: start.addingTimeInterval(1800), sum: 300)],
    associated: associated)
}

func route(_ count: Int = 3, at start: Date = t0, uuid: UUID = UUID()) -> RouteInput {
  RouteInput(
    uuid: uuid,
    locations: (0..<count).reversed().map {
      RouteLocation(timestamp: start.addingTimeInterval(Double($0) * 3), latitude: 48 + Double($0) / 1000, longitude: 2)
    })
}

/// A device with the run app allowed to share and read workouts, routes, series and heart rate.
func runDevice(_ kind: DeviceKind = .phone) throws -> DeviceState {
  var device = makeDevice(kind, apps: [runApp, waterApp])
  let types: Set<SampleType> = [workoutType, routeType, heartbeatType, heartRate, activeEnergy]
  try device.grant(runApp.bundleID, share: types, read: types)
  return device
}

func heartRateInput(_ bpm: Double, at date: Date = t0) -> SampleInput {
  SampleInput(uuid: UUID(), type: heartRate, value: .quantity(bpm, unit: "count/min"), start: date, end: date)
}

@Suite("Workouts: validation, saving, queries, deletion (workouts.md §1)")
struct WorkoutTests {
  @Test func validationSortsEventsAddsAnActivityAndDerivesTheDuration() throws {
    var input = run()
    input.events.reverse()
    let workout = try input.validated(source: SampleSource(bundleID: "a", device: .phone))
    #expect(workout.events.map(\.type) == [.pause, .resume])
    #expect(workout.duration == 1500)
    #expect(workout.activities.count == 1)
    #expect(workout.activities[0].uuid == WorkoutActivity.defaultUUID(for: input.uuid))
    #expect(workout.activities[0].configuration.activityType == running)
    #expect(workout.activities[0].start == input.start && workout.activities[0].end == input.end)
    var explicit = run()
    explicit.duration = 1000
    #expect(try explicit.validated(source: SampleSource(bundleID: "a", device: .phone)).duration == 1000)
  }

  @Test func validationRefusesMalformedWorkouts() {
    let source = SampleSource(bundleID: "a", device: .phone)
    func refused(_ change: (inout WorkoutInput) -> Void) {
      var input = run()
      change(&input)
      expectError(.errorInvalidArgument, kind: .wouldTerminate) { _ = try input.validated(source: source) }
    }
    refused { $0.end = $0.start.addingTimeInterval(-1) }
    refused { $0.events = [WorkoutEvent(type: .resume, start: $0.start.addingTimeInterval(10))] }
    refused { $0.events.append(WorkoutEvent(type: .marker, start: $0.end.addingTimeInterval(1))) }
    refused {
      $0.events.append(
        WorkoutEvent(type: .marker, start: $0.start.addingTimeInterval(5), end: $0.start.addingTimeInterval(6)))
    }
    refused { $0.duration = -1 }
    let configuration = WorkoutConfiguration(activityType: running)
    refused {
      $0.activities = [
        WorkoutActivity(
          uuid: UUID(), configuration: configuration, start: $0.start, end: $0.start.addingTimeInterval(900)),
        WorkoutActivity(
          uuid: UUID(), configuration: configuration, start: $0.start.addingTimeInterval(800), end: $0.end),
      ]
    }
    refused {
      $0.activities = [
        WorkoutActivity(uuid: UUID(), configuration: configuration, start: $0.start, end: $0.end.addingTimeInterval(1))
      ]
    }
    refused { $0.statistics = [WorkoutStatistic(type: mindful, start: $0.start, end: $0.end, sum: 1)] }
    // A lap may span an interval.
    var lap = run()
    lap.events.append(WorkoutEvent(type: .lap, start: lap.start, end: lap.start.addingTimeInterval(60)))
    #expect((try? lap.validated(source: source)) != nil)
  }

  @Test func savingChecksPermissionIdentifiersAndAssociatedSamples() throws {
    var device = makeDevice(.phone, apps: [runApp])
    expectError(.errorAuthorizationNotDetermined) {
      _ = try device.saveWorkout(runApp.bundleID, run(), route: nil, wall: t0)
    }
    device = try runDevice()
    let first = run()
    let events = try device.saveWorkout(runApp.bundleID, first, route: route(), wall: t0)
    #expect(events.count == 2)
    guard case .workoutsSaved = events[0], case .routesSaved(let routes) = events[1] else {
      Issue.record("expected workoutsSaved then routesSaved: \(events)")
      return
    }
    #expect(routes[0].locations.map(\.timestamp) == routes[0].locations.map(\.timestamp).sorted())
    expectError(.errorInvalidArgument) { _ = try device.saveWorkout(runApp.bundleID, first, route: nil, wall: t0) }
    expectError(.errorInvalidArgument) {
      _ = try device.saveWorkout(runApp.bundleID, run(associated: [UUID()]), route: nil, wall: t0)
    }
    expectError(.errorInvalidArgument) { _ = try device.saveWorkout(runApp.bundleID, run(), route: route(0), wall: t0) }
    _ = device.lock(wall: t0)
    // Locked, the save waits for the unlock (E31; WorkoutLockTests) and the store is unchanged.
    #expect(DeviceState.isWaitingForUnlock(try device.saveWorkout(runApp.bundleID, run(), route: nil, wall: t0)))
    #expect(device.workoutStore.workouts.count == 1 && device.workoutStore.routes.count == 1)
  }

  @Test func queriesHideWhatTheAppMayNotReadAndNeedADecidedRead() throws {
    var device = try runDevice()
    _ = try device.saveWorkout(runApp.bundleID, run(), route: nil, wall: t0)
    let query = SampleQuery(type: workoutType)
    #expect(try device.workoutQuery(runApp.bundleID, query, wall: t0).count == 1)
    // Never asked: code 5 (R5).
    expectError(.errorAuthorizationNotDetermined) { _ = try device.workoutQuery(waterApp.bundleID, query, wall: t0) }
    // Read denied: no data (R1); the app's own workouts only once it may share.
    try device.grant(waterApp.bundleID, share: [workoutType], read: [workoutType], answer: .choices([
      Permission(workoutType, .share): true, Permission(workoutType, .read): false,
    ]))
    #expect(try device.workoutQuery(waterApp.bundleID, query, wall: t0).isEmpty)
    _ = try device.saveWorkout(waterApp.bundleID, run(at: t0.addingTimeInterval(3600)), route: nil, wall: t0)
    #expect(try device.workoutQuery(waterApp.bundleID, query, wall: t0).map(\.source.bundleID) == [waterApp.bundleID])
    #expect(try device.workoutQuery(runApp.bundleID, query, wall: t0).count == 2)
    // Another type through the workout query is refused.
    expectError(.errorInvalidArgument) {
      _ = try device.workoutQuery(runApp.bundleID, SampleQuery(type: water), wall: t0)
    }
  }

  @Test func workoutPredicatesSortAndLimit() throws {
    var device = try runDevice()
    _ = try device.saveWorkout(runApp.bundleID, run(at: t0), route: nil, wall: t0)
    var swim = run(at: t0.addingTimeInterval(7200))
    swim.activityType = swimming
    swim.statistics = []
    _ = try device.saveWorkout(runApp.bundleID, swim, route: nil, wall: t0)
    func count(_ filter: SampleFilter) throws -> Int {
      try device.workoutQuery(runApp.bundleID, SampleQuery(type: workoutType, filter: filter), wall: t0).count
    }
    #expect(try count(.workoutActivityType([running.rawValue])) == 1)
    #expect(try count(.workoutDuration(.greaterThanOrEqualTo, 1500)) == 2)
    #expect(try count(.workoutDuration(.greaterThan, 1500)) == 0)
    #expect(try count(.workoutStatistic(activeEnergy, .sum, .greaterThan, 250)) == 1)
    #expect(try count(.workoutStatistic(activeEnergy, .average, .greaterThan, 250)) == 0)
    #expect(try count(.workoutActivity(.workoutActivityType([swimming.rawValue]))) == 1)
    #expect(try count(.workoutActivity(.workoutDuration(.equalTo, 1800))) == 2)
    #expect(try count(.value(.greaterThan, 0)) == 0, "sample-only conditions match no workout")
    #expect(!SampleFilter.workoutActivityType([running.rawValue]).matches(dummy), "workout conditions match no sample")
    #expect(!SampleFilter.associatedWith(UUID()).matches(dummy), "unresolved, it matches nothing")
    let latest = SampleQuery(type: workoutType, limit: 1, sort: [SampleSort(.startDate, ascending: false)])
    #expect(try device.workoutQuery(runApp.bundleID, latest, wall: t0).map(\.activityType) == [swimming])
    // Workout sort keys: the swim has no energy statistic, which sorts first ascending.
    let byEnergy = SampleQuery(type: workoutType, sort: [SampleSort(.totalEnergyBurned, ascending: true)])
    #expect(try device.workoutQuery(runApp.bundleID, byEnergy, wall: t0).map(\.activityType) == [swimming, running])
    let byDuration = SampleQuery(
      type: workoutType, sort: [SampleSort(.duration, ascending: false), SampleSort(.startDate, ascending: false)])
    #expect(try device.workoutQuery(runApp.bundleID, byDuration, wall: t0).map(\.activityType) == [swimming, running])
    expectError(.errorInvalidArgument) {
      let query = SampleQuery(type: heartRate, sort: [SampleSort(.duration, ascending: true)])
      _ = try device.sampleQuery(runApp.bundleID, query, wall: t0)
    }
  }

  @Test func addingSamplesAssociatesThemAndKeepsTheTotals() throws {
    var device = try runDevice()
    let input = run()
    _ = try device.saveWorkout(runApp.bundleID, input, route: nil, wall: t0)
    let existing = heartRateInput(120, at: t0.addingTimeInterval(60))
    _ = try device.save(runApp.bundleID, [existing], wall: t0)
    let events = try device.addSamples(
      runApp.bundleID, new: [heartRateInput(130, at: t0.addingTimeInterval(120))], existing: [existing.uuid],
      to: input.uuid, wall: t0)
    #expect(events.count == 2)
    let workout = try #require(device.workoutStore.workout(input.uuid))
    #expect(workout.associated.count == 2)
    #expect(workout.duration == 1500 && workout.statistic(for: activeEnergy)?.sum == 300, "totals do not change")
    let associated = SampleQuery(type: heartRate, filter: .associatedWith(input.uuid))
    #expect(try device.sampleQuery(runApp.bundleID, associated, wall: t0).count == 2)
    _ = try device.save(runApp.bundleID, [heartRateInput(90)], wall: t0)
    #expect(try device.sampleQuery(runApp.bundleID, associated, wall: t0).count == 2)
    expectError(.errorInvalidArgument) {
      _ = try device.addSamples(runApp.bundleID, new: [heartRateInput(1)], existing: [], to: UUID(), wall: t0)
    }
    expectError(.errorInvalidArgument) {
      _ = try device.addSamples(runApp.bundleID, new: [], existing: [UUID()], to: input.uuid, wall: t0)
    }
  }

  @Test func aRouteNeedsASavedWorkoutAndGoesWithItWhenItIsDeleted() throws {
    var device = try runDevice()
    expectError(.errorInvalidArgument) { _ = try device.saveRoute(runApp.bundleID, route(), workout: UUID(), wall: t0) }
    let sample = heartRateInput(120)
    _ = try device.save(runApp.bundleID, [sample], wall: t0)
    let input = run(associated: [sample.uuid])
    _ = try device.saveWorkout(runApp.bundleID, input, route: nil, wall: t0)
    _ = try device.saveRoute(runApp.bundleID, route(), workout: input.uuid, wall: t0)
    _ = try device.saveRoute(runApp.bundleID, route(), workout: input.uuid, wall: t0)
    let routes = try device.routeQuery(runApp.bundleID, workout: input.uuid, SampleQuery(type: routeType), wall: t0)
    #expect(routes.count == 2)
    // A route alone may be deleted.
    _ = try device.delete(runApp.bundleID, [routes[0].uuid], wall: t0)
    #expect(device.workoutStore.routes.count == 1)
    // Another app cannot delete the workout.
    expectError(.errorInvalidArgument) { _ = try device.delete(waterApp.bundleID, [input.uuid], wall: t0) }
    let events = try device.delete(runApp.bundleID, [input.uuid], wall: t0)
    guard case .workoutObjectsDeleted(let tombstones) = events.first else {
      Issue.record("expected workoutObjectsDeleted: \(events)")
      return
    }
    #expect(Set(tombstones.map(\.type)) == [workoutType, routeType])
    #expect(device.workoutStore.workouts.isEmpty && device.workoutStore.routes.isEmpty)
    #expect(try device.sampleQuery(runApp.bundleID, SampleQuery(type: heartRate), wall: t0).count == 1, "samples stay")
  }

  @Test func anchoredQueriesReturnWorkoutsAndTheirDeletions() throws {
    var device = try runDevice()
    let a = run()
    _ = try device.saveWorkout(runApp.bundleID, a, route: route(), wall: t0)
    let first = try device.anchoredWorkoutQuery(
      runApp.bundleID, type: workoutType, anchor: 0, range: nil, limit: 0, wall: t0)
    #expect(first.workouts.map(\.uuid) == [a.uuid] && first.deleted.isEmpty)
    let b = run(at: t0.addingTimeInterval(3600))
    _ = try device.saveWorkout(runApp.bundleID, b, route: nil, wall: t0)
    _ = try device.delete(runApp.bundleID, [a.uuid], wall: t0)
    let next = try device.anchoredWorkoutQuery(
      runApp.bundleID, type: workoutType, anchor: first.newAnchor, range: nil, limit: 0, wall: t0)
    #expect(next.workouts.map(\.uuid) == [b.uuid])
    #expect(next.deleted.map(\.uuid) == [a.uuid])
    let routes = try device.anchoredWorkoutQuery(
      runApp.bundleID, type: routeType, anchor: first.newAnchor, range: nil, limit: 0, wall: t0)
    #expect(routes.routes.isEmpty && routes.deleted.count == 1)
    let limited = try device.anchoredWorkoutQuery(
      runApp.bundleID, type: workoutType, anchor: first.newAnchor, range: nil, limit: 1, wall: t0)
    #expect(limited.workouts.count + limited.deleted.count == 1 && limited.newAnchor < next.newAnchor)
    let series = HeartbeatSeriesInput(
      uuid: UUID(), start: t0, end: t0.addingTimeInterval(5), beats: [Heartbeat(offset: 1), Heartbeat(offset: 1.9)])
    _ = try device.saveHeartbeatSeries(runApp.bundleID, series, wall: t0)
    #expect(try device.heartbeatSeriesQuery(runApp.bundleID, SampleQuery(type: heartbeatType), wall: t0).count == 1)
    var backwards = series
    backwards.uuid = UUID()
    backwards.beats.reverse()
    expectError(.errorInvalidArgument) { _ = try device.saveHeartbeatSeries(runApp.bundleID, backwards, wall: t0) }
  }

  @Test func theWatchPrunesWorkoutsOutsideItsWindow() throws {
    var watch = try runDevice(.watch)
    let old = run(at: t0.addingTimeInterval(-30 * 86_400))
    expectError(.errorInvalidArgument) { _ = try watch.saveWorkout(runApp.bundleID, old, route: nil, wall: t0) }
    let recent = run(at: t0.addingTimeInterval(-3600))
    _ = try watch.saveWorkout(runApp.bundleID, recent, route: route(at: recent.start), wall: t0)
    #expect(watch.workoutStore.workouts.count == 1)
    _ = try watch.advanceClock(by: 8 * 86_400, wall: t0)
    #expect(watch.workoutStore.workouts.isEmpty && watch.workoutStore.routes.isEmpty)
  }

  @Test func backgroundDeliveryWakesAnAppForWorkoutsItMaySee() throws {
    var device = makeDevice(.phone, apps: [runApp, tracker])
    try device.grant(runApp.bundleID, share: [workoutType], read: [workoutType])
    try device.grant(tracker.bundleID, read: [workoutType])
    _ = try device.enableBackgroundDelivery(tracker.bundleID, workoutType, .immediate)
    _ = device.backgroundStep(wall: t0)
    let input = run()
    _ = try device.saveWorkout(runApp.bundleID, input, route: nil, wall: t0)
    #expect(device.backgroundStep(wall: t0).events.map(\.kind) == [.woken])
    let waiting = try #require(device.backgroundDeliveries(tracker.bundleID).first?.waiting)
    _ = try device.completeBackgroundDelivery(tracker.bundleID, id: waiting, wall: t0)
    _ = try device.delete(runApp.bundleID, [input.uuid], wall: t0)
    #expect(device.backgroundStep(wall: t0).events.map(\.kind) == [.woken], "a deletion wakes it too")
  }

  @Test func journalReplayAndSnapshotsRebuildTheSameState() throws {
    var device = try runDevice()
    var events: [DeviceEvent] = [.clockSet(device.virtualNow)]
    for app in device.apps.values.sorted(by: { $0.bundleID < $1.bundleID }) { events.append(.appInstalled(app)) }
    for (bundleID, changes) in Dictionary(grouping: device.decisions, by: { $0.key.bundleID }) {
      events.append(
        .promptAnswered(bundleID: bundleID, changes: changes.map { AuthorizationChange($0.key.permission, $0.value) }))
    }
    let sample = heartRateInput(120)
    events += try device.save(runApp.bundleID, [sample], wall: t0)
    let a = run(associated: [sample.uuid])
    events += try device.saveWorkout(runApp.bundleID, a, route: route(), wall: t0)
    events += try device.addSamples(runApp.bundleID, new: [heartRateInput(99)], existing: [], to: a.uuid, wall: t0)
    events += try device.saveWorkout(runApp.bundleID, run(at: t0.addingTimeInterval(4000)), route: nil, wall: t0)
    events += try device.delete(runApp.bundleID, [a.uuid], wall: t0)
    var fresh = DeviceState(device: .phone)
    for event in events {
      var writer = BinaryWriter()
      writer.event(event)
      let decoded = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
        var reader = BinaryReader(buffer)
        return try reader.event()
      }
      #expect(decoded == event)
      fresh.apply(decoded)
    }
    #expect(fresh.differences(from: device) == [])
    var writer = BinaryWriter()
    writer.deviceState(device) { (_: inout BinaryWriter) in }
    let restored = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      let state = try reader.deviceState()
      try reader.expectEnd("state")
      return state
    }
    #expect(restored.differences(from: device) == [])
    #expect(restored.workoutStore.workouts.count == 1 && restored.workoutStore.deleted.count == 2)
  }
}

private let dummy = Sample(
  uuid: UUID(), type: heartRate, value: .quantity(1), start: t0, end: t0,
  source: SampleSource(bundleID: "x", device: .phone))
