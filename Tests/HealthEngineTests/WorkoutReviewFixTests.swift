import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

@Suite("Workouts: review fixes (atomic mixed saves, locked saves, activity types, refused entries)")
struct WorkoutReviewFixTests {
  @Test func aMixedSaveStoresNothingWhenTheWorkoutIsRefused() throws {
    var device = makeDevice(.phone, apps: [runApp])
    try device.grant(runApp.bundleID, share: [heartRate], read: [heartRate])
    let sample = heartRateInput(120)
    expectError(.errorAuthorizationNotDetermined) {
      _ = try device.saveObjects(runApp.bundleID, correlations: [], samples: [sample], workouts: [run()], wall: t0)
    }
    #expect(device.store.liveSample(sample.uuid) == nil)
    device = try runDevice()
    var invalid = run()
    invalid.end = invalid.start.addingTimeInterval(-1)
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try device.saveObjects(runApp.bundleID, correlations: [], samples: [sample], workouts: [invalid], wall: t0)
    }
    expectError(.errorInvalidArgument) {
      _ = try device.saveObjects(
        runApp.bundleID, correlations: [], samples: [sample], workouts: [run(associated: [UUID()])], wall: t0)
    }
    #expect(device.store.liveSample(sample.uuid) == nil && device.workoutStore.workouts.isEmpty)
    let workout = run(associated: [sample.uuid])
    let events = try device.saveObjects(
      runApp.bundleID, correlations: [], samples: [sample], workouts: [workout], wall: t0)
    #expect(events.count == 2)
    #expect(device.store.liveSample(sample.uuid) != nil)
    #expect(device.workoutStore.workout(workout.uuid)?.associated == [sample.uuid])
  }
}
