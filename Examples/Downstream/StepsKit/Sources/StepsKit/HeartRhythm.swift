// Published-style electrocardiogram reading with the async descriptors (iOS 15.4): the recordings of a period,
// newest first, then one recording's voltages in volts, as ECG viewer apps plot them.

import Foundation
import HealthKit

/// One recording as a viewer lists it.
public struct RhythmStrip: Sendable, Equatable {
  /// The recording's identifier.
  public let id: UUID
  /// When it was recorded.
  public let date: Date
  /// The ECG app's conclusion.
  public let classification: HKElectrocardiogram.Classification
  /// Beats per minute, when computed.
  public let bpm: Double?
  /// How many voltages it holds.
  public let count: Int
}

/// Reads electrocardiograms with HealthKit's async query descriptors.
public struct HeartRhythm: Sendable {
  /// A reader.
  public init() {}

  /// Asks to read electrocardiograms.
  public func requestAccess() async throws {
    try await HKHealthStore().requestAuthorization(toShare: [], read: [HKObjectType.electrocardiogramType()])
  }

  /// The recordings since `start`, newest first.
  public func strips(since start: Date) async throws -> [RhythmStrip] {
    let descriptor = HKSampleQueryDescriptor(
      predicates: [.electrocardiogram(HKQuery.predicateForSamples(withStart: start, end: nil))],
      sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)])
    return try await descriptor.result(for: HKHealthStore()).map { ecg in
      RhythmStrip(
        id: ecg.uuid, date: ecg.startDate, classification: ecg.classification,
        bpm: ecg.averageHeartRate?.doubleValue(for: .count().unitDivided(by: .minute())),
        count: ecg.numberOfVoltageMeasurements)
    }
  }

  /// The voltages of the recording `id`, in volts, in time order.
  public func volts(of id: UUID) async throws -> [Double] {
    let found = try await HKSampleQueryDescriptor(
      predicates: [.electrocardiogram(HKQuery.predicateForObject(with: id))], sortDescriptors: []
    ).result(for: HKHealthStore())
    guard let ecg = found.first else { return [] }
    var volts: [Double] = []
    for try await measurement in HKElectrocardiogramQueryDescriptor(ecg).results(for: HKHealthStore()) {
      if let quantity = measurement.quantity(for: .appleWatchSimilarToLeadI) {
        volts.append(quantity.doubleValue(for: .volt()))
      }
    }
    return volts
  }
}
