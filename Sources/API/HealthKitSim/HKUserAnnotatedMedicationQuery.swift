import Foundation
import HealthEngine
import HealthModel

/// Reads the medications the app may read (those the user turned on for it), one per handler call, then a last call
/// with `done` true (behavior.md section Z).
///
/// `@unchecked Sendable`: the handler is called on the query's queue only, as HealthKit calls it.
public final class HKUserAnnotatedMedicationQuery: HKQuery, @unchecked Sendable {
  /// The most medications returned; ``HKObjectQueryNoLimit`` (0) for all.
  public let limit: Int
  private let resultsHandler:
    (HKUserAnnotatedMedicationQuery, HKUserAnnotatedMedication?, Bool, (any Error)?) -> Void

  /// Creates a query; `resultsHandler` receives each medication with `done` false, then nil and `done` true (or nil,
  /// true and an error).
  public init(
    predicate: NSPredicate?, limit: Int,
    resultsHandler: @escaping (HKUserAnnotatedMedicationQuery, HKUserAnnotatedMedication?, Bool, (any Error)?) ->
      Void
  ) {
    self.limit = limit
    self.resultsHandler = resultsHandler
    super.init(objectType: HKObjectType.userAnnotatedMedicationType(), predicate: predicate)
  }

  static let api = "HKUserAnnotatedMedicationQuery"

  override func start(_ session: Session) {
    let filter = filter
    let limit = limit
    deliver({ () async throws -> [Medication] in
      let query = try filter.get().sampleQuery(of: HKObjectType.userAnnotatedMedicationType(), limit: limit, sort: [])
      return try await session.performAsync(.medicationQuery(session.bundleID, query), api: Self.api)
    }) { [self] result in
      run.deliver {
        switch result {
        case .success(let medications):
          for medication in medications { resultsHandler(self, HKUserAnnotatedMedication(medication), false, nil) }
          resultsHandler(self, nil, true, nil)
        case .failure(let error): resultsHandler(self, nil, true, error)
        }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { resultsHandler(self, nil, true, error) }
  }
}

/// A medication query as a value: `try await descriptor.result(for: store)`.
public struct HKUserAnnotatedMedicationQueryDescriptor {
  /// What the medications must match (nil: all).
  public var predicate: NSPredicate?
  /// The most medications returned (nil: all).
  public var limit: Int?

  /// The result type.
  public typealias Output = [HKUserAnnotatedMedication]

  /// Creates a descriptor.
  public init(predicate: NSPredicate? = nil, limit: Int? = nil) {
    self.predicate = predicate
    self.limit = limit
  }

  /// The medications the app may read, matching the predicate, limited.
  /// - Throws: what the query's handler would receive.
  public func result(for healthStore: HKHealthStore) async throws -> [HKUserAnnotatedMedication] {
    let api = "HKUserAnnotatedMedicationQueryDescriptor.result(for:)"
    let filter = try QueryFilter.decompose(predicate).get()
    let limit = limit ?? HKObjectQueryNoLimit
    let session = try await Session.connected(api: api)
    let query = try filter.sampleQuery(of: HKObjectType.userAnnotatedMedicationType(), limit: limit, sort: [])
    return try await session.performAsync(.medicationQuery(session.bundleID, query), api: api)
      .map(HKUserAnnotatedMedication.init)
  }
}

extension HKQuery {
  /// Dose events with this log status.
  public static func predicateForMedicationDoseEvent(status: HKMedicationDoseEvent.LogStatus) -> NSPredicate {
    HealthKitSimPredicate(.medication(.statuses([status.rawValue])))
  }
  /// Dose events with one of these log statuses (`LogStatus` raw values).
  public static func predicateForMedicationDoseEvent(statuses: Set<NSNumber>) -> NSPredicate {
    HealthKitSimPredicate(.medication(.statuses(Set(statuses.map(\.intValue)))))
  }
  /// Dose events scheduled at this date.
  public static func predicateForMedicationDoseEvent(scheduledDate: Date) -> NSPredicate {
    HealthKitSimPredicate(.medication(.scheduledDates([scheduledDate.timeIntervalSinceReferenceDate])))
  }
  /// Dose events scheduled at one of these dates.
  public static func predicateForMedicationDoseEvent(scheduledDates: Set<Date>) -> NSPredicate {
    HealthKitSimPredicate(.medication(.scheduledDates(Set(scheduledDates.map(\.timeIntervalSinceReferenceDate)))))
  }
  /// Dose events scheduled at or after `scheduledStart` and before `end` (nil: unbounded on that side).
  public static func predicateForMedicationDoseEvent(scheduledStart: Date?, end: Date?) -> NSPredicate {
    HealthKitSimPredicate(
      .medication(
        .scheduledRange(
          start: scheduledStart?.timeIntervalSinceReferenceDate, end: end?.timeIntervalSinceReferenceDate)))
  }
  /// Dose events of this medication.
  public static func predicateForMedicationDoseEvent(
    medicationConceptIdentifier: HKHealthConceptIdentifier
  ) -> NSPredicate {
    HealthKitSimPredicate(.medication(.concepts([medicationConceptIdentifier.underlying])))
  }
  /// Dose events of one of these medications.
  public static func predicateForMedicationDoseEvent(
    medicationConceptIdentifiers: Set<HKHealthConceptIdentifier>
  ) -> NSPredicate {
    HealthKitSimPredicate(.medication(.concepts(Set(medicationConceptIdentifiers.map(\.underlying)))))
  }
  /// Medications archived (true) or not, for ``HKUserAnnotatedMedicationQuery``.
  public static func predicateForUserAnnotatedMedications(isArchived: Bool) -> NSPredicate {
    HealthKitSimPredicate(.medication(.archived(isArchived)))
  }
  /// Medications with a schedule (true) or without, for ``HKUserAnnotatedMedicationQuery``.
  public static func predicateForUserAnnotatedMedications(hasSchedule: Bool) -> NSPredicate {
    HealthKitSimPredicate(.medication(.hasSchedule(hasSchedule)))
  }
}
