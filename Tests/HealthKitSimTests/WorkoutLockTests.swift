import CoreLocation
import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("A workout finished while locked (behavior.md E31), against real daemons")
struct WorkoutLockTests {
  @Test func finishWorkoutOnALockedPhoneHandsBackNilAndTheWorkoutArrivesAtTheUnlock() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.watch.authorizeWorkouts()
      try pair.phone.lock()
      let store = HKHealthStore()
      let finished: HKWorkout? = try await pair.phone.use(app: waterID) {
        let builder = HKWorkoutBuilder(healthStore: store, configuration: runningConfiguration(), device: nil)
        try await builder.beginCollection(at: t0)
        let route = try #require(builder.seriesBuilder(for: .workoutRoute()) as? HKWorkoutRouteBuilder)
        try await route.insertRouteData(routeFixes(60))
        try await builder.addSamples([beatsPerMinute(120, at: t0 + 60), meters(800, t0, t0 + 300)])
        try await builder.endCollection(at: t0 + 300)
        return try await builder.finishWorkout()
      }
      #expect(finished == nil, "a locked device hands back no workout, and no error")
      await pair.phone.use(app: waterID) {
        await expectHKError(.errorDatabaseInaccessible) {
          _ = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
        }
      }
      try pair.phone.unlock()
      let stored = try await pair.phone.use(app: waterID) {
        try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
      }
      let workout = try #require(stored.first)
      #expect(stored.count == 1 && workout.workoutActivityType == .running)
      let associated = try await pair.phone.use(app: waterID) {
        try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: heartRateType, predicate: HKQuery.predicateForObjects(from: workout))],
          sortDescriptors: []
        ).result(for: store)
      }
      #expect(associated.count == 1)
      let routes = try await pair.phone.use(app: waterID) {
        try await HKSampleQueryDescriptor(
          predicates: [
            .sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))
          ],
          sortDescriptors: []
        ).result(for: store)
      }
      #expect(routes.count == 1)
      try await pair.waitForSync()
      let onWatch = try await pair.watch.use(app: waterID) {
        try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
      }
      #expect(onWatch.map(\.uuid) == [workout.uuid])
    }
  }
}
