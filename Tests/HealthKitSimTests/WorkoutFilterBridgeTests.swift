import Foundation
import HealthKitSim
import HealthPairTesting
import PublishedStyles
import Testing

/// Sources/Examples/PublishedStyles/WorkoutFilterBridge.swift (plugin-style code filtering workouts with hand-written
/// workout key path formats), unchanged, against a real pair.
@Suite("Published-style plugin bridge (WorkoutFilterBridge), against real daemons")
struct WorkoutFilterBridgeTests {
  @available(*, deprecated)
  @Test func handWrittenWorkoutKeyPathsFilterAsThePluginAsks() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let kcal = { (value: Double) in HKQuantity(unit: .kilocalorie(), doubleValue: value) }
        let run = HKWorkout(
          activityType: .running, start: t0 - 7_200, end: t0 - 3_600, duration: 0, totalEnergyBurned: kcal(500),
          totalDistance: nil, metadata: nil)
        let yoga = HKWorkout(
          activityType: .yoga, start: t0 - 1_000, end: t0 - 400, duration: 0, totalEnergyBurned: kcal(40),
          totalDistance: nil, metadata: nil)
        try await HKHealthStore().save([run, yoga])
        let bridge = WorkoutFilterBridge()
        func call(_ method: String, _ arguments: [String: Any]) async throws -> ([String], String?) {
          let answer = Mailbox<([String], String?)>()
          bridge.handle(method: method, arguments: arguments) { rows, error in
            answer.post(((rows ?? []).compactMap { $0["uuid"] as? String }, error?.code))
          }
          return try #require(try await answer.next())
        }
        #expect(try await call("workouts", [:]).0 == [yoga.uuid.uuidString, run.uuid.uuidString])
        #expect(try await call("workouts", ["minKilocalories": 100.0]).0 == [run.uuid.uuidString])
        let yogaRaw = Int(HKWorkoutActivityType.yoga.rawValue)
        #expect(try await call("workouts", ["activityType": yogaRaw]).0 == [yoga.uuid.uuidString])
        #expect(try await call("workouts", ["minMinutes": 30.0, "minKilocalories": 10.0]).0 == [run.uuid.uuidString])
        #expect(try await call("workouts", ["minAverageHeartRate": 120.0]).0.isEmpty, "no heart rate was added")
        #expect(try await call("rings", ["from": "2026-01-01", "to": "2026-01-05"]).1 == nil)
        #expect(try await call("rings", ["from": "yesterday"]).1 == "ARGUMENT_ERROR")
        #expect(try await call("laps", [:]).1 == "UNKNOWN_METHOD")
      }
    }
  }
}
