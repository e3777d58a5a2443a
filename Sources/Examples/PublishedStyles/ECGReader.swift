// The electrocardiogram style of published readers (Flutter's `health` plugin, HealthKitReporter, Einthoven): read
// permission for the ECG type only, an `HKSampleQuery` of `electrocardiogramType()` cast to `[HKElectrocardiogram]`,
// then one `HKElectrocardiogramQuery` per recording collecting `quantity(for: .appleWatchSimilarToLeadI)` in volts,
// the handler switching over the result with `@unknown default`.

import Foundation
import HealthKit

/// One recording as the reader hands it on: the header and, when asked for, every voltage.
public struct ECGReading: Sendable, Equatable {
  /// The recording's UUID.
  public var id: UUID
  /// `classification.rawValue`.
  public var classification: Int
  /// Beats per minute, when the ECG app computed one.
  public var averageHeartRate: Double?
  /// Hertz.
  public var samplingFrequency: Double?
  /// `numberOfVoltageMeasurements`.
  public var measurementCount: Int
  /// Volts, in time order (empty unless asked for).
  public var voltages: [Double]
  /// Seconds since the start of each voltage.
  public var times: [Double]
  /// The recording app's bundle identifier.
  public var source: String

  /// A reading.
  public init(
    id: UUID, classification: Int, averageHeartRate: Double?, samplingFrequency: Double?, measurementCount: Int,
    voltages: [Double], times: [Double], source: String
  ) {
    self.id = id
    self.classification = classification
    self.averageHeartRate = averageHeartRate
    self.samplingFrequency = samplingFrequency
    self.measurementCount = measurementCount
    self.voltages = voltages
    self.times = times
    self.source = source
  }
}

/// Reads electrocardiograms as the published plugins do.
public final class ECGReader: @unchecked Sendable {
  private let healthStore = HKHealthStore()
  private let lock = NSLock()

  /// A reader.
  public init() {}

  /// Asks to read ECGs (sharing them is not allowed).
  public func requestAuthorization(completion: @escaping @Sendable (Bool, Error?) -> Void) {
    let types: Set<HKObjectType> = [HKSampleType.electrocardiogramType()]
    healthStore.requestAuthorization(toShare: nil, read: types, completion: completion)
  }

  /// The recordings between `start` and `end`, newest first, optionally only those of `classification`, each with
  /// its voltages when `withVoltages`.
  public func readings(
    from start: Date, to end: Date, classification: HKElectrocardiogram.Classification? = nil,
    withVoltages: Bool = true, completion: @escaping @Sendable ([ECGReading]?, Error?) -> Void
  ) {
    var predicate: NSPredicate = HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate)
    if let classification {
      predicate = NSCompoundPredicate(
        type: .and, subpredicates: [predicate, HKQuery.predicateForElectrocardiograms(classification: classification)])
    }
    let sort = NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)
    let query = HKSampleQuery(
      sampleType: HKSampleType.electrocardiogramType(), predicate: predicate, limit: HKObjectQueryNoLimit,
      sortDescriptors: [sort]
    ) { [self] _, samples, error in
      guard let ecgs = samples as? [HKElectrocardiogram] else { return completion(nil, error) }
      guard withVoltages else { return completion(ecgs.map { reading($0, [], []) }, nil) }
      let group = DispatchGroup()
      var results: [Int: ECGReading] = [:]
      var failure: Error?
      for (index, ecg) in ecgs.enumerated() {
        group.enter()
        var voltages: [Double] = []
        var times: [Double] = []
        voltages.reserveCapacity(ecg.numberOfVoltageMeasurements)
        let voltageQuery = HKElectrocardiogramQuery(ecg) { [self] _, result in
          switch result {
          case .measurement(let measurement):
            if let volts = measurement.quantity(for: .appleWatchSimilarToLeadI)?.doubleValue(for: HKUnit.volt()) {
              voltages.append(volts)
              times.append(measurement.timeSinceSampleStart)
            }
          case .done:
            lock.withLock { results[index] = reading(ecg, voltages, times) }
            group.leave()
          case .error(let error):
            lock.withLock { failure = error }
            group.leave()
          @unknown default:
            group.leave()
          }
        }
        healthStore.execute(voltageQuery)
      }
      group.notify(queue: .global()) { [self] in
        let (found, error) = lock.withLock { (results, failure) }
        if let error { return completion(nil, error) }
        completion((0..<ecgs.count).compactMap { found[$0] }, nil)
      }
    }
    healthStore.execute(query)
  }

  private func reading(_ ecg: HKElectrocardiogram, _ voltages: [Double], _ times: [Double]) -> ECGReading {
    ECGReading(
      id: ecg.uuid, classification: ecg.classification.rawValue,
      averageHeartRate: ecg.averageHeartRate?.doubleValue(for: HKUnit.count().unitDivided(by: HKUnit.minute())),
      samplingFrequency: ecg.samplingFrequency?.doubleValue(for: HKUnit.hertz()),
      measurementCount: ecg.numberOfVoltageMeasurements, voltages: voltages, times: times,
      source: ecg.sourceRevision.source.bundleIdentifier)
  }
}
