import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

@Suite("Workouts saved while locked wait for the unlock (behavior.md E31)")
struct WorkoutLockTests {
  @Test func aWorkoutSavedWhileLockedWaitsWithItsSamplesThenMergesAfterThemAndSyncs() throws {
    var phone = try runDevice()
    var watch = try runDevice(.watch)
    _ = phone.lock(wall: t0)
    let beat = heartRateInput(140, at: t0.addingTimeInterval(60))
    _ = try phone.save(runApp.bundleID, [beat], wall: t0)
    let workout = run(associated: [beat.uuid])
    let events = try phone.saveWorkout(runApp.bundleID, workout, route: route(), wall: t0)
    #expect(DeviceState.isWaitingForUnlock(events))
    #expect(phone.lockedWorkouts.map(\.uuid) == [workout.uuid] && phone.lockedRoutes.count == 1)
    #expect(phone.workoutStore.workout(workout.uuid) == nil)
    #expect(phone.sync.lastSeq == 0, "nothing to send while the workout waits")
    // Checked when the app saves: a known identifier, a sample neither stored nor waiting.
    expectError(.errorInvalidArgument) { _ = try phone.saveWorkout(runApp.bundleID, workout, route: nil, wall: t0) }
    expectError(.errorInvalidArgument) {
      _ = try phone.saveWorkout(runApp.bundleID, run(associated: [UUID()]), route: nil, wall: t0)
    }
    let merge = phone.unlock(wall: t0)
    let kinds = merge.map { event -> String in
      switch event {
      case .deviceUnlocked: "unlocked"
      case .samplesSaved: "samples"
      case .workoutsSaved: "workouts"
      case .routesSaved: "routes"
      default: "other"
      }
    }
    #expect(kinds == ["unlocked", "samples", "workouts", "routes"])
    #expect(phone.lockedWorkouts.isEmpty && phone.lockedRoutes.isEmpty)
    #expect(phone.workoutStore.workout(workout.uuid)?.associated == [beat.uuid])
    #expect(phone.workoutStore.routes(of: workout.uuid).count == 1)
    deliver(phone, to: &watch)
    #expect(watch.workoutStore.workout(workout.uuid)?.associated == [beat.uuid])
    #expect(watch.workoutStore.routes(of: workout.uuid).count == 1)
  }

  @Test func anUnlockedSaveIsStoredAtOnceAndSaysSo() throws {
    var phone = try runDevice()
    let events = try phone.saveWorkout(runApp.bundleID, run(), route: nil, wall: t0)
    #expect(!DeviceState.isWaitingForUnlock(events))
    #expect(phone.workoutStore.workouts.count == 1)
  }

  @Test func aWorkoutWhoseSamplesDidNotSurviveTheMergeKeepsTheRest() throws {
    var phone = try runDevice()
    _ = phone.lock(wall: t0)
    var version1 = heartRateInput(120, at: t0.addingTimeInterval(30))
    version1.metadata = [MetadataKey.syncIdentifier: .string("beat"), MetadataKey.syncVersion: .int(1)]
    var version2 = heartRateInput(125, at: t0.addingTimeInterval(30))
    version2.metadata = [MetadataKey.syncIdentifier: .string("beat"), MetadataKey.syncVersion: .int(2)]
    let other = heartRateInput(130, at: t0.addingTimeInterval(90))
    _ = try phone.save(runApp.bundleID, [version1, other], wall: t0)
    _ = try phone.save(runApp.bundleID, [version2], wall: t0)
    let workout = run(associated: [version1.uuid, other.uuid])
    _ = try phone.saveWorkout(runApp.bundleID, workout, route: nil, wall: t0)
    _ = phone.unlock(wall: t0)
    // The merge keeps the later version of the synced sample (D10): the workout keeps what is stored.
    #expect(phone.workoutStore.workout(workout.uuid)?.associated == [other.uuid])
  }

  @Test func arraysWithWorkoutsWaitButCorrelationsStillFail() throws {
    var phone = try runDevice()
    _ = phone.lock(wall: t0)
    let beat = heartRateInput(140, at: t0.addingTimeInterval(60))
    let workout = run(associated: [beat.uuid])
    let events = try phone.saveObjects(
      runApp.bundleID, correlations: [], samples: [beat], workouts: [workout], wall: t0)
    #expect(DeviceState.isWaitingForUnlock(events))
    #expect(phone.lockedJournal.map(\.uuid) == [beat.uuid] && phone.lockedWorkouts.map(\.uuid) == [workout.uuid])
    _ = phone.unlock(wall: t0)
    #expect(phone.workoutStore.workout(workout.uuid)?.associated == [beat.uuid])
  }
}

@Suite("What waits for the unlock keeps its identifiers (E31)")
struct WorkoutLockIdentifierTests {
  /// A sample saved while locked cannot take the identifier of a workout or route waiting for the unlock: the
  /// workout `finishWorkout()` reported saved must not vanish at the merge.
  @Test func aLockedSaveCannotReuseAWaitingWorkoutsIdentifier() throws {
    var phone = try runDevice()
    _ = phone.lock(wall: t0)
    let workout = run()
    let path = route()
    _ = try phone.saveWorkout(runApp.bundleID, workout, route: path, wall: t0)
    for taken in [workout.uuid, path.uuid] {
      var clash = heartRateInput(120)
      clash.uuid = taken
      expectError(.errorInvalidArgument) { _ = try phone.save(runApp.bundleID, [clash], wall: t0) }
    }
    _ = phone.unlock(wall: t0)
    #expect(phone.workoutStore.workout(workout.uuid) != nil)
    #expect(phone.workoutStore.routes(of: workout.uuid).count == 1)
  }

  /// A workout naming a stored sample that a later version saved while locked replaces (D10) keeps only what is
  /// stored after the merge.
  @Test func theMergeDropsAssociationsWithSamplesItReplaces() throws {
    var phone = try runDevice()
    var v1 = heartRateInput(120, at: t0.addingTimeInterval(30))
    v1.metadata = [MetadataKey.syncIdentifier: .string("beat"), MetadataKey.syncVersion: .int(1)]
    _ = try phone.save(runApp.bundleID, [v1], wall: t0)
    _ = phone.lock(wall: t0)
    var v2 = heartRateInput(125, at: t0.addingTimeInterval(30))
    v2.metadata = [MetadataKey.syncIdentifier: .string("beat"), MetadataKey.syncVersion: .int(2)]
    _ = try phone.save(runApp.bundleID, [v2], wall: t0)
    let workout = run(associated: [v1.uuid, v2.uuid])
    _ = try phone.saveWorkout(runApp.bundleID, workout, route: nil, wall: t0)
    _ = phone.unlock(wall: t0)
    #expect(phone.store.liveSample(v1.uuid) == nil)
    #expect(phone.workoutStore.workout(workout.uuid)?.associated == [v2.uuid])
  }
}
