import FoundationEssentials
import HealthModel

/// `SessionRegistry`: the app's calls on a session's `HKLiveWorkoutBuilder` and its data source (workouts.md §2.5,
/// §2.6), by session. Each fails with code 3 when the session has no builder (``associatedBuilder(_:)`` was never
/// called, or the session is mirrored).
extension SessionRegistry {
  fileprivate mutating func onBuilder<T>(
    _ id: WorkoutSessionID, _ call: String, _ body: (inout LiveWorkoutBuilder) throws(HealthError) -> T
  ) throws(HealthError) -> T {
    guard let result = try withBuilder(id, body) else {
      throw .healthKit(.errorInvalidArgument, "HKLiveWorkoutBuilder: \(call): session \(id) has no builder")
    }
    return result
  }

  /// `beginCollection(withStart:)` (``LiveWorkoutBuilder/beginCollection(at:)``).
  package mutating func beginCollection(_ id: WorkoutSessionID, at date: Date) throws(HealthError) {
    try onBuilder(id, "beginCollection") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      try builder.beginCollection(at: date)
    }
  }

  /// `endCollection(withEnd:)` (``LiveWorkoutBuilder/endCollection(at:)``).
  package mutating func endCollection(_ id: WorkoutSessionID, at date: Date) throws(HealthError) {
    try onBuilder(id, "endCollection") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      try builder.endCollection(at: date)
    }
  }

  /// `finishWorkout()`: the workout to save (``LiveWorkoutBuilder/finishWorkout(uuid:)``); the device saves it.
  package mutating func finishWorkout(_ id: WorkoutSessionID, uuid: UUID) throws(HealthError) -> WorkoutInput {
    try onBuilder(id, "finishWorkout") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      try builder.finishWorkout(uuid: uuid)
    }
  }

  /// `discardWorkout()` (``LiveWorkoutBuilder/discard()``).
  package mutating func discardWorkout(_ id: WorkoutSessionID) throws(HealthError) {
    try onBuilder(id, "discardWorkout") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      try builder.discard()
    }
  }

  /// `addWorkoutEvents(_:)`: the builder's delegate hears `didCollectEvent` for each.
  package mutating func addWorkoutEvents(_ id: WorkoutSessionID, _ events: [WorkoutEvent]) throws(HealthError)
    -> [SessionDirective]
  {
    let callbacks = try onBuilder(id, "addWorkoutEvents") {
      (builder: inout LiveWorkoutBuilder) throws(HealthError) -> [BuilderCallback] in
      try builder.add(events: events)
    }
    guard let app = sessions[id]?.app else { return [] }
    return deliver(callbacks.map { .builder(app: app, id: id, $0) })
  }

  /// `dataSource.enableCollection(for:predicate:)`.
  package mutating func enableCollection(_ id: WorkoutSessionID, _ type: SampleType, predicate: SampleFilter?)
    throws(HealthError)
  {
    try onBuilder(id, "enableCollection") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      builder.collection.enable(type, predicate: predicate)
    }
  }

  /// `dataSource.disableCollection(for:)`.
  package mutating func disableCollection(_ id: WorkoutSessionID, _ type: SampleType) throws(HealthError) {
    try onBuilder(id, "disableCollection") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      builder.collection.disable(type)
    }
  }

  /// `shouldCollectWorkoutEvents` (changing it after `beginCollection` is undefined in Apple's docs; here it
  /// applies to the events that follow).
  package mutating func setShouldCollectWorkoutEvents(_ id: WorkoutSessionID, _ value: Bool) throws(HealthError) {
    try onBuilder(id, "shouldCollectWorkoutEvents") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      builder.shouldCollectWorkoutEvents = value
    }
  }
}

extension SessionRegistry {
  /// `addMetadata(_:)` of the builder: merged like `addEntriesFromDictionary` (workouts.md §2.5).
  package mutating func addBuilderMetadata(_ id: WorkoutSessionID, _ metadata: Metadata) throws(HealthError) {
    try onBuilder(id, "addMetadata") { (builder: inout LiveWorkoutBuilder) throws(HealthError) in
      builder.metadata.merge(metadata) { _, new in new }
    }
  }
}
