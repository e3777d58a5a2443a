// The async/await style: every query wrapped in `withCheckedThrowingContinuation`, value types out, errors thrown.
// Uses the predicate families published readers reach for (UUIDs, metadata values, sources, devices, quantity
// thresholds) and HKSourceQuery. Each reading reads its sample's `quantity` (made when first read in HealthKitSim).

import Foundation
import HealthKit

/// A reading: value, dates and where it came from.
public struct Reading: Sendable, Equatable {
  /// The sample's UUID.
  public var id: UUID
  /// The value in the reader's unit.
  public var value: Double
  /// The start date.
  public var start: Date
  /// The bundle identifier of the app that saved it.
  public var source: String
  /// The model of the device that recorded it, if the app recorded one.
  public var deviceModel: String?
}

/// Reads quantity samples with async/await.
public struct AsyncHealthReader: Sendable {
  private let store: HKHealthStore
  private let type: HKQuantityType
  private let unit: HKUnit

  /// A reader of `identifier` in `unit`.
  public init(_ identifier: HKQuantityTypeIdentifier, unit: HKUnit, store: HKHealthStore = HKHealthStore()) {
    self.store = store
    self.type = HKQuantityType(identifier)
    self.unit = unit
  }

  /// Samples matching `predicate`, newest first.
  public func readings(matching predicate: NSPredicate?, limit: Int = HKObjectQueryNoLimit) async throws -> [Reading] {
    let (store, type, unit) = (self.store, self.type, self.unit)
    return try await withCheckedThrowingContinuation { continuation in
      let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
      let query = HKSampleQuery(
        sampleType: type, predicate: predicate, limit: limit, sortDescriptors: [newestFirst]
      ) { _, samples, error in
        if let error {
          continuation.resume(throwing: error)
          return
        }
        let readings = (samples as? [HKQuantitySample] ?? []).map {
          Reading(
            id: $0.uuid, value: $0.quantity.doubleValue(for: unit), start: $0.startDate,
            source: $0.sourceRevision.source.bundleIdentifier, deviceModel: $0.device?.model)
        }
        continuation.resume(returning: readings)
      }
      store.execute(query)
    }
  }

  /// The one sample with this UUID, if the app may see it.
  public func reading(id: UUID) async throws -> Reading? {
    try await readings(matching: HKQuery.predicateForObject(with: id)).first
  }

  /// Samples tagged with one of `values` under metadata `key`.
  public func readings(taggedWith key: String, in values: [String]) async throws -> [Reading] {
    try await readings(matching: HKQuery.predicateForObjects(withMetadataKey: key, allowedValues: values))
  }

  /// Samples at or above `threshold`.
  public func readings(atLeast threshold: Double) async throws -> [Reading] {
    let quantity = HKQuantity(unit: unit, doubleValue: threshold)
    return try await readings(
      matching: HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo, quantity: quantity))
  }

  /// Samples recorded by a device of this model.
  public func readings(fromDeviceModel model: String) async throws -> [Reading] {
    try await readings(
      matching: HKQuery.predicateForObjects(withDeviceProperty: HKDevicePropertyKeyModel, allowedValues: [model]))
  }

  /// The apps that saved samples the app may see.
  public func sources() async throws -> Set<String> {
    let (store, type) = (self.store, self.type)
    return try await withCheckedThrowingContinuation { continuation in
      let query = HKSourceQuery(sampleType: type, samplePredicate: nil) { _, sources, error in
        if let error {
          continuation.resume(throwing: error)
        } else {
          continuation.resume(returning: Set((sources ?? []).map(\.bundleIdentifier)))
        }
      }
      store.execute(query)
    }
  }

  /// Saves one reading, recorded by this device.
  public func save(_ value: Double, at date: Date, metadata: [String: Any]? = nil) async throws -> UUID {
    let sample = HKQuantitySample(
      type: type, quantity: HKQuantity(unit: unit, doubleValue: value), start: date, end: date, device: .local(),
      metadata: metadata)
    try await store.save(sample)
    return sample.uuid
  }
}
