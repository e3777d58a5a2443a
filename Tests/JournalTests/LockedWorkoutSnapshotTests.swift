import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal

@Suite("Workouts saved while locked are durable (behavior.md E31)")
struct LockedWorkoutSnapshotTests {
  /// A workout with its route saved while locked survives a snapshot and a full replay (with and without a pending
  /// re-send request, the trailer before it), and the unlock stores it on the restored device, as a replay does.
  @Test(arguments: [false, true])
  func aWaitingWorkoutSurvivesSnapshotAndReplayThenMergesAtTheUnlock(resend: Bool) throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let workoutType = SampleType.lookup(name: "workout")!
    let routeType = SampleType.lookup(name: "workoutRoute")!
    let workoutID = uuid(1, 7)
    do {
      let device = try DurableDevice(path: path, device: .phone)
      let d = Driver(device: device)
      try d.run(device.state.install(waterApp))
      try d.grant(waterApp.bundleID, share: [workoutType, routeType, heartRate], read: [workoutType, routeType])
      if resend { try d.run(device.state.requestPeerResend()) }
      try d.run(device.state.lock(wall: d.wall).events)
      let beat = input(heartRate, .quantity(130, unit: "count/min"), at: 60, for: 0, id: uuid(2, 7))
      try d.save(waterApp.bundleID, [beat])
      let run = WorkoutInput(
        uuid: workoutID, activityType: WorkoutActivityType(rawValue: 37), start: t0, end: t0.addingTimeInterval(600),
        associated: [beat.uuid])
      let route = RouteInput(
        uuid: uuid(3, 7),
        locations: [RouteLocation(timestamp: t0.addingTimeInterval(5), latitude: 48.85, longitude: 2.35)])
      try d.run(device.state.saveWorkout(waterApp.bundleID, run, route: route, wall: d.wall))
      #expect(device.state.lockedWorkouts.count == 1 && device.state.lockedRoutes.count == 1)
      #expect(try device.writeSnapshot() > 0)
    }
    let restored = try DurableDevice(path: path, device: .phone)
    let replayed = try DurableDevice(path: path, device: .phone, snapshots: false)
    #expect(restored.snapshotProblem == nil)
    #expect(restored.state.differences(from: replayed.state) == [])
    #expect(restored.state.lockedWorkouts.map(\.uuid) == [workoutID])
    #expect(restored.state.sync.resendRequested == resend)
    try restored.persist(restored.state.unlock(wall: t0))
    #expect(restored.state.workoutStore.workout(workoutID)?.associated == [uuid(2, 7)])
    #expect(restored.state.workoutStore.routes(of: workoutID).count == 1)
    #expect(restored.state.lockedWorkouts.isEmpty)
    // The merge replays as it ran: the same store, change numbers included.
    let merged = restored.state
    let replayedMerge = try DurableDevice(path: path, device: .phone, snapshots: false)
    #expect(replayedMerge.state.differences(from: merged) == [])
  }

  /// A snapshot with nothing waiting writes no trailer: it reads back with nothing waiting.
  @Test func aSnapshotWithNothingWaitingHasNoLockedTrailer() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    do {
      let device = try DurableDevice(path: path, device: .phone)
      try device.persist(device.state.install(waterApp))
      try device.persist(device.state.lock(wall: t0).events)
      #expect(try device.writeSnapshot() > 0)
    }
    let restored = try DurableDevice(path: path, device: .phone)
    #expect(restored.snapshotProblem == nil && restored.state.isLocked && restored.state.lockedWorkouts.isEmpty)
  }
}
