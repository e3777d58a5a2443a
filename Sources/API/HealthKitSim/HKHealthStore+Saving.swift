import Foundation
import HealthModel
import HealthPairClient

extension HKHealthStore {
  /// Saves one object.
  /// - Throws: ``HKError`` (`errorAuthorizationNotDetermined` 5 before asking, `errorAuthorizationDenied` 4 when
  ///   denied, `errorInvalidArgument` 3 for a duplicate UUID or a sample before `earliestPermittedSampleDate()`);
  ///   ``HKSimulatedTermination`` for an object a device would refuse at construction; ``HealthKitSimError``.
  public func save(_ object: HKObject) async throws {
    try await save([object])
  }

  /// Saves objects, all or nothing: an array holding workouts is one request, checked whole before anything is
  /// stored (healthkit-semantics.md §4).
  /// - Throws: as `save(_:)` of one object; an empty array fails with `errorInvalidArgument`.
  public func save(_ objects: [HKObject]) async throws {
    let api = "HKHealthStore.save(_:)"
    let session = try await Session.connected(api: api)
    for operation in try Self.saveOperations(objects, bundleID: session.bundleID, api: api) {
      try await session.performAsync(operation, api: api)
    }
    Self.markSaved(objects)
  }

  /// The operations that save `objects`, all or nothing: an array of one special family is that family's save
  /// (`saveAudiograms`, `saveStatesOfMind`, `saveVisionPrescriptions`, `saveScoredAssessments`, `saveCDADocuments`);
  /// samples, correlations and workouts are ``saveOperation(_:bundleID:api:)``'s or `saveObjects`; an array mixing
  /// a special family with anything else is one `saveFamilies`.
  static func saveOperations(_ objects: [HKObject], bundleID: String, api: String) throws -> [DeviceOperation<Void>] {
    var audiograms: [AudiogramInput] = []
    var states: [StateOfMindInput] = []
    var prescriptions: [VisionPrescription] = []
    var assessments: [ScoredAssessmentInput] = []
    var documents: [CDADocument] = []
    var others: [HKObject] = []
    for object in objects {
      switch object {
      case let audiogram as HKAudiogramSample: audiograms.append(try audiogram.audiogramInput(api: api))
      case let state as HKStateOfMind: states.append(try state.stateOfMindInput(api: api))
      case let prescription as HKVisionPrescription: prescriptions.append(try prescription.prescriptionInput(api: api))
      case let assessment as HKScoredAssessment: assessments.append(try assessment.assessmentInput(api: api))
      case let document as HKCDADocumentSample: documents.append(try document.documentInput(api: api))
      default: others.append(object)
      }
    }
    let families = [audiograms.count, states.count, prescriptions.count, assessments.count, documents.count]
      .filter { $0 > 0 }.count
    if families == 0 || (families == 1 && others.isEmpty) {
      if !audiograms.isEmpty { return [.saveAudiograms(bundleID, audiograms)] }
      if !states.isEmpty { return [.saveStatesOfMind(bundleID, states)] }
      if !prescriptions.isEmpty { return [.saveVisionPrescriptions(bundleID, prescriptions)] }
      if !assessments.isEmpty { return [.saveScoredAssessments(bundleID, assessments)] }
      if !documents.isEmpty { return [.saveCDADocuments(bundleID, documents)] }
      return [try samplesOperation(others, bundleID: bundleID, api: api)]
    }
    let (samples, correlations, workouts) = try split(others, api: api)
    return [
      .saveFamilies(
        bundleID, samples: samples, correlations: correlations, workouts: workouts, audiograms: audiograms,
        statesOfMind: states, prescriptions: prescriptions, assessments: assessments, documents: documents)
    ]
  }

  /// The operation that saves samples, correlations and workouts: ``saveOperation(_:bundleID:api:)``'s, or
  /// `saveObjects` when any is a workout (all or nothing).
  static func samplesOperation(_ objects: [HKObject], bundleID: String, api: String) throws -> DeviceOperation<Void> {
    guard objects.contains(where: { $0 is HKWorkout }) else {
      return try saveOperation(objects, bundleID: bundleID, api: api)
    }
    let (samples, correlations, workouts) = try split(objects, api: api)
    return .saveObjects(bundleID, correlations: correlations, samples: samples, workouts: workouts)
  }

  /// The inputs of `objects` (samples, correlations and workouts), by kind, in order.
  private static func split(_ objects: [HKObject], api: String) throws
    -> (samples: [SampleInput], correlations: [CorrelationInput], workouts: [WorkoutInput])
  {
    var correlations: [CorrelationInput] = []
    var samples: [SampleInput] = []
    var workouts: [WorkoutInput] = []
    for object in objects {
      if let workout = object as? HKWorkout {
        workouts.append(try workout.workoutInput(api: api))
      } else if let correlation = object as? HKCorrelation {
        correlations.append(try correlation.correlationInput(api: api))
      } else {
        samples.append(try object.sampleInput(api: api))
      }
    }
    return (samples, correlations, workouts)
  }

  /// The operation that saves `objects`: `save` for samples, `saveCorrelations` when any is an ``HKCorrelation``
  /// (its objects are saved with it, all or nothing; docs/behavior.md T10).
  static func saveOperation(_ objects: [HKObject], bundleID: String, api: String) throws -> DeviceOperation<Void> {
    guard objects.contains(where: { $0 is HKCorrelation }) else {
      return .save(bundleID, try objects.map { try $0.sampleInput(api: api) })
    }
    var correlations: [CorrelationInput] = []
    var samples: [SampleInput] = []
    for object in objects {
      if let correlation = object as? HKCorrelation {
        correlations.append(try correlation.correlationInput(api: api))
      } else {
        samples.append(try object.sampleInput(api: api))
      }
    }
    return .saveCorrelations(bundleID, correlations, samples: samples)
  }

  /// Records that `objects` are stored, for later associations.
  static func markSaved(_ objects: [HKObject]) {
    for object in objects { object.savedHere.store(true, ordering: .relaxed) }
    for case let correlation as HKCorrelation in objects { markSaved(Array(correlation.objects)) }
  }

  /// Saves one object; `completion` receives whether it was saved and the error, on a background queue.
  public func save(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    save([object], withCompletion: completion)
  }

  /// Saves objects, all or nothing; `completion` receives whether they were saved and the error, on a background
  /// queue.
  public func save(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    let api = "HKHealthStore.save(_:withCompletion:)"
    // The first operation is sent now, so saves keep the caller's order; a workout's follows once it succeeded.
    let started = Result { () throws -> (Session, PendingOperation<Void>, [DeviceOperation<Void>]) in
      let session = try Session.current(api: api)
      let operations = try Self.saveOperations(objects, bundleID: session.bundleID, api: api)
      return (session, try session.start(operations[0], api: api), Array(operations.dropFirst()))
    }
    deliver({
      let (session, pending, rest) = try started.get()
      try await session.value(of: pending, api: api)
      for operation in rest { try await session.performAsync(operation, api: api) }
      Self.markSaved(objects)
    }) { result in completion(result.isSuccess, result.failure) }
  }

  /// Deletes one object the app saved.
  /// - Throws: ``HKError`` (5 or 4 as for saving; `errorAuthorizationDenied` for another app's object;
  ///   `errorInvalidArgument` for an object that is not stored); ``HealthKitSimError``.
  public func delete(_ object: HKObject) async throws {
    try await delete([object])
  }

  /// Deletes objects the app saved, all or nothing.
  /// - Throws: as `delete(_:)` of one object; an empty array fails with `errorInvalidArgument`.
  public func delete(_ objects: [HKObject]) async throws {
    let api = "HKHealthStore.delete(_:)"
    let session = try await Session.connected(api: api)
    try await session.performAsync(.delete(session.bundleID, objects.map(\.uuid)), api: api)
  }

  /// Deletes one object; `completion` receives whether it was deleted and the error, on a background queue.
  public func delete(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    delete([object], withCompletion: completion)
  }

  /// Deletes objects, all or nothing; `completion` receives whether they were deleted and the error, on a
  /// background queue.
  public func delete(
    _ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let api = "HKHealthStore.delete(_:withCompletion:)"
    let uuids = objects.map(\.uuid)
    let started = Result { () throws -> (Session, PendingOperation<Void>) in
      let session = try Session.current(api: api)
      return (session, try session.start(.delete(session.bundleID, uuids), api: api))
    }
    deliver({
      let (session, pending) = try started.get()
      try await session.value(of: pending, api: api)
    }) { result in completion(result.isSuccess, result.failure) }
  }
}

extension HKHealthStore {
  /// Deletes the app's own objects of `objectType` that match `predicate` (a date predicate, a source predicate,
  /// or both combined) and returns how many: objects other apps saved are never touched, and matching nothing is
  /// a success with 0.
  /// - Throws: ``HKError`` (5 or 4 as for saving); ``HealthKitSimError`` for a predicate HealthKitSim cannot read.
  public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate) async throws -> Int {
    let api = "HKHealthStore.deleteObjects(of:predicate:)"
    let session = try await Session.connected(api: api)
    guard let operation = try Self.deleteOperation(objectType, predicate, bundleID: session.bundleID) else { return 0 }
    return try await session.performAsync(operation, api: api)
  }

  /// Deletes the app's own objects of `objectType` that match `predicate`; `completion` receives whether the call
  /// succeeded, how many objects were deleted, and the error, on a background queue.
  public func deleteObjects(
    of objectType: HKObjectType, predicate: NSPredicate,
    withCompletion completion: @escaping @Sendable (Bool, Int, (any Error)?) -> Void
  ) {
    let api = "HKHealthStore.deleteObjects(of:predicate:withCompletion:)"
    let started = Result { () throws -> (Session, PendingOperation<Int>)? in
      let session = try Session.current(api: api)
      guard let operation = try Self.deleteOperation(objectType, predicate, bundleID: session.bundleID) else {
        return nil
      }
      return (session, try session.start(operation, api: api))
    }
    deliver({ () async throws -> Int in
      guard let (session, pending) = try started.get() else { return 0 }
      return try await session.value(of: pending, api: api)
    }) { result in
      switch result {
      case .success(let n): completion(true, n, nil)
      case .failure(let error): completion(false, 0, error)
      }
    }
  }

  /// The operation for a predicate delete, or nil when the predicate's sources exclude the app (nothing to do).
  private static func deleteOperation(_ objectType: HKObjectType, _ predicate: NSPredicate, bundleID: String) throws
    -> DeviceOperation<Int>?
  {
    let type = try objectType.simulatedType()
    let filter = try QueryFilter.decompose(predicate).get()
    if filter.extra != nil {
      throw HealthKitSimError.unsupported(
        "HealthKitSim's deleteObjects(of:predicate:) takes date and source predicates (and their conjunction)")
    }
    if let sources = filter.sources, !sources.contains(bundleID) { return nil }
    return .deleteMatching(bundleID, type: type, range: filter.range)
  }
}

extension Result {
  /// Whether the result is a success.
  var isSuccess: Bool {
    if case .success = self { return true }
    return false
  }

  /// The error of a failure.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
