import DeviceCore
import FoundationEssentials
import HealthEngine
import HealthModel
import Sync
import Testing
import Wire

/// The workout family's requests through the device core, without sockets: each reaches the engine and answers with
/// its row's reply kind, the events are journaled at the commit, subscribers hear of workouts, and the workout
/// imports belong to the connection that staged them.
@Suite("Device core: workouts")
struct WorkoutDispatchTests {
  static let bundleID = Harness.app.bundleID
  static let workout = SampleType.lookup(name: "workout")!
  static let route = SampleType.lookup(name: "workoutRoute")!
  static let series = SampleType.lookup(name: "heartbeatSeries")!
  static let heartRate = SampleType.lookup(name: "heartRate")!
  static let summary = SampleType.lookup(name: "activitySummary")!

  /// A harness (on `device`) with connection 1 greeted and the app allowed to write and read the workout family.
  static func harness(_ device: DeviceKind = .watch) -> Harness {
    var h = Harness(device: device)
    h.open(1)
    h.request(1, .installApp(Harness.app))
    h.request(
      1,
      .requestAuthorization(
        bundleID: bundleID, share: [workout, route, series, heartRate],
        read: [workout, route, series, heartRate, summary]))
    h.request(1, .answerPrompt(promptID: nil, bundleID: bundleID, answer: .allowAll))
    h.turn(.commit)
    h.turn(.repliesWritten)
    return h
  }

  /// The reply to the request with `id` on connection 1 (a failure is recorded as an issue).
  static func reply(_ actions: [DeviceCore.Action], id: UInt32 = 1, to connection: UInt64 = 1) -> Reply? {
    for case .response(id, let result) in frames(to: connection, in: actions) {
      switch result {
      case .success(let reply): return reply
      case .failure(let error):
        Issue.record("request \(id) failed: \(error)")
        return nil
      }
    }
    Issue.record("no response to request \(id)")
    return nil
  }

  static func start(_ h: Harness) -> Date { h.wall.addingTimeInterval(-3_600) }

  static func input(_ h: Harness, uuid: UUID = UUID(), associated: [UUID] = []) -> WorkoutInput {
    WorkoutInput(
      uuid: uuid, activityType: .running, start: start(h), end: start(h).addingTimeInterval(1_800),
      associated: associated)
  }

  static func routeInput(_ h: Harness) -> RouteInput {
    RouteInput(
      uuid: UUID(),
      locations: (0..<5).map { i in
        RouteLocation(
          timestamp: start(h).addingTimeInterval(Double(i) * 60), latitude: 48.85 + Double(i) * 1e-4,
          longitude: 2.35)
      })
  }

  static func heartRateInput(_ h: Harness, at offset: Double) -> SampleInput {
    SampleInput(
      uuid: UUID(), type: heartRate, value: .quantity(150, unit: "count/min"),
      start: start(h).addingTimeInterval(offset), end: start(h).addingTimeInterval(offset))
  }

  @Test("a workout saved with its route is queried back with it, and journaled at the commit")
  func saveAndQuery() throws {
    var h = Self.harness()
    let id = UUID()
    let saved = h.request(
      1, .saveWorkout(bundleID: Self.bundleID, workout: Self.input(h, uuid: id), route: Self.routeInput(h)))
    #expect(Self.reply(saved) == .count(0), "stored now: it does not wait for an unlock")
    #expect(kinds(h.turn(.commit)).contains("journal"))
    h.turn(.repliesWritten)
    let queried = h.request(1, .workoutQuery(bundleID: Self.bundleID, query: SampleQuery(type: Self.workout)), id: 2)
    guard case .workouts(let workouts) = Self.reply(queried, id: 2) else { return }
    #expect(workouts.map(\.uuid) == [id])
    #expect(workouts.first?.activityType == .running)
    #expect(workouts.first?.source.bundleID == Self.bundleID)
    let routes = h.request(
      1, .routeQuery(bundleID: Self.bundleID, workout: id, query: SampleQuery(type: Self.route)), id: 3)
    guard case .routes(let found) = Self.reply(routes, id: 3) else { return }
    #expect(found.count == 1)
    #expect(found.first?.workout == id)
    #expect(found.first?.locations.count == 5)
  }

  @Test("samples added to a workout are associated with it")
  func addSamples() throws {
    var h = Self.harness()
    let id = UUID()
    let stored = Self.heartRateInput(h, at: 30)
    h.request(1, .save(bundleID: Self.bundleID, samples: [stored]))
    h.request(1, .saveWorkout(bundleID: Self.bundleID, workout: Self.input(h, uuid: id), route: nil), id: 2)
    let added = Self.heartRateInput(h, at: 90)
    let adding = h.request(
      1, .addSamplesToWorkout(bundleID: Self.bundleID, workout: id, samples: [added], existing: [stored.uuid]), id: 3)
    #expect(Self.reply(adding, id: 3) == .ok)
    let query = SampleQuery(type: Self.heartRate, filter: .associatedWith(id))
    guard
      case .samples(let samples) = Self.reply(
        h.request(1, .sampleQuery(bundleID: Self.bundleID, query: query), id: 4), id: 4)
    else { return }
    #expect(Set(samples.map(\.uuid)) == [stored.uuid, added.uuid])
  }

  @Test("deleting a workout deletes its route, and subscribers hear of both changes")
  func deleteCascades() throws {
    var h = Self.harness()
    h.open(2)
    h.request(2, .subscribe(.all))
    let id = UUID()
    h.request(1, .saveWorkout(bundleID: Self.bundleID, workout: Self.input(h, uuid: id), route: Self.routeInput(h)))
    h.turn(.commit)
    let savedPushes = h.turn(.repliesWritten)
    let changed = frames(to: 2, in: savedPushes).compactMap { frame -> [SampleType]? in
      if case .event(.samplesChanged(let types, _, _, _)) = frame { return types }
      return nil
    }
    #expect(changed.flatMap { $0 }.contains(Self.workout))
    #expect(Self.reply(h.request(1, .delete(bundleID: Self.bundleID, uuids: [id]), id: 2), id: 2) == .ok)
    h.turn(.commit)
    h.turn(.repliesWritten)
    #expect(Self.reply(h.request(1, .storedWorkouts, id: 3), id: 3) == .workouts([]))
    #expect(Self.reply(h.request(1, .storedRoutes(workout: nil), id: 4), id: 4) == .routes([]))
  }

  @Test("a route cannot be saved for a workout that is not saved")
  func routeNeedsItsWorkout() {
    var h = Self.harness()
    let actions = h.request(1, .saveRoute(bundleID: Self.bundleID, workout: UUID(), route: Self.routeInput(h)))
    #expect(failure(to: 1, in: actions) != nil)
    #expect(Self.reply(h.request(1, .storedRoutes(workout: nil), id: 2), id: 2) == .routes([]))
  }

  @Test("workout imports belong to the connection that staged them and appear at its commit")
  func importOwnership() throws {
    var h = Self.harness(.phone)
    h.open(2)
    let source = SampleSource(bundleID: "com.apple.health", device: .watch)
    let start = Self.start(h)
    // In stored form, as an export's reader hands it over (with the activity HealthKit adds).
    let workout = try WorkoutInput(
      uuid: UUID(), activityType: .cycling, start: start, end: start.addingTimeInterval(600)
    ).validated(source: source)
    let route = WorkoutRoute(
      uuid: UUID(), workout: workout.uuid,
      locations: [RouteLocation(timestamp: start, latitude: 1, longitude: 2)], source: source)
    let summary = ActivitySummary(
      day: LocalDay(year: 2026, month: 1, day: 4), activeEnergy: 300, activeEnergyGoal: 500, exerciseTime: 20,
      exerciseTimeGoal: 30, standHours: 8, standHoursGoal: 12)
    #expect(Self.reply(h.request(1, .importWorkouts(importID: 9, workouts: [workout]))) == .ok)
    let refused = h.request(2, .importRoutes(importID: 9, routes: [route]))
    #expect(failure(to: 2, in: refused)?.contains("belongs to another connection") == true)
    #expect(Self.reply(h.request(1, .importRoutes(importID: 9, routes: [route]), id: 2), id: 2) == .ok)
    #expect(
      Self.reply(h.request(1, .importActivitySummaries(importID: 9, summaries: [summary]), id: 3), id: 3) == .ok)
    #expect(Self.reply(h.request(1, .storedWorkouts, id: 4), id: 4) == .workouts([]))
    guard case .imported = Self.reply(h.request(1, .importCommit(importID: 9), id: 5), id: 5) else { return }
    guard case .workouts(let workouts) = Self.reply(h.request(1, .storedWorkouts, id: 6), id: 6) else { return }
    #expect(workouts.map(\.uuid) == [workout.uuid])
    guard case .routes(let routes) = Self.reply(h.request(1, .storedRoutes(workout: workout.uuid), id: 7), id: 7)
    else { return }
    #expect(routes.map(\.uuid) == [route.uuid])
    let summaries = h.request(
      1, .activitySummaryQuery(bundleID: Self.bundleID, from: summary.day, to: summary.day), id: 8)
    guard case .activitySummaries(let found) = Self.reply(summaries, id: 8) else { return }
    #expect(found.map(\.day) == [summary.day])
    #expect(found.first?.activeEnergy == 300)
  }

  @Test("an anchored query of workouts returns the saved workout, then nothing new from its anchor")
  func anchored() throws {
    var h = Self.harness()
    let id = UUID()
    h.request(1, .saveWorkout(bundleID: Self.bundleID, workout: Self.input(h, uuid: id), route: nil))
    let first = h.request(
      1,
      .anchoredWorkoutQuery(bundleID: Self.bundleID, type: Self.workout, anchor: 0, range: nil, limit: 0, filter: nil),
      id: 2)
    guard case .anchoredWorkouts(let result) = Self.reply(first, id: 2) else { return }
    #expect(result.workouts.map(\.uuid) == [id])
    let again = h.request(
      1,
      .anchoredWorkoutQuery(
        bundleID: Self.bundleID, type: Self.workout, anchor: result.newAnchor, range: nil, limit: 0, filter: nil),
      id: 3)
    guard case .anchoredWorkouts(let next) = Self.reply(again, id: 3) else { return }
    #expect(next.workouts.isEmpty)
    #expect(next.deleted.isEmpty)
  }

  @Test("a heartbeat series is saved and queried back with its beats")
  func heartbeatSeries() throws {
    var h = Self.harness()
    let start = Self.start(h)
    let series = HeartbeatSeriesInput(
      uuid: UUID(), start: start, end: start.addingTimeInterval(10),
      beats: [Heartbeat(offset: 0), Heartbeat(offset: 0.9), Heartbeat(offset: 1.7, precededByGap: true)])
    #expect(Self.reply(h.request(1, .saveHeartbeatSeries(bundleID: Self.bundleID, series: series))) == .ok)
    let query = h.request(
      1, .heartbeatSeriesQuery(bundleID: Self.bundleID, query: SampleQuery(type: Self.series)), id: 2)
    guard case .heartbeatSeries(let found) = Self.reply(query, id: 2) else { return }
    #expect(found.map(\.uuid) == [series.uuid])
    #expect(found.first?.beats.count == 3)
  }
}
