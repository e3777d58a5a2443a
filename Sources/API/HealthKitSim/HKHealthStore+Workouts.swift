import Foundation
import HealthModel
import HealthPairClient

extension HKHealthStore {
  /// Associates `samples` with the saved `workout` (deprecated iOS 17 / watchOS 10: "Use HKWorkoutBuilder").
  ///
  /// The workout must already be saved. Samples not yet stored are saved for you (all or nothing with the
  /// association); stored ones — saved by this process or returned by a query — are associated as they are.
  /// Adding samples changes neither the workout's totals nor its duration (workouts.md §1.7).
  /// - Throws: ``HKError`` (4 or 5 as for `save`; `errorInvalidArgument` for a workout that is not stored or a
  ///   sample the save rules refuse); ``HKSimulatedTermination``; ``HealthKitSimError``.
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public func addSamples(_ samples: [HKSample], to workout: HKWorkout) async throws {
    let api = "HKHealthStore.addSamples(_:to:)"
    let session = try await Session.connected(api: api)
    try await session.performAsync(
      try Self.addOperation(samples, to: workout, bundleID: session.bundleID, api: api), api: api)
    Self.markSaved(samples)
  }

  /// As `addSamples(_:to:)`; `completion` receives whether the samples were added and the error, on a background
  /// queue (deprecated iOS 17 / watchOS 10).
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public func add(
    _ samples: [HKSample], to workout: HKWorkout, completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let api = "HKHealthStore.add(_:to:completion:)"
    let started = Result { () throws -> (Session, PendingOperation<Void>) in
      let session = try Session.current(api: api)
      let operation = try Self.addOperation(samples, to: workout, bundleID: session.bundleID, api: api)
      return (session, try session.start(operation, api: api))
    }
    deliver({
      let (session, pending) = try started.get()
      try await session.value(of: pending, api: api)
      Self.markSaved(samples)
    }) { result in completion(result.isSuccess, result.failure) }
  }

  /// The operation that saves the samples not yet stored and associates all of them with `workout`.
  static func addOperation(_ samples: [HKSample], to workout: HKWorkout, bundleID: String, api: String) throws
    -> DeviceOperation<Void>
  {
    let (new, existing) = try split(samples, api: api)
    return .addSamplesToWorkout(bundleID, workout: workout.uuid, samples: new, existing: existing)
  }

  /// The samples to save (not stored yet) and the identifiers of those stored.
  static func split(_ samples: [HKSample], api: String) throws -> (new: [SampleInput], existing: [UUID]) {
    var new: [SampleInput] = []
    var existing: [UUID] = []
    for sample in samples {
      if sample.isStored { existing.append(sample.uuid) } else { new.append(try sample.sampleInput(api: api)) }
    }
    return (new, existing)
  }
}
