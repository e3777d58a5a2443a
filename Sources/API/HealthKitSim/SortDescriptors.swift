import Foundation
import HealthEngine

/// The sort key of a sample's start date (`"startDate"`).
public let HKSampleSortIdentifierStartDate = "startDate"
/// The sort key of a sample's end date (`"endDate"`).
public let HKSampleSortIdentifierEndDate = "endDate"

extension NSSortDescriptor {
  /// A sort descriptor for a sample query: `NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)`.
  ///
  /// swift-corelibs-foundation has no key-value coding, so HealthKitSim maps HealthKit's sort identifiers to key
  /// paths of ``HKSample`` (and of ``HKWorkout`` for the workout sort identifiers, which only workout queries
  /// accept); a query given any other key fails with `HKError(.errorInvalidArgument)`.
  public convenience init(key: String, ascending: Bool) {
    switch key {
    case HKSampleSortIdentifierStartDate: self.init(keyPath: \HKSample.startDate, ascending: ascending)
    case HKSampleSortIdentifierEndDate: self.init(keyPath: \HKSample.endDate, ascending: ascending)
    case HKWorkoutSortIdentifierDuration: self.init(keyPath: \HKWorkout.duration, ascending: ascending)
    case HKWorkoutSortIdentifierTotalDistance: self.init(keyPath: \HKWorkout.sortTotalDistance, ascending: ascending)
    case HKWorkoutSortIdentifierTotalEnergyBurned:
      self.init(keyPath: \HKWorkout.sortTotalEnergyBurned, ascending: ascending)
    case HKWorkoutSortIdentifierTotalSwimmingStrokeCount:
      self.init(keyPath: \HKWorkout.sortTotalSwimmingStrokeCount, ascending: ascending)
    case HKWorkoutSortIdentifierTotalFlightsClimbed:
      self.init(keyPath: \HKWorkout.sortTotalFlightsClimbed, ascending: ascending)
    default: self.init(keyPath: \HKSample.unsupportedSortKey, ascending: ascending)
    }
  }
}

extension SampleSort {
  /// The daemon's sort keys for a query's sort descriptors.
  /// - Throws: `HKError(.errorInvalidArgument)` for a descriptor that does not sort by start or end date.
  static func from(_ descriptors: [NSSortDescriptor]?) -> Result<[SampleSort], any Error> {
    Result {
      try (descriptors ?? []).map { descriptor in
        let path = descriptor.keyPath
        if path == \HKSample.startDate || path == \HKQuantitySample.startDate || path == \HKCategorySample.startDate {
          return SampleSort(.startDate, ascending: descriptor.ascending)
        }
        if path == \HKSample.endDate || path == \HKQuantitySample.endDate || path == \HKCategorySample.endDate {
          return SampleSort(.endDate, ascending: descriptor.ascending)
        }
        throw HKError(
          .errorInvalidArgument,
          message: "Unsupported sort descriptor \(descriptor): sample queries sort by HKSampleSortIdentifierStartDate "
            + "or HKSampleSortIdentifierEndDate")
      }
    }
  }
}
