import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// A watch whose run app may share and read workouts and what a run collects, its clock at `t0`.
private func sessionWatch(deniedHeartRate: Bool = false) throws -> DeviceState {
  var watch = makeDevice(.watch, apps: [runApp, waterApp])
  _ = try watch.setClock(t0)
  let types: Set<SampleType> = [workoutType, heartRate, activeEnergy, basalEnergy, runDistance]
  try watch.grant(runApp.bundleID, share: types, read: deniedHeartRate ? types.subtracting([heartRate]) : types)
  return watch
}

@Suite("Workout sessions run by the device: the live builder collects as the virtual clock moves")
struct DeviceSessionTests {
  @Test func aSessionCollectsWhileTheClockRunsSkipsThePauseAndSavesTheWorkout() throws {
    var watch = try sessionWatch()
    let id = try watch.createWorkoutSession(runApp.bundleID, uuid: UUID(), configuration: outdoorRun)
    _ = try watch.liveWorkoutBuilder(runApp.bundleID, id)
    _ = try watch.workoutSessionCommand(runApp.bundleID, id, .startActivity(t0), wall: t0)
    _ = try watch.beginLiveCollection(runApp.bundleID, id, at: t0, wall: t0)
    let moved = try watch.advanceClock(by: 60, wall: t0)
    let saved = moved.compactMap { if case .samplesSaved(let s) = $0 { s } else { nil } }.flatMap { $0 }
    #expect(saved.filter { $0.type == heartRate }.count == 12, "heart rate every 5 s for a minute")
    #expect(saved.allSatisfy { $0.source.bundleID == runApp.bundleID && $0.source.device == .watch })
    let collected = watch.takeSessionDirectives().compactMap {
      if case .builder(_, _, .didCollectDataOf(let types)) = $0 { types } else { nil }
    }
    #expect(collected.first?.contains(heartRate) == true)
    // Paused, nothing is collected.
    _ = try watch.workoutSessionCommand(runApp.bundleID, id, .pause, wall: t0)
    let paused = try watch.advanceClock(by: 60, wall: t0)
    #expect(!paused.contains { if case .samplesSaved = $0 { true } else { false } })
    _ = try watch.workoutSessionCommand(runApp.bundleID, id, .resume, wall: t0)
    _ = try watch.advanceClock(by: 30, wall: t0)
    let end = t0.addingTimeInterval(150)
    _ = try watch.workoutSessionCommand(runApp.bundleID, id, .stopActivity(end), wall: t0)
    _ = try watch.endLiveCollection(runApp.bundleID, id, at: end, wall: t0)
    let workoutID = UUID()
    _ = try watch.finishLiveWorkout(runApp.bundleID, id, uuid: workoutID, wall: t0)
    _ = try watch.workoutSessionCommand(runApp.bundleID, id, .end, wall: t0)
    let workout = try #require(watch.workoutStore.workout(workoutID))
    #expect(workout.duration == 90, "two running minutes and a half less the paused minute")
    let beats = workout.associated.compactMap { watch.store.liveSample($0) }.filter { $0.type == heartRate }
    #expect(beats.count == 18, "12 before the pause, 6 after")
    #expect(watch.live.registry.active == nil)
  }

  @Test func theSameSessionGivesTheSameSamplesHoweverTheClockIsStepped() throws {
    func run(_ steps: [Double]) throws -> [Sample] {
      var watch = try sessionWatch()
      let id = try watch.createWorkoutSession(
        runApp.bundleID, uuid: UUID(uuidString: "6F1B2C3D-4E5F-4061-8728-394A5B6C7D8E")!, configuration: outdoorRun)
      _ = try watch.liveWorkoutBuilder(runApp.bundleID, id)
      _ = try watch.workoutSessionCommand(runApp.bundleID, id, .startActivity(t0), wall: t0)
      _ = try watch.beginLiveCollection(runApp.bundleID, id, at: t0, wall: t0)
      var out: [Sample] = []
      for step in steps {
        for case .samplesSaved(let s) in try watch.advanceClock(by: step, wall: t0) { out += s }
      }
      return out
    }
    let whole = try run([300])
    #expect(!whole.isEmpty)
    #expect(try run([1, 59, 0.5, 239.5]) == whole)
  }

  @Test func heartRateReadDeniedRunsTheSessionWithoutHeartRate() throws {
    var watch = try sessionWatch(deniedHeartRate: true)
    let id = try watch.createWorkoutSession(runApp.bundleID, uuid: UUID(), configuration: outdoorRun)
    _ = try watch.liveWorkoutBuilder(runApp.bundleID, id)
    _ = try watch.workoutSessionCommand(runApp.bundleID, id, .startActivity(t0), wall: t0)
    _ = try watch.beginLiveCollection(runApp.bundleID, id, at: t0, wall: t0)
    let saved = try watch.advanceClock(by: 60, wall: t0).compactMap {
      if case .samplesSaved(let s) = $0 { s } else { nil }
    }.flatMap { $0 }
    #expect(!saved.isEmpty && !saved.contains { $0.type == heartRate })
    #expect(watch.live.registry.session(id)?.state == .running)
  }

  @Test func anotherAppsSessionIsNotYours() throws {
    var watch = try sessionWatch()
    let id = try watch.createWorkoutSession(runApp.bundleID, uuid: UUID(), configuration: outdoorRun)
    expectError(.errorInvalidArgument) {
      _ = try watch.workoutSessionCommand(waterApp.bundleID, id, .prepare, wall: t0)
    }
  }
}
