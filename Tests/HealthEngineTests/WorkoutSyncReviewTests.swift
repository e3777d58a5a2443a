import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel

/// Delivers what `from` has logged and `to` has not applied yet.
private func deliver(_ from: DeviceState, _ to: inout DeviceState) -> [DeviceEvent] {
  to.receivePeerEntries(from.outboundEntries(after: to.sync.appliedFromPeer, maxItems: 10_000), wall: t0)
}

/// `events` through their journal encoding, applied to `state` (a daemon's replay after a restart).
private func replayed(_ events: [DeviceEvent], onto state: DeviceState) throws -> DeviceState {
  var fresh = state
  for event in events {
    var writer = BinaryWriter()
    writer.event(event)
    let decoded = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.event()
    }
    fresh.apply(decoded)
  }
  return fresh
}

@Suite("Workout sync: deletions, re-sends and replay keep a route with its workout (E4, E9)")
struct WorkoutSyncReviewTests {
  @Test("a workout deleted on the other device takes with it a route saved here that the other never saw")
  func peerDeletionTakesLocalRoutes() throws {
    var phone = try runDevice(.phone)
    var watch = try runDevice(.watch)
    let input = run()
    _ = try phone.saveWorkout(runApp.bundleID, input, route: nil, wall: t0)
    _ = deliver(phone, &watch)
    #expect(watch.workoutStore.workout(input.uuid) != nil)
    // The watch adds a route to the synced workout; before it reaches the phone, the phone deletes the workout.
    let late = route()
    _ = try watch.saveRoute(runApp.bundleID, late, workout: input.uuid, wall: t0)
    _ = try phone.delete(runApp.bundleID, [input.uuid], wall: t0)
    let before = watch
    let applied = deliver(phone, &watch)
    #expect(try replayed(applied, onto: before).differences(from: watch) == [], "replay differs")
    #expect(watch.workoutStore.workout(input.uuid) == nil)
    #expect(watch.workoutStore.routes.isEmpty, "a route outlived its workout")
    #expect(watch.workoutStore.deleted[late.uuid]?.value.type == routeType)
    // The route's deletion is an anchored-query deletion of the route type on the watch.
    let anchored = try watch.anchoredWorkoutQuery(
      runApp.bundleID, type: routeType, anchor: 1, range: nil, limit: 0, wall: t0)
    #expect(anchored.deleted.map(\.uuid).contains(late.uuid))
    // The route, sent before the watch heard of the deletion, does not appear on the phone either.
    _ = deliver(watch, &phone)
    #expect(phone.workoutStore.routes.isEmpty)
  }

  @Test("a log restart re-sends the samples associated with a workout the peer already holds")
  func resendCarriesAssociationsOfKnownWorkouts() throws {
    var phone = try runDevice(.phone)
    var watch = try runDevice(.watch)
    let first = heartRateInput(120)
    let later = heartRateInput(130, at: t0.addingTimeInterval(60))
    _ = try phone.save(runApp.bundleID, [first, later], wall: t0)
    let input = run(associated: [first.uuid])
    _ = try phone.saveWorkout(runApp.bundleID, input, route: nil, wall: t0)
    _ = deliver(phone, &watch)
    #expect(watch.workoutStore.workout(input.uuid)?.associated == [first.uuid])
    // Associated on the phone; the log restarts before the watch receives the association entry.
    _ = try phone.addSamples(runApp.bundleID, new: [], existing: [later.uuid], to: input.uuid, wall: t0)
    _ = phone.restartSyncLog(logID: 77)
    _ = watch.adoptPeerLog(77)
    let before = watch
    let applied = deliver(phone, &watch)
    #expect(watch.workoutStore.workout(input.uuid)?.associated == [first.uuid, later.uuid])
    #expect(try replayed(applied, onto: before).differences(from: watch) == [], "replay differs")
    // A second re-send changes nothing.
    _ = phone.restartSyncLog(logID: 78)
    _ = watch.adoptPeerLog(78)
    let again = deliver(phone, &watch)
    #expect(
      !again.contains { event in
        guard case .peerEntriesApplied(let entries, _) = event else { return false }
        return entries.contains { if case .workouts(let w) = $0.payload { !w.isEmpty } else { false } }
      })
  }
}
