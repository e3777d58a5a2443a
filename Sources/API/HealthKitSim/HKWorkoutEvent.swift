import Foundation
import HealthModel

/// The type of a workout event, with Apple's raw values (`HKWorkout.h`; workouts.md §1.3).
public enum HKWorkoutEventType: Int, Hashable, Sendable, CaseIterable {
  /// The workout paused (1).
  case pause = 1
  /// The workout resumed (2).
  case resume = 2
  /// A lap (3, iOS 10 / watchOS 3); may span an interval.
  case lap = 3
  /// An arbitrary point of interest (4, iOS 10 / watchOS 3).
  case marker = 4
  /// The device detected that the user stopped moving (5, iOS 10 / watchOS 3).
  case motionPaused = 5
  /// The device detected that the user moves again (6, iOS 10 / watchOS 3).
  case motionResumed = 6
  /// A segment (7, iOS 11 / watchOS 4); may span an interval.
  case segment = 7
  /// The user asked to pause or resume (8, iOS 11 / watchOS 4).
  case pauseOrResumeRequest = 8

  /// The model's event type.
  package var simulated: WorkoutEventType { WorkoutEventType(rawValue: rawValue)! }
}

/// Something that happened during a workout: a pause, a resume, a lap, a marker, a segment.
///
/// Only laps and segments may span an interval; an event of another type with a non-zero interval makes the save
/// of its workout fail (HealthPair model of Apple's "Most event types only support date intervals with zero
/// duration", `HKWorkout.h`). Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKWorkoutEvent: NSObject, NSCopying, @unchecked Sendable {
  /// The event type.
  public let type: HKWorkoutEventType
  /// When the event happened (a zero-length interval except for laps and segments; iOS 11).
  public let dateInterval: DateInterval
  /// The metadata as the simulator holds it.
  let metadataPayload: MetadataPayload

  /// An event over `dateInterval` with optional metadata (iOS 11 / watchOS 4).
  public init(type: HKWorkoutEventType, dateInterval: DateInterval, metadata: [String: Any]?) {
    self.type = type
    self.dateInterval = dateInterval
    self.metadataPayload = MetadataPayload(metadata)
    super.init()
  }

  /// An event at `date` (deprecated iOS 11 / watchOS 4: use `init(type:dateInterval:metadata:)`).
  @available(*, deprecated, message: "Use init(type:dateInterval:metadata:)")
  public convenience init(type: HKWorkoutEventType, date: Date) {
    self.init(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)
  }

  /// An event at `date` with metadata (deprecated iOS 11 / watchOS 4: use `init(type:dateInterval:metadata:)`).
  @available(*, deprecated, message: "Use init(type:dateInterval:metadata:)")
  public convenience init(type: HKWorkoutEventType, date: Date, metadata: [String: Any]) {
    self.init(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: metadata)
  }

  /// The event of a stored workout.
  init(_ event: WorkoutEvent) {
    self.type = HKWorkoutEventType(rawValue: event.type.rawValue) ?? .marker
    self.dateInterval = DateInterval(start: event.start, end: max(event.start, event.end))
    self.metadataPayload = .valid(event.metadata)
    super.init()
  }

  /// The start of ``dateInterval`` (deprecated iOS 11 / watchOS 4: use `dateInterval`).
  @available(*, deprecated, renamed: "dateInterval")
  public var date: Date { dateInterval.start }

  /// The metadata, or nil when there is none.
  public var metadata: [String: Any]? { metadataPayload.dictionary }

  /// The event itself: it is immutable.
  public func copy(with zone: NSZone? = nil) -> Any { self }

  /// Equal when the type, interval and metadata are.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKWorkoutEvent else { return false }
    return type == other.type && dateInterval == other.dateInterval && metadataPayload == other.metadataPayload
  }

  /// The hash of the type and interval.
  public override var hash: Int {
    var hasher = Hasher()
    hasher.combine(type)
    hasher.combine(dateInterval)
    return hasher.finalize()
  }

  /// `HKWorkoutEvent pause 2026-12-02 08:10:00 +0000 - 2026-12-02 08:10:00 +0000`.
  public override var description: String {
    "HKWorkoutEvent \(type.simulated) \(dateInterval.start) - \(dateInterval.end)"
  }

  /// The event as the model holds it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses.
  func model(api: String) throws -> WorkoutEvent {
    WorkoutEvent(
      type: type.simulated, start: dateInterval.start, end: dateInterval.end,
      metadata: try metadataPayload.checked(api: api))
  }
}
