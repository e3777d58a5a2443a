import FoundationEssentials

/// What the user's world asks a watch's ECG app to record (a scenario step, a harness call): the conclusion, the
/// symptoms, the heart rate and the length. The watch turns it into an ``Electrocardiogram`` with
/// ``recorded(on:)``; the voltages are synthesized from the identifier unless given.
package struct ECGRecording: Hashable, Sendable {
  /// The recording's identifier (it also seeds the synthesized waveform).
  package var uuid: UUID
  /// When the recording starts.
  package var start: Date
  /// The conclusion the ECG app reaches.
  package var classification: ECGClassification
  /// Whether the user logs symptoms.
  package var symptomsStatus: ECGSymptomsStatus
  /// The average heart rate, beats per minute; nil picks the classification's typical rate
  /// (``typicalHeartRate(_:)``).
  package var averageHeartRate: Double?
  /// The recording's length in seconds (the ECG app records 30).
  package var duration: Double
  /// Explicit voltages in microvolts at ``samplingFrequency`` (nil: synthesized).
  package var voltages: [Float]?
  /// Extra metadata (the algorithm version is set unless given).
  package var metadata: Metadata
  /// The symptoms the user logs with it (``symptomTypes``), each saved by the ECG app as a category sample
  /// associated with the recording; only with ``symptomsStatus`` `present`.
  package var symptoms: [SampleType] = []

  /// The symptoms the ECG app offers, as HealthKit's category types.
  package static let symptomTypes = [
    "rapidPoundingOrFlutteringHeartbeat", "skippedHeartbeat", "fatigue", "shortnessOfBreath", "chestTightnessOrPain",
    "fainting", "dizziness",
  ].compactMap { SampleType.lookup(name: $0) }
  /// The metadata key naming the recording a symptom sample belongs to (HealthKitSim leaves it out of `metadata`;
  /// `predicateForObjectsAssociated(electrocardiogram:)` reads it).
  package static let associationKey = "_HealthPair.electrocardiogram"

  /// The ECG app's sampling frequency, hertz.
  package static let samplingFrequency = 512.0
  /// The ECG app's recording length, seconds.
  package static let standardDuration = 30.0
  /// `HKMetadataKeyAppleECGAlgorithmVersion`.
  package static let algorithmVersionKey = "HKMetadataKeyAppleECGAlgorithmVersion"

  /// Creates a recording request.
  package init(
    uuid: UUID, start: Date, classification: ECGClassification, symptomsStatus: ECGSymptomsStatus = .notSet,
    averageHeartRate: Double? = nil, duration: Double = ECGRecording.standardDuration, voltages: [Float]? = nil,
    metadata: Metadata = [:], symptoms: [SampleType] = []
  ) {
    self.uuid = uuid
    self.start = start
    self.classification = classification
    self.symptomsStatus = symptomsStatus
    self.averageHeartRate = averageHeartRate
    self.duration = duration
    self.voltages = voltages
    self.metadata = metadata
    self.symptoms = symptoms
  }

  /// The heart rate the ECG app reports for a classification when none is asked for: nil for a poor reading
  /// and for no classification, else a rate inside the classification's band (the app classifies 50–100 bpm in
  /// version 1, 50–150 in version 2; below 50 is low, above is high).
  package static func typicalHeartRate(_ classification: ECGClassification) -> Double? {
    switch classification {
    case .sinusRhythm: 72
    case .atrialFibrillation: 96
    case .inconclusiveLowHeartRate: 45
    case .inconclusiveHighHeartRate: 160
    case .inconclusiveOther: 84
    case .unrecognized: 70
    case .inconclusivePoorReading, .notSet: nil
    }
  }
}
