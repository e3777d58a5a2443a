// The blood-pressure style of published apps (a cuff's companion app, a health diary): authorization for the two
// quantity types, one `HKCorrelation` saved with both samples, read back with an `HKSampleQuery` of the correlation
// type and `objects(for:)`, or with an `HKCorrelationQuery` and a sample predicate; deleted as one object.

import Foundation
import HealthKit

/// One blood-pressure reading in mmHg.
public struct BloodPressureReading: Sendable, Equatable {
  /// The correlation's UUID.
  public var id: UUID
  /// Systolic pressure, mmHg.
  public var systolic: Double
  /// Diastolic pressure, mmHg.
  public var diastolic: Double
  /// When it was taken.
  public var date: Date

  /// A reading.
  public init(id: UUID, systolic: Double, diastolic: Double, date: Date) {
    self.id = id
    self.systolic = systolic
    self.diastolic = diastolic
    self.date = date
  }
}

/// Saves and reads blood pressure through HealthKit's correlation API.
public final class BloodPressureLog: @unchecked Sendable {
  private let healthStore = HKHealthStore()
  private let systolicType = HKQuantityType.quantityType(forIdentifier: .bloodPressureSystolic)!
  private let diastolicType = HKQuantityType.quantityType(forIdentifier: .bloodPressureDiastolic)!
  private let bloodPressureType = HKObjectType.correlationType(forIdentifier: .bloodPressure)!

  /// A log on the default store.
  public init() {}

  /// Asks to read and write both parts (never the correlation type: that raises an exception on a device).
  public func requestAuthorization(completion: @escaping @Sendable (Bool, Error?) -> Void) {
    let types: Set<HKSampleType> = [systolicType, diastolicType]
    healthStore.requestAuthorization(toShare: types, read: types, completion: completion)
  }

  /// Saves one reading as a correlation of two quantity samples.
  public func save(systolic: Double, diastolic: Double, date: Date = Date()) async throws -> UUID {
    let unit = HKUnit.millimeterOfMercury()
    let systolicSample = HKQuantitySample(
      type: systolicType, quantity: HKQuantity(unit: unit, doubleValue: systolic), start: date, end: date)
    let diastolicSample = HKQuantitySample(
      type: diastolicType, quantity: HKQuantity(unit: unit, doubleValue: diastolic), start: date, end: date)
    let objects: Set<HKSample> = [systolicSample, diastolicSample]
    let correlation = HKCorrelation(
      type: bloodPressureType, start: date, end: date, objects: objects,
      metadata: [HKMetadataKeyWasUserEntered: true])
    try await healthStore.save(correlation)
    return correlation.uuid
  }

  /// Every reading since `start`, newest first, with an `HKSampleQuery` of the correlation type.
  public func readings(since start: Date, completion: @escaping @Sendable ([BloodPressureReading]?, Error?) -> Void) {
    let predicate = HKQuery.predicateForSamples(withStart: start, end: nil, options: [])
    let sort = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
    let query = HKSampleQuery(
      sampleType: bloodPressureType, predicate: predicate, limit: HKObjectQueryNoLimit, sortDescriptors: [sort]
    ) { [systolicType, diastolicType] _, results, error in
      guard let correlations = results as? [HKCorrelation] else {
        completion(nil, error)
        return
      }
      let unit = HKUnit.millimeterOfMercury()
      let readings = correlations.compactMap { correlation -> BloodPressureReading? in
        guard let high = correlation.objects(for: systolicType).first as? HKQuantitySample,
          let low = correlation.objects(for: diastolicType).first as? HKQuantitySample
        else { return nil }
        return BloodPressureReading(
          id: correlation.uuid, systolic: high.quantity.doubleValue(for: unit),
          diastolic: low.quantity.doubleValue(for: unit), date: correlation.startDate)
      }
      completion(readings, nil)
    }
    healthStore.execute(query)
  }

  /// The readings whose systolic pressure is at least `threshold`, with an `HKCorrelationQuery`.
  public func highReadings(threshold: Double, completion: @escaping @Sendable ([UUID]?, Error?) -> Void) {
    let high = HKQuery.predicateForQuantitySamples(
      with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: threshold))
    let query = HKCorrelationQuery(type: bloodPressureType, predicate: nil, samplePredicates: [systolicType: high]) {
      _, correlations, error in
      completion(correlations?.map(\.uuid), error)
    }
    healthStore.execute(query)
  }

  /// Deletes a reading (the correlation; HealthKit keeps its two samples).
  public func delete(_ id: UUID, completion: @escaping @Sendable (Bool, Error?) -> Void) {
    let query = HKSampleQuery(
      sampleType: bloodPressureType, predicate: HKQuery.predicateForObject(with: id), limit: 1, sortDescriptors: nil
    ) { [healthStore] _, results, error in
      guard let correlation = results?.first else {
        completion(false, error)
        return
      }
      healthStore.delete(correlation, withCompletion: completion)
    }
    healthStore.execute(query)
  }
}
