// The audiogram style of published plugins (Flutter's `health` writes and reads them this way; HealthKitReporter
// saves with the same initializers): frequencies in Hz and hearing levels in dBHL for both ears, one
// `HKAudiogramSensitivityPoint(frequency:leftEarSensitivity:rightEarSensitivity:)` per frequency, one
// `HKAudiogramSample(sensitivityPoints:start:end:metadata:)`, read back through `leftEarSensitivity` and
// `rightEarSensitivity` (deprecated in iOS 18.1, still what these plugins call).

import Foundation
import HealthKit

/// One audiogram as the plugin hands it on.
public struct HearingTest: Sendable, Equatable {
  /// The sample's UUID.
  public var id: UUID
  /// Hz, ascending.
  public var frequencies: [Double]
  /// dBHL, one per frequency.
  public var left: [Double]
  /// dBHL, one per frequency.
  public var right: [Double]

  /// A test.
  public init(id: UUID, frequencies: [Double], left: [Double], right: [Double]) {
    self.id = id
    self.frequencies = frequencies
    self.left = left
    self.right = right
  }
}

/// Writes and reads audiograms as the published plugins do.
public final class HearingLog: @unchecked Sendable {
  private let healthStore = HKHealthStore()

  /// A log.
  public init() {}

  /// Asks to share and read audiograms.
  public func requestAuthorization(completion: @escaping @Sendable (Bool, Error?) -> Void) {
    let type = HKObjectType.audiogramSampleType()
    healthStore.requestAuthorization(toShare: [type], read: [type], completion: completion)
  }

  /// Saves one audiogram of both ears; `completion` gets whether it was saved.
  public func write(
    frequencies: [Double], left: [Double], right: [Double], start: Date, end: Date, deviceName: String?,
    completion: @escaping @Sendable (Bool, Error?) -> Void
  ) {
    var points: [HKAudiogramSensitivityPoint] = []
    do {
      for i in frequencies.indices {
        let frequency = HKQuantity(unit: HKUnit.hertz(), doubleValue: frequencies[i])
        let leftEar = HKQuantity(unit: HKUnit.decibelHearingLevel(), doubleValue: left[i])
        let rightEar = HKQuantity(unit: HKUnit.decibelHearingLevel(), doubleValue: right[i])
        points.append(
          try HKAudiogramSensitivityPoint(
            frequency: frequency, leftEarSensitivity: leftEar, rightEarSensitivity: rightEar))
      }
    } catch {
      return completion(false, error)
    }
    let metadata: [String: Any]? = deviceName.map { [HKMetadataKeyDeviceName: $0] }
    let audiogram = HKAudiogramSample(sensitivityPoints: points, start: start, end: end, metadata: metadata)
    healthStore.save(audiogram, withCompletion: completion)
  }

  /// The audiograms between `start` and `end`.
  public func tests(from start: Date, to end: Date, completion: @escaping @Sendable ([HearingTest]?, Error?) -> Void) {
    let predicate = HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate)
    let query = HKSampleQuery(
      sampleType: HKObjectType.audiogramSampleType(), predicate: predicate, limit: HKObjectQueryNoLimit,
      sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
    ) { _, samples, error in
      guard let audiograms = samples as? [HKAudiogramSample] else { return completion(nil, error) }
      completion(
        audiograms.map { sample in
          HearingTest(
            id: sample.uuid, frequencies: sample.sensitivityPoints.map { $0.frequency.doubleValue(for: .hertz()) },
            left: sample.sensitivityPoints.map { $0.leftEarSensitivity!.doubleValue(for: .decibelHearingLevel()) },
            right: sample.sensitivityPoints.map { $0.rightEarSensitivity!.doubleValue(for: .decibelHearingLevel()) })
        }, nil)
    }
    healthStore.execute(query)
  }
}
