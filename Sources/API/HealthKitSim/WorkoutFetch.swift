import Foundation
import HealthEngine
import HealthModel

/// Sample queries of the workout family's types: workouts (``HKWorkout``), routes (``HKWorkoutRoute``) and
/// heartbeat series (``HKHeartbeatSeriesSample``), which the daemon stores apart from quantity and category samples.
enum WorkoutFetch {
  /// Whether `type` is one of the family's (a sample query of it goes through
  /// ``objects(_:type:filter:limit:descriptors:)``).
  static func handles(_ type: HKObjectType) -> Bool {
    type is HKWorkoutType || type is HKSeriesType
  }

  /// Whether an anchored or observer query of `type` goes through ``changes(_:type:since:filter:limit:api:)``: the
  /// workout family's types, electrocardiograms, audiograms, States of Mind, vision prescriptions, scored
  /// assessments, CDA documents, medication dose events and the clinical types.
  static func anchorsApart(_ type: HKObjectType) -> Bool {
    handles(type) || type is HKElectrocardiogramType || type is HKAudiogramSampleType || type is HKStateOfMindType
      || type is HKPrescriptionType || type is HKClinicalType || type is HKScoredAssessmentType
      || type is HKDocumentType || type is HKMedicationDoseEventType
  }

  /// Whether a sample query of `type` goes through ``objects(_:type:filter:limit:descriptors:)``: the workout
  /// family's types, electrocardiograms, audiograms, States of Mind, clinical records, vision prescriptions, scored
  /// assessments, CDA documents and medication dose events (stored apart from samples too; a sample query's documents
  /// carry no content).
  static func fetchesApart(_ type: HKObjectType) -> Bool {
    handles(type) || type is HKElectrocardiogramType || type is HKAudiogramSampleType || type is HKStateOfMindType
      || type is HKClinicalType || type is HKPrescriptionType || type is HKScoredAssessmentType
      || type is HKDocumentType || type is HKMedicationDoseEventType
  }

  /// The objects of `type` passing `filter`, sorted by `descriptors` and limited, from the current device.
  ///
  /// Workouts may be sorted by the workout sort identifiers (duration, totals) as well as by dates: those are
  /// sorted here, after the daemon's answer, so the limit applies after sorting. A route query's
  /// `predicateForObjects(from: workout)` names the workout whose route is read.
  /// - Throws: what a sample query's handler would receive.
  static func objects(
    _ session: Session, type: HKObjectType, filter: QueryFilter, limit: Int, descriptors: [NSSortDescriptor]?
  ) throws -> [HKSample] {
    let api = HKSampleQuery.api
    let dateSort = SampleSort.from(descriptors)
    let sortHere = (try? dateSort.get()) == nil
    let query = try filter.sampleQuery(
      of: type, limit: sortHere ? HKObjectQueryNoLimit : limit, sort: sortHere ? [] : try dateSort.get())
    var objects: [HKSample]
    switch type {
    case is HKWorkoutType:
      objects = try session.perform(.workoutQuery(session.bundleID, query), api: api).map { HKWorkout($0) }
    case is HKElectrocardiogramType:
      objects = try session.perform(.electrocardiogramQuery(session.bundleID, query), api: api)
        .map { HKElectrocardiogram($0) }
    case is HKAudiogramSampleType:
      objects = try session.perform(.audiogramQuery(session.bundleID, query), api: api).map { HKAudiogramSample($0) }
    case is HKStateOfMindType:
      objects = try session.perform(.stateOfMindQuery(session.bundleID, query), api: api).map { HKStateOfMind($0) }
    case is HKPrescriptionType:
      objects = try session.perform(.visionPrescriptionQuery(session.bundleID, query), api: api)
        .map { HKVisionPrescription.make($0) }
    case is HKDocumentType:
      objects = try session.perform(.cdaDocumentQuery(session.bundleID, query), api: api)
        .map { HKCDADocumentSample($0, content: false) }
    case is HKScoredAssessmentType:
      objects = try session.perform(.scoredAssessmentQuery(session.bundleID, query), api: api)
        .map { HKScoredAssessment.make($0) }
    case is HKMedicationDoseEventType:
      objects = try session.perform(.medicationDoseQuery(session.bundleID, query), api: api)
        .map { HKMedicationDoseEvent($0) }
    case is HKClinicalType:
      objects = try session.perform(.clinicalRecordQuery(session.bundleID, query), api: api)
        .map { HKClinicalRecord($0) }
    case let series as HKSeriesType where series.identifier == HKWorkoutRouteTypeIdentifier:
      var routeQuery = query
      let workout = associatedWorkout(&routeQuery.filter)
      objects = try session.perform(.routeQuery(session.bundleID, workout: workout, routeQuery), api: api)
        .map { HKWorkoutRoute($0) }
    default:
      objects = try session.perform(.heartbeatSeriesQuery(session.bundleID, query), api: api)
        .map { HKHeartbeatSeriesSample($0) }
    }
    if sortHere {
      objects = try sorted(objects, by: descriptors ?? [])
      if limit > 0, objects.count > limit { objects.removeLast(objects.count - limit) }
    }
    return objects
  }

  /// The changes of `type` (``anchorsApart(_:)``) since `anchor` within `filter`: the daemon filters (sources and the
  /// rest of the predicate, a route's `predicateForObjects(from: workout)` included) before it applies `limit`, so
  /// a limited query returns the first matching changes and its anchor stops after them.
  /// - Throws: the query's error, translated.
  static func changes(
    _ session: Session, type: SampleType, since anchor: UInt64, filter: QueryFilter, limit: Int, api: String
  ) throws -> HKAnchoredObjectQuery.Changes {
    let parts = [filter.extra, filter.sources.map { SampleFilter.sources($0) }].compactMap { $0 }
    let condition: SampleFilter? = parts.count > 1 ? .and(parts) : parts.first
    let found = try session.perform(
      .anchoredWorkoutQuery(
        session.bundleID, type: type, anchor: anchor, range: filter.range, limit: limit, filter: condition),
      api: api)
    let added: [HKSample] =
      found.workouts.map { HKWorkout($0) } + found.routes.map { HKWorkoutRoute($0) }
      + found.series.map { HKHeartbeatSeriesSample($0) } + found.electrocardiograms.map { HKElectrocardiogram($0) }
      + found.audiograms.map { HKAudiogramSample($0) } + found.statesOfMind.map { HKStateOfMind($0) }
      + found.visionPrescriptions.map { HKVisionPrescription.make($0) }
      + found.clinicalRecords.map { HKClinicalRecord($0) }
      + found.scoredAssessments.map { HKScoredAssessment.make($0) }
      + found.cdaDocuments.map { HKCDADocumentSample($0, content: false) }
      + found.medicationDoses.map { HKMedicationDoseEvent($0) }
    return HKAnchoredObjectQuery.Changes(
      added: added, deleted: found.deleted.map(HKDeletedObject.init), newAnchor: found.newAnchor)
  }

  /// Takes a top-level `associatedWith(workout)` condition out of `filter` and returns its workout.
  static func associatedWorkout(_ filter: inout SampleFilter?) -> UUID? {
    switch filter {
    case .associatedWith(let workout)?:
      filter = nil
      return workout
    case .and(let parts)?:
      guard let index = parts.firstIndex(where: { if case .associatedWith = $0 { true } else { false } }),
        case .associatedWith(let workout) = parts[index]
      else { return nil }
      var rest = parts
      rest.remove(at: index)
      filter = rest.isEmpty ? nil : .and(rest)
      return workout
    default:
      return nil
    }
  }

  /// `objects` sorted by `descriptors`: dates, and for workouts the workout sort identifiers.
  /// - Throws: `HKError(.errorInvalidArgument)` for another key.
  static func sorted(_ objects: [HKSample], by descriptors: [NSSortDescriptor]) throws -> [HKSample] {
    let keys = try descriptors.map { descriptor -> ((HKSample) -> Double, Bool) in
      guard let key = sortKey(descriptor.keyPath) else {
        throw HKError(
          .errorInvalidArgument,
          message: "Unsupported sort descriptor \(descriptor): workout queries sort by the sample and workout sort "
            + "identifiers")
      }
      return (key, descriptor.ascending)
    }
    return objects.sorted { a, b in
      for (key, ascending) in keys {
        let (x, y) = (key(a), key(b))
        if x != y { return ascending ? x < y : x > y }
      }
      return false
    }
  }

  private static func sortKey(_ path: AnyKeyPath?) -> ((HKSample) -> Double)? {
    func workout(_ read: @escaping (HKWorkout) -> Double) -> (HKSample) -> Double {
      { sample in (sample as? HKWorkout).map(read) ?? -.infinity }
    }
    if path == \HKSample.startDate || path == \HKWorkout.startDate {
      return { $0.startDate.timeIntervalSinceReferenceDate }
    }
    if path == \HKSample.endDate || path == \HKWorkout.endDate { return { $0.endDate.timeIntervalSinceReferenceDate } }
    if path == \HKWorkout.duration { return workout(\.duration) }
    if path == \HKWorkout.sortTotalDistance { return workout(\.sortTotalDistance) }
    if path == \HKWorkout.sortTotalEnergyBurned { return workout(\.sortTotalEnergyBurned) }
    if path == \HKWorkout.sortTotalSwimmingStrokeCount { return workout(\.sortTotalSwimmingStrokeCount) }
    if path == \HKWorkout.sortTotalFlightsClimbed { return workout(\.sortTotalFlightsClimbed) }
    return nil
  }
}

extension HKWorkout {
  /// The sort key of `HKWorkoutSortIdentifierTotalDistance`, metres (−∞ without a distance: first ascending).
  var sortTotalDistance: Double { totalDistance?.doubleValue(for: .meter()) ?? -.infinity }
  /// The sort key of `HKWorkoutSortIdentifierTotalEnergyBurned`, kilocalories (the active energy statistic's sum).
  var sortTotalEnergyBurned: Double { sum("activeEnergyBurned", .kilocalorie()) }
  /// The sort key of `HKWorkoutSortIdentifierTotalSwimmingStrokeCount`.
  var sortTotalSwimmingStrokeCount: Double { sum("swimmingStrokeCount", .count()) }
  /// The sort key of `HKWorkoutSortIdentifierTotalFlightsClimbed`.
  var sortTotalFlightsClimbed: Double { sum("flightsClimbed", .count()) }

  private func sum(_ name: String, _ unit: HKUnit) -> Double {
    guard let type = SampleType.lookup(name: name),
      let quantity = statistics(for: HKQuantityType(HKQuantityTypeIdentifier(type.identifier)))?.sumQuantity()
    else { return -.infinity }
    return quantity.doubleValue(for: unit)
  }
}
