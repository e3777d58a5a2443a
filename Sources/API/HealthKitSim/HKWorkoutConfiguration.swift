import Foundation
import HealthModel

/// Where a workout session takes place, with Apple's raw values (workouts.md §1.5).
public enum HKWorkoutSessionLocationType: Int, Hashable, Sendable, CaseIterable {
  /// Unknown (1).
  case unknown = 1
  /// Indoors (2).
  case indoor = 2
  /// Outdoors (3).
  case outdoor = 3
}

/// Where a swim takes place, with Apple's raw values (`HKMetadata.h`; workouts.md §1.5).
public enum HKWorkoutSwimmingLocationType: Int, Hashable, Sendable, CaseIterable {
  /// Unknown (0).
  case unknown = 0
  /// A pool (1).
  case pool = 1
  /// Open water (2).
  case openWater = 2
}

/// How a workout is configured: activity type, location, swimming location and pool lap length (iOS 10 /
/// watchOS 3).
///
/// A mutable class, as Apple's: ``copy()`` makes an independent configuration (an `HKWorkoutBuilder` keeps a copy,
/// so editing the one passed to it changes nothing, workouts.md §1.5). Not Sendable across threads while mutated;
/// declared `@unchecked Sendable` because Apple's is passed to background completion handlers.
public final class HKWorkoutConfiguration: NSObject, NSCopying, @unchecked Sendable {
  /// The activity type; `other` by default (HealthPair model: Apple's default is not documented).
  public var activityType: HKWorkoutActivityType = .other
  /// Indoor, outdoor or unknown (the default).
  public var locationType: HKWorkoutSessionLocationType = .unknown
  /// Pool, open water or unknown (the default).
  public var swimmingLocationType: HKWorkoutSwimmingLocationType = .unknown
  /// The pool's lap length (a length), for pool swims.
  public var lapLength: HKQuantity?

  /// A configuration of `other` at an unknown location.
  public override init() { super.init() }

  /// The configuration of a stored workout activity.
  init(_ configuration: WorkoutConfiguration) {
    activityType = HKWorkoutActivityType(configuration.activityType)
    locationType = HKWorkoutSessionLocationType(rawValue: configuration.location.rawValue) ?? .unknown
    swimmingLocationType = HKWorkoutSwimmingLocationType(rawValue: configuration.swimmingLocation.rawValue) ?? .unknown
    lapLength = configuration.lapLength.map { HKQuantity(unit: .meter(), doubleValue: $0) }
    super.init()
  }

  /// An independent copy.
  public func copy(with zone: NSZone? = nil) -> Any {
    let copy = HKWorkoutConfiguration()
    copy.activityType = activityType
    copy.locationType = locationType
    copy.swimmingLocationType = swimmingLocationType
    copy.lapLength = lapLength
    return copy
  }

  /// Equal when every field is.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKWorkoutConfiguration else { return false }
    return activityType == other.activityType && locationType == other.locationType
      && swimmingLocationType == other.swimmingLocationType && lapLength == other.lapLength
  }

  /// The hash of the activity and location types.
  public override var hash: Int { activityType.hashValue ^ locationType.hashValue }

  /// The configuration as the model holds it (the lap length in metres; one not a length is dropped).
  var simulated: WorkoutConfiguration {
    WorkoutConfiguration(
      activityType: activityType.simulated, location: WorkoutLocationType(rawValue: locationType.rawValue) ?? .unknown,
      swimmingLocation: SwimmingLocationType(rawValue: swimmingLocationType.rawValue) ?? .unknown,
      lapLength: lapLength.flatMap { $0.is(compatibleWith: .meter()) ? $0.doubleValue(for: .meter()) : nil })
  }
}
