import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient

extension HealthDevice {
  /// The wearer records an electrocardiogram with the watch's ECG app (apps cannot: the type is read-only), at the
  /// device's time unless `start` is given: 30 seconds at 512 Hz unless `duration` says otherwise, the
  /// classification's typical heart rate unless `averageHeartRate` (beats per minute) is given, and a synthesized
  /// single-lead waveform unless `microvolts` gives the voltages. With `symptoms: .present`, `symptomTypes`
  /// (`.fatigue`, `.dizziness`, …) are the symptoms logged: the ECG app saves one category sample of each,
  /// associated with the recording (`predicateForObjectsAssociated(electrocardiogram:)`). The recording syncs to
  /// the iPhone like any watch data (behavior.md G1–G2, G6).
  /// - Returns: the recording's identifier.
  /// - Throws: ``HealthPairTestingError``: on the iPhone (only the watch records), on a locked watch, or for an
  ///   invalid recording.
  @discardableResult
  public func recordElectrocardiogram(
    _ classification: HKElectrocardiogram.Classification, symptoms: HKElectrocardiogram.SymptomsStatus = .notSet,
    averageHeartRate: Double? = nil, start: Date? = nil, duration: TimeInterval = 30, microvolts: [Float]? = nil,
    id: UUID = UUID(), symptomTypes: [HKCategoryTypeIdentifier] = []
  ) throws(HealthPairTestingError) -> UUID {
    let recording = try control("recordElectrocardiogram") { client in
      ECGRecording(
        uuid: id, start: try start ?? client.dump().device.now,
        classification: ECGClassification(rawValue: classification.rawValue) ?? .unrecognized,
        symptomsStatus: ECGSymptomsStatus(rawValue: symptoms.rawValue) ?? .notSet, averageHeartRate: averageHeartRate,
        duration: duration, voltages: microvolts,
        symptoms: try symptomTypes.map { try HKCategoryType($0).simulatedType() })
    }
    try control("recordElectrocardiogram") { try $0.recordElectrocardiogram(recording) }
    return id
  }

  /// Every electrocardiogram stored on the device (what the Health app lists), in store order.
  /// - Throws: ``HealthPairTestingError``.
  public func storedElectrocardiograms() throws(HealthPairTestingError) -> [HKElectrocardiogram] {
    try control("storedElectrocardiograms") { try $0.storedElectrocardiograms().map(HKElectrocardiogram.init) }
  }
}
