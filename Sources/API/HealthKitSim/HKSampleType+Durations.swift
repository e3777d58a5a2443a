import Foundation
import HealthModel

extension HKSampleType {
  /// Whether samples of the type have a longest duration (most do: 4 days, longer for cycle-tracking and event
  /// types; behavior.md T14).
  public var isMaximumDurationRestricted: Bool { (try? simulatedType())?.descriptor.maximumDuration != nil }

  /// The longest a sample of the type may last, in seconds. HealthKit raises for a type without a limit;
  /// HealthKitSim returns `.infinity`.
  public var maximumAllowedDuration: TimeInterval { (try? simulatedType())?.descriptor.maximumDuration ?? .infinity }

  /// Whether samples of the type have a shortest duration (the two audio exposure types: 1 ms).
  public var isMinimumDurationRestricted: Bool { minimumAllowedDuration > 0 }

  /// The shortest a sample of the type may last, in seconds; 0 for an unrestricted type, as HealthKit returns.
  public var minimumAllowedDuration: TimeInterval { (try? simulatedType())?.descriptor.minimumDuration ?? 0 }

  /// Whether Apple's estimates of the type can be recalibrated (six-minute walk distance only).
  public var allowsRecalibrationForEstimates: Bool {
    (try? simulatedType())?.descriptor.allowsRecalibrationForEstimates ?? false
  }
}
