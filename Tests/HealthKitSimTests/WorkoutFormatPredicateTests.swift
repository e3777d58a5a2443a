import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// `NSPredicate(format:)` with the iOS 16 workout and activity key paths and the quantity sample key paths, as
/// published code writes them by hand: the same workouts as the `predicateForWorkouts` factories match.
@Suite("Workout key paths in NSPredicate(format:)")
struct WorkoutFormatPredicateTests {
  static func kcal(_ value: Double) -> HKQuantity { HKQuantity(unit: .kilocalorie(), doubleValue: value) }
  static let energy = HKQuantityTypeIdentifier.activeEnergyBurned.rawValue

  @Test func statisticsAndActivityKeyPathsMatchWhatTheFactoriesMatch() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let run = HKWorkout(
          activityType: .running, start: t0 - 7_200, end: t0 - 3_600, duration: 0, totalEnergyBurned: Self.kcal(500),
          totalDistance: nil, metadata: nil)
        let yoga = HKWorkout(
          activityType: .yoga, start: t0 - 1_000, end: t0 - 400, duration: 0, totalEnergyBurned: Self.kcal(40),
          totalDistance: nil, metadata: nil)
        try await store.save([run, yoga])
        func query(_ predicate: NSPredicate) async throws -> Set<UUID> {
          let found = try await HKSampleQueryDescriptor(
            predicates: [.workout(predicate)], sortDescriptors: []
          ).result(for: store)
          return Set(found.map(\.uuid))
        }
        let bySum = NSPredicate(
          format: "%K.%K > %@", HKPredicateKeyPathWorkoutSumQuantity, Self.energy, Self.kcal(100))
        let factory = HKQuery.predicateForWorkouts(
          operatorType: .greaterThan, quantityType: HKQuantityType(.activeEnergyBurned), sumQuantity: Self.kcal(100))
        #expect(try await query(bySum) == [run.uuid])
        #expect(try await query(factory) == [run.uuid])
        let literal = NSPredicate(format: "sumQuantity.HKQuantityTypeIdentifierActiveEnergyBurned <= %@", Self.kcal(40))
        #expect(try await query(literal) == [yoga.uuid])
        // Activity key paths, wrapped as Apple's activity predicates are, and under workoutActivity.
        let yogaActivity = NSPredicate(
          format: "%K == %d", HKPredicateKeyPathWorkoutActivityType, HKWorkoutActivityType.yoga.rawValue)
        #expect(try await query(HKQuery.predicateForWorkouts(activityPredicate: yogaActivity)) == [yoga.uuid])
        let long = NSPredicate(format: "%K > %f", HKPredicateKeyPathWorkoutActivityDuration, 1_000.0)
        #expect(try await query(HKQuery.predicateForWorkouts(activityPredicate: long)) == [run.uuid])
        let nested = NSPredicate(
          format: "%K.%K == %d", HKPredicateKeyPathWorkoutActivity, HKPredicateKeyPathWorkoutActivityType,
          HKWorkoutActivityType.running.rawValue)
        #expect(try await query(nested) == [run.uuid])
        let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [
          NSPredicate(format: "%K.%K >= %@", HKPredicateKeyPathWorkoutSumQuantity, Self.energy, Self.kcal(10)),
          NSPredicate(format: "%K < 900", HKPredicateKeyPathWorkoutDuration),
        ])
        #expect(try await query(compound) == [yoga.uuid])
      }
    }
  }

  /// The workout factories print their condition as a format `NSPredicate(format:)` reads back to the same one.
  @Test func theFactoriesPredicateFormatReadsBackToTheSameWorkouts() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let run = HKWorkout(
          activityType: .running, start: t0 - 7_200, end: t0 - 3_600, duration: 0, totalEnergyBurned: Self.kcal(500),
          totalDistance: nil, metadata: nil)
        let yoga = HKWorkout(
          activityType: .yoga, start: t0 - 1_000, end: t0 - 400, duration: 0, totalEnergyBurned: Self.kcal(40),
          totalDistance: nil, metadata: nil)
        try await store.save([run, yoga])
        func query(_ predicate: NSPredicate) async throws -> Set<UUID> {
          let found = try await HKSampleQueryDescriptor(predicates: [.workout(predicate)], sortDescriptors: [])
            .result(for: store)
          return Set(found.map(\.uuid))
        }
        let factories: [(NSPredicate, Set<UUID>)] = [
          (HKQuery.predicateForWorkouts(with: .yoga), [yoga.uuid]),
          (HKQuery.predicateForWorkouts(with: .greaterThan, duration: 1_000), [run.uuid]),
          (
            HKQuery.predicateForWorkouts(
              operatorType: .lessThan, quantityType: HKQuantityType(.activeEnergyBurned), sumQuantity: Self.kcal(100)),
            [yoga.uuid]
          ),
        ]
        for (factory, expected) in factories {
          #expect(try await query(factory) == expected, "\(factory.predicateFormat)")
          let readBack = NSPredicate(format: factory.predicateFormat)
          #expect(try await query(readBack) == expected, "\(factory.predicateFormat)")
        }
        #expect(HKQuery.predicateForWorkouts(with: .running).predicateFormat == "workoutType == 37")
        let either = NSPredicate(format: "workoutType IN {37, 57}")
        #expect(try await query(either) == [run.uuid, yoga.uuid])
      }
    }
  }

  @Test func quantitySampleKeyPathsReadAsTheSamplesOneQuantity() {
    let sample = water(250, at: t0)
    let milliliters = { (value: Double) in HKQuantity(unit: .literUnit(with: .milli), doubleValue: value) }
    for path in [HKPredicateKeyPathSum, HKPredicateKeyPathMin, HKPredicateKeyPathMax, HKPredicateKeyPathAverage,
      HKPredicateKeyPathMostRecent]
    {
      #expect(NSPredicate(format: "%K == %@", path, milliliters(250)).evaluate(with: sample), "\(path)")
      #expect(!NSPredicate(format: "%K > %@", path, milliliters(250)).evaluate(with: sample), "\(path)")
    }
    #expect(NSPredicate(format: "%K == 1", HKPredicateKeyPathCount).evaluate(with: sample))
    #expect(!NSPredicate(format: "%K > 1", HKPredicateKeyPathCount).evaluate(with: sample))
    let started = NSPredicate(format: "%K >= %@", HKPredicateKeyPathMostRecentStartDate, t0 as CVarArg)
    #expect(started.evaluate(with: sample))
  }
}
