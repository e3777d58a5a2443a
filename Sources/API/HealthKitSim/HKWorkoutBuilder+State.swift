import Foundation
import HealthModel

/// What an ``HKWorkoutBuilder`` has collected, and the checks of each call (the rules its doc comment lists). Every
/// mutating check throws before it changes anything, so a failed call leaves the state as it was.
struct BuilderState {
  /// Where the builder is in its life.
  enum Phase { case notStarted, collecting, ended, finished, discarded }

  /// One added quantity sample, as statistics need it (canonical unit).
  struct Quantity {
    let type: SampleType
    let cumulative: Bool
    let start: Date
    let end: Date
    let value: Double
  }

  var phase = Phase.notStarted
  var start: Date?
  var end: Date?
  var metadata: Metadata = [:]
  var events: [HKWorkoutEvent] = []
  var activities: [HKWorkoutActivity] = []
  var quantities: [Quantity] = []
  var associated: [UUID] = []
  var route: HKWorkoutRouteBuilder?

  private static func misuse(_ message: String) -> HKError { HKError(.errorInvalidArgument, message: message) }

  /// Fails unless collection began and the workout was neither finished nor discarded.
  func checkOpen(_ call: String) throws {
    switch phase {
    case .notStarted: throw Self.misuse("HKWorkoutBuilder: \(call) before beginCollection")
    case .finished: throw Self.misuse("HKWorkoutBuilder: \(call) after finishWorkout")
    case .discarded: throw Self.misuse("HKWorkoutBuilder: \(call) after discardWorkout")
    case .collecting, .ended: break
    }
  }

  mutating func begin(_ date: Date) throws {
    guard phase == .notStarted else { throw Self.misuse("HKWorkoutBuilder: beginCollection was already called") }
    start = date
    phase = .collecting
  }

  /// Checks samples before they are saved: open builder, none starting before the builder's start.
  func check(_ samples: [HKSample]) throws {
    try checkOpen("addSamples")
    guard let start else { return }
    if let early = samples.first(where: { $0.startDate < start }) {
      throw Self.misuse(
        "HKWorkoutBuilder: sample \(early.uuid.uuidString) starts at \(early.startDate), before the builder's start "
          + "date \(start)")
    }
  }

  /// Records saved samples: associated with the workout, quantities kept for statistics.
  mutating func record(_ samples: [HKSample]) {
    for sample in samples {
      associated.append(sample.uuid)
      guard let quantitySample = sample as? HKQuantitySample,
        let type = try? quantitySample.quantityType.simulatedType(),
        let unit = quantitySample.quantityType.canonicalUnit, quantitySample.quantity.is(compatibleWith: unit)
      else { continue }
      quantities.append(
        Quantity(
          type: type, cumulative: quantitySample.quantityType.aggregationStyle == .cumulative,
          start: sample.startDate, end: sample.endDate, value: quantitySample.quantity.doubleValue(for: unit)))
    }
  }

  mutating func add(_ new: [HKWorkoutEvent]) throws {
    try checkOpen("addWorkoutEvents")
    if let start, let early = new.first(where: { $0.dateInterval.start < start }) {
      throw Self.misuse("HKWorkoutBuilder: event \(early) is before the builder's start date \(start)")
    }
    if let wrong = new.first(where: { !$0.type.simulated.mayHaveDuration && $0.dateInterval.duration > 0 }) {
      throw Self.misuse("HKWorkoutBuilder: only lap and segment events may have a duration (\(wrong))")
    }
    events = (events + new).sorted { $0.dateInterval.start < $1.dateInterval.start }
  }

  mutating func merge(_ added: [String: Any]) throws {
    guard phase != .finished && phase != .discarded else {
      throw Self.misuse("HKWorkoutBuilder: addMetadata after the workout was finished or discarded")
    }
    metadata.merge(try Self.checked(added), uniquingKeysWith: { $1 })
  }

  mutating func add(_ activity: HKWorkoutActivity) throws {
    try checkOpen("addWorkoutActivity")
    if let last = activities.last {
      guard let lastEnd = last.endDate else {
        throw Self.misuse("Cannot add new activity before ending current activity.")
      }
      if activity.startDate < lastEnd {
        throw Self.misuse("HKWorkoutBuilder: activities may not overlap (this one starts before the last one ends)")
      }
    }
    if let start, activity.startDate < start {
      throw Self.misuse("HKWorkoutBuilder: the activity starts before the builder's start date \(start)")
    }
    if let end = activity.endDate, end < activity.startDate {
      throw Self.misuse("HKWorkoutBuilder: the activity ends before it starts")
    }
    _ = try Self.checked(activity.metadata ?? [:])
    activities.append(activity)
  }

  mutating func update(_ uuid: UUID, end newEnd: Date?, metadata added: [String: Any]?) throws {
    try checkOpen("updateActivity")
    guard let index = activities.firstIndex(where: { $0.uuid == uuid }) else {
      throw Self.misuse("HKWorkoutBuilder: no activity \(uuid.uuidString)")
    }
    let activity = activities[index]
    if let newEnd, newEnd < activity.startDate {
      throw Self.misuse("HKWorkoutBuilder: the activity's end is before its start")
    }
    var merged = (try? activity.metadataPayload.checked(api: "")) ?? [:]
    if let added { merged.merge(try Self.checked(added), uniquingKeysWith: { $1 }) }
    activities[index] = HKWorkoutActivity(activity, end: newEnd ?? activity.endDate, metadata: .valid(merged))
  }

  mutating func finishCollection(_ date: Date) throws {
    try checkOpen("endCollection")
    guard phase == .collecting else { throw Self.misuse("HKWorkoutBuilder: endCollection was already called") }
    if let start, date < start { throw Self.misuse("HKWorkoutBuilder: the end date is before the start date") }
    end = date
    phase = .ended
  }

  /// The workout to save and its route.
  func workout(configuration: HKWorkoutConfiguration, device: HKDevice?) throws -> (HKWorkout, RouteInput?) {
    try checkOpen("finishWorkout")
    guard phase == .ended, let start, let end else {
      throw Self.misuse("HKWorkoutBuilder: finishWorkout before endCollection")
    }
    let closed = activities.map { activity -> HKWorkoutActivity in
      let activityEnd = activity.endDate ?? end
      return HKWorkoutActivity(
        activity.withStatistics(statistics(from: activity.startDate, to: activityEnd)), end: activityEnd,
        metadata: activity.metadataPayload)
    }
    let workout = HKWorkout(
      uuid: .fresh(), activityType: configuration.activityType, start: start, end: end, events: events,
      activities: closed, statistics: statistics(from: nil, to: nil),
      metadata: MetadataPayload.valid(metadata).adding(device))
    return (workout, try route?.collected())
  }

  /// The statistics of the quantities whose start lies in `from`..<`to` (all when nil), by type.
  func statistics(from: Date?, to: Date?) -> [WorkoutStatistic] {
    var byType: [UInt16: [Quantity]] = [:]
    var order: [UInt16] = []
    for quantity in quantities {
      if let from, quantity.start < from { continue }
      if let to, quantity.start >= to { continue }
      if byType[quantity.type.code] == nil { order.append(quantity.type.code) }
      byType[quantity.type.code, default: []].append(quantity)
    }
    return order.map { code in
      let all = byType[code]!
      let first = all[0]
      let rangeStart = from ?? start ?? all.map(\.start).min()!
      let rangeEnd = to ?? end ?? all.map(\.end).max()!
      if first.cumulative {
        return WorkoutStatistic(type: first.type, start: rangeStart, end: rangeEnd, sum: all.map(\.value).reduce(0, +))
      }
      let values = all.map(\.value)
      let latest = all.max { $0.end < $1.end }!
      return WorkoutStatistic(
        type: first.type, start: rangeStart, end: rangeEnd, minimum: values.min(), maximum: values.max(),
        average: values.reduce(0, +) / Double(values.count), mostRecent: latest.value)
    }
  }

  /// `metadata` as the model holds it.
  /// - Throws: `HKError(.errorInvalidArgument)` for a value HealthKit refuses.
  static func checked(_ metadata: [String: Any]) throws -> Metadata {
    switch MetadataPayload(metadata) {
    case .valid(let values): return values
    case .invalid(let key, let typeName):
      throw misuse(
        "Invalid class \(typeName) for metadata key: \(key). Expected NSString, NSDate, NSNumber, or HKQuantity.")
    }
  }
}

extension HKWorkoutActivity {
  /// The activity with `statistics` (what a builder computes when it finishes).
  func withStatistics(_ statistics: [WorkoutStatistic]) -> HKWorkoutActivity {
    HKWorkoutActivity(
      uuid: uuid, configuration: workoutConfiguration, start: startDate, end: endDate, events: workoutEvents,
      metadata: metadataPayload, statistics: statistics)
  }
}
