import FoundationEssentials

/// `HKElectrocardiogram.Classification`: what the ECG app concluded, with Apple's raw values.
package enum ECGClassification: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `notSet` (0).
  case notSet = 0
  /// `sinusRhythm` (1).
  case sinusRhythm = 1
  /// `atrialFibrillation` (2).
  case atrialFibrillation = 2
  /// `inconclusiveLowHeartRate` (3).
  case inconclusiveLowHeartRate = 3
  /// `inconclusiveHighHeartRate` (4).
  case inconclusiveHighHeartRate = 4
  /// `inconclusivePoorReading` (5).
  case inconclusivePoorReading = 5
  /// `inconclusiveOther` (6).
  case inconclusiveOther = 6
  /// `unrecognized` (100).
  case unrecognized = 100

  /// The Swift case name.
  package var description: String {
    switch self {
    case .notSet: "notSet"
    case .sinusRhythm: "sinusRhythm"
    case .atrialFibrillation: "atrialFibrillation"
    case .inconclusiveLowHeartRate: "inconclusiveLowHeartRate"
    case .inconclusiveHighHeartRate: "inconclusiveHighHeartRate"
    case .inconclusivePoorReading: "inconclusivePoorReading"
    case .inconclusiveOther: "inconclusiveOther"
    case .unrecognized: "unrecognized"
    }
  }

  /// The classification a case name or raw value names (`"sinusRhythm"`, `"1"`), or nil.
  package static func named(_ text: String) -> ECGClassification? {
    if let raw = Int(text) { return ECGClassification(rawValue: raw) }
    return allCases.first { $0.description == text }
  }
}

/// `HKElectrocardiogram.SymptomsStatus`: whether the user logged symptoms with the recording (Apple's raw values).
package enum ECGSymptomsStatus: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `notSet` (0).
  case notSet = 0
  /// `none` (1): the user said they had none.
  case none = 1
  /// `present` (2).
  case present = 2

  /// The Swift case name.
  package var description: String {
    switch self {
    case .notSet: "notSet"
    case .none: "none"
    case .present: "present"
    }
  }
}

/// One recorded electrocardiogram (`HKElectrocardiogram`): a single-lead recording (Apple Watch, similar to lead I)
/// taken by the ECG app, never by a third-party app.
package struct Electrocardiogram: Hashable, Sendable {
  /// The recording's identifier.
  package var uuid: UUID
  /// When the recording started.
  package var start: Date
  /// When it ended (start + measurements ÷ sampling frequency).
  package var end: Date
  /// The ECG app's conclusion.
  package var classification: ECGClassification
  /// Whether the user logged symptoms.
  package var symptomsStatus: ECGSymptomsStatus
  /// The average heart rate over the recording, beats per minute (nil: the app could not compute one).
  package var averageHeartRate: Double?
  /// Measurements per second, hertz.
  package var samplingFrequency: Double
  /// How many voltage measurements the recording holds (`numberOfVoltageMeasurements`).
  package var measurementCount: Int
  /// The lead-I voltages in microvolts, one per sampling period from the start; empty when only the header was
  /// read (a query's answer carries the header, ``measurementCount`` says how many there are).
  package var voltages: [Float]
  /// The recording's metadata (the ECG app sets `HKMetadataKeyAppleECGAlgorithmVersion`).
  package var metadata: Metadata
  /// The ECG app and the watch that recorded it (or the export it was imported from).
  package var source: SampleSource

  /// Creates a recording whose count is its voltages' (or `measurementCount` when the voltages are left out).
  package init(
    uuid: UUID, start: Date, end: Date, classification: ECGClassification, symptomsStatus: ECGSymptomsStatus,
    averageHeartRate: Double?, samplingFrequency: Double, voltages: [Float], measurementCount: Int? = nil,
    metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.start = start
    self.end = end
    self.classification = classification
    self.symptomsStatus = symptomsStatus
    self.averageHeartRate = averageHeartRate
    self.samplingFrequency = samplingFrequency
    self.measurementCount = measurementCount ?? voltages.count
    self.voltages = voltages
    self.metadata = metadata
    self.source = source
  }

  /// The recording without its voltages: what a query answers.
  package var header: Electrocardiogram {
    var copy = self
    copy.voltages = []
    return copy
  }

  /// The most measurements one recording may hold: ten minutes at 512 Hz (the ECG app records 30 seconds).
  package static let maxMeasurements = 512 * 600

  /// Checks what a stored or imported recording must satisfy: dates (as a sample's), a positive finite sampling
  /// frequency, a finite non-negative heart rate, 1 to ``maxMeasurements`` finite voltages — as many as its count,
  /// or none for a header (`headerOnly`: a query's answer) — and metadata values a sample may carry.
  /// - Throws: ``HealthError`` naming the recording and what is wrong.
  package func validate(headerOnly: Bool = false) throws(HealthError) {
    try checkObjectDates(start, end, "Electrocardiogram \(uuid)")
    guard samplingFrequency.isFinite, samplingFrequency > 0 else {
      throw .invalidArgumentException("Electrocardiogram \(uuid): sampling frequency must be positive")
    }
    if let rate = averageHeartRate, !rate.isFinite || rate < 0 {
      throw .invalidArgumentException("Electrocardiogram \(uuid): average heart rate must be finite, not negative")
    }
    guard (0...Self.maxMeasurements).contains(measurementCount) else {
      throw .invalidArgumentException(
        "Electrocardiogram \(uuid): \(measurementCount) measurements (at most \(Self.maxMeasurements))")
    }
    guard headerOnly ? voltages.isEmpty : (measurementCount > 0 && voltages.count == measurementCount) else {
      throw .invalidArgumentException(
        "Electrocardiogram \(uuid): \(voltages.count) voltages for \(measurementCount) measurements")
    }
    guard voltages.allSatisfy(\.isFinite) else {
      throw .invalidArgumentException("Electrocardiogram \(uuid): voltages must be finite")
    }
    try metadata.checkValues()
  }

  /// The ECG app's bundle identifier on Apple Watch: the source of every recording a watch makes.
  package static let recorderBundleID = "com.apple.NanoHeartRhythm"

  /// `voltage` in thousandths of a microvolt, rounded half away from zero (what an export's CSV file keeps: three
  /// decimals); 0 for a value that is not finite.
  package static func thousandths(_ voltage: Float) -> Int64 {
    let scaled = (Double(voltage) * 1000).rounded()
    return scaled.isFinite && abs(scaled) < 9e18 ? Int64(scaled) : 0
  }

  /// The whole second the recording starts in (seconds since the reference date, rounded down; 0 for a start that
  /// is not a date).
  package var startSecond: Int64 {
    let seconds = start.timeIntervalSinceReferenceDate.rounded(.down)
    return seconds.isFinite && abs(seconds) < 9e18 ? Int64(seconds) : 0
  }

  /// Whether `other` is the same recording as far as an export's CSV file tells (a HealthPair model: the file
  /// carries no identifier): the same ``startSecond`` and the same voltages to 1/1000 µV (``thousandths(_:)``).
  /// Recordings without voltages (headers) are never the same.
  package func hasSameContent(as other: Electrocardiogram) -> Bool {
    guard startSecond == other.startSecond, !voltages.isEmpty, voltages.count == other.voltages.count else {
      return false
    }
    return zip(voltages, other.voltages).allSatisfy { Self.thousandths($0) == Self.thousandths($1) }
  }
}
