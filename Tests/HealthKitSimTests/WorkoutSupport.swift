import CoreLocation
import Foundation
import HealthKitSim
import HealthPairTesting

/// The types the workout tests share and read.
let workoutTypes: Set<HKSampleType> = [
  HKObjectType.workoutType(), HKSeriesType.workoutRoute(), HKSeriesType.heartbeat(),
  HKQuantityType(.distanceWalkingRunning), HKQuantityType(.activeEnergyBurned), heartRateType, stepsType,
]

extension HealthDevice {
  /// Has Water share and read the workout types (allowed).
  func authorizeWorkouts() async throws {
    try await authorize(
      waterID, share: workoutTypes,
      read: Set(workoutTypes.map { $0 as HKObjectType }).union([HKObjectType.activitySummaryType()]))
  }
}

/// A straight line of `count` fixes northwards from (48.85, 2.35), one a second from `start`, inserted backwards.
func routeFixes(_ count: Int, from start: Date = t0) -> [CLLocation] {
  (0..<count).reversed().map { i in
    CLLocation(
      coordinate: CLLocationCoordinate2D(latitude: 48.85 + Double(i) * 0.00003, longitude: 2.35), altitude: 30,
      horizontalAccuracy: 5, verticalAccuracy: 4, course: 0, courseAccuracy: 10, speed: 3.3, speedAccuracy: 0.5,
      timestamp: start + Double(i))
  }
}

func meters(_ value: Double, _ start: Date, _ end: Date) -> HKQuantitySample {
  HKQuantitySample(
    type: HKQuantityType(.distanceWalkingRunning), quantity: HKQuantity(unit: .meter(), doubleValue: value),
    start: start, end: end)
}

func beatsPerMinute(_ value: Double, at date: Date) -> HKQuantitySample {
  HKQuantitySample(
    type: heartRateType, quantity: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: value),
    start: date, end: date)
}

func runningConfiguration() -> HKWorkoutConfiguration {
  let configuration = HKWorkoutConfiguration()
  configuration.activityType = .running
  configuration.locationType = .outdoor
  return configuration
}
