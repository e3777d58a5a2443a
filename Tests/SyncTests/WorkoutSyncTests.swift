import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Wire

private let t0 = Date(timeIntervalSince1970: 1_767_600_000)
private let workoutType = SampleType.lookup(name: "workout")!
private let routeType = SampleType.lookup(name: "workoutRoute")!
private let heartRate = SampleType.lookup(name: "heartRate")!
private let app = AppRecord(
  bundleID: "com.example.run", displayName: "Run", writeUsageDescription: "w", readUsageDescription: "r")

private func device(_ kind: DeviceKind) throws -> DeviceState {
  var state = DeviceState(device: kind)
  _ = try state.setClock(t0)
  _ = try state.install(app)
  let types: Set<SampleType> = [workoutType, routeType, heartRate]
  guard case .prompt(let prompt) = try state.requestAuthorization(app.bundleID, share: types, read: types, wall: t0)
  else { throw HealthError.simulator("expected a sheet") }
  _ = try state.answerPrompt(id: prompt.id, bundleID: nil, answer: .allowAll)
  return state
}

/// The entries of `from` after `seq`, through the peer link's encoding.
private func carried(_ from: DeviceState, after seq: UInt64 = 0) throws -> [SyncEntry] {
  let entries = from.outboundEntries(after: seq, maxItems: 10_000)
  guard case .entries(let decoded) = try PeerMessage.decode(PeerMessage.entries(entries).encoded()) else {
    throw HealthError.simulator("not an entries message")
  }
  #expect(decoded == entries)
  return decoded
}

private func workout(at start: Date, associated: [UUID] = []) -> WorkoutInput {
  WorkoutInput(
    uuid: UUID(), activityType: WorkoutActivityType(rawValue: 37), start: start, end: start.addingTimeInterval(1200),
    associated: associated)
}

private func route(at start: Date) -> RouteInput {
  RouteInput(uuid: UUID(), locations: [RouteLocation(timestamp: start, latitude: 1, longitude: 2)])
}

@Suite("Workouts across the pair (issue 32, workouts.md §3.6)")
struct WorkoutSyncTests {
  @Test func aWatchWorkoutReachesThePhoneAsAUnitInLogOrder() throws {
    var watch = try device(.watch)
    var phone = try device(.phone)
    let start = t0.addingTimeInterval(-3600)
    let hr = SampleInput(
      uuid: UUID(), type: heartRate, value: .quantity(120, unit: "count/min"), start: start, end: start)
    _ = try watch.save(app.bundleID, [hr], wall: t0)
    let input = workout(at: start, associated: [hr.uuid])
    _ = try watch.saveWorkout(app.bundleID, input, route: route(at: start), wall: t0)
    let entries = try carried(watch)
    // Samples, then the workout, then its route.
    let kinds = entries.map { entry -> String in
      switch entry.payload {
      case .samples: "samples"
      case .workouts: "workouts"
      case .routes: "routes"
      default: "other"
      }
    }
    #expect(kinds == ["samples", "workouts", "routes"])
    _ = phone.receivePeerEntries(entries, wall: t0)
    let mirrored = try phone.workoutQuery(app.bundleID, SampleQuery(type: workoutType), wall: t0)
    #expect(mirrored.map(\.uuid) == [input.uuid] && mirrored[0].source.device == .watch)
    #expect(mirrored[0].associated == [hr.uuid])
    let associated = SampleQuery(type: heartRate, filter: .associatedWith(input.uuid))
    #expect(try phone.sampleQuery(app.bundleID, associated, wall: t0).count == 1)
    #expect(try phone.routeQuery(app.bundleID, workout: input.uuid, SampleQuery(type: routeType), wall: t0).count == 1)
    #expect(phone.receivePeerEntries(entries, wall: t0).isEmpty, "a re-delivery applies nothing")
    // Deleting on the watch deletes the workout and its route on the phone.
    _ = try watch.delete(app.bundleID, [input.uuid], wall: t0)
    _ = phone.receivePeerEntries(try carried(watch, after: UInt64(entries.count)), wall: t0)
    #expect(phone.workoutStore.workouts.isEmpty && phone.workoutStore.routes.isEmpty)
    #expect(try phone.sampleQuery(app.bundleID, SampleQuery(type: heartRate), wall: t0).count == 1, "samples stay")
  }

  @Test func aWorkoutSavedOnBothDevicesIsTwoWorkouts() throws {
    var watch = try device(.watch)
    var phone = try device(.phone)
    let start = t0.addingTimeInterval(-3600)
    _ = try watch.saveWorkout(app.bundleID, workout(at: start), route: nil, wall: t0)
    _ = try phone.saveWorkout(app.bundleID, workout(at: start), route: nil, wall: t0)
    _ = phone.receivePeerEntries(try carried(watch), wall: t0)
    _ = watch.receivePeerEntries(try carried(phone), wall: t0)
    for side in [phone, watch] {
      let all = try side.workoutQuery(app.bundleID, SampleQuery(type: workoutType), wall: t0)
      #expect(all.count == 2 && Set(all.map(\.source.device)) == [.phone, .watch])
    }
  }

  @Test func aRouteWhoseWorkoutIsNotHereIsRefusedAndARestartResendsWorkouts() throws {
    var watch = try device(.watch)
    var phone = try device(.phone)
    let start = t0.addingTimeInterval(-3600)
    let input = workout(at: start)
    _ = try phone.saveWorkout(app.bundleID, input, route: nil, wall: t0)
    _ = try phone.saveRoute(app.bundleID, route(at: start), workout: input.uuid, wall: t0)
    let entries = try carried(phone)
    // The route's entry alone (its workout never reached the watch): refused, the same way on every replay.
    let routesOnly = entries.filter { if case .routes = $0.payload { true } else { false } }
    #expect(routesOnly.count == 1)
    var lonely = try device(.watch)
    _ = lonely.receivePeerEntries([SyncEntry(seq: 1, payload: routesOnly[0].payload)], wall: t0)
    #expect(lonely.workoutStore.routes.isEmpty)
    // A restarted log re-sends the live workout and route, in order.
    _ = phone.restartSyncLog(logID: 99)
    _ = watch.receivePeerEntries(try carried(phone), wall: t0)
    #expect(watch.workoutStore.workouts.count == 1 && watch.workoutStore.routes.count == 1)
  }

  @Test func theWatchLeavesOutWorkoutsOlderThanItsWindow() throws {
    var watch = try device(.watch)
    var phone = try device(.phone)
    _ = try phone.saveWorkout(app.bundleID, workout(at: t0.addingTimeInterval(-20 * 86_400)), route: nil, wall: t0)
    _ = try phone.saveWorkout(app.bundleID, workout(at: t0.addingTimeInterval(-3600)), route: nil, wall: t0)
    _ = watch.receivePeerEntries(try carried(phone), wall: t0)
    #expect(watch.workoutStore.workouts.count == 1)
  }
}
