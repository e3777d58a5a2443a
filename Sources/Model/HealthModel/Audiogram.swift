import FoundationEssentials

/// `HKAudiogramSensitivityTestSide`: the ear a test measured (Apple's raw values).
package enum AudiogramSide: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `left` (0).
  case left = 0
  /// `right` (1).
  case right = 1

  /// The Swift case name.
  package var description: String { self == .left ? "left" : "right" }
}

/// One hearing test at a frequency (`HKAudiogramSensitivityTest`): air conduction (the only type Apple defines),
/// one ear, masked or not, with an optional clamping range.
package struct AudiogramTest: Hashable, Sendable {
  /// The hearing level, dBHL.
  package var sensitivity: Double
  /// Whether the other ear was masked.
  package var masked: Bool
  /// The ear.
  package var side: AudiogramSide
  /// The clamping range's lower bound, dBHL (nil: none).
  package var clampLower: Double?
  /// The clamping range's upper bound, dBHL (nil: none).
  package var clampUpper: Double?

  /// Creates a test.
  package init(
    sensitivity: Double, side: AudiogramSide, masked: Bool = false, clampLower: Double? = nil,
    clampUpper: Double? = nil
  ) {
    self.sensitivity = sensitivity
    self.masked = masked
    self.side = side
    self.clampLower = clampLower
    self.clampUpper = clampUpper
  }
}

/// One frequency of an audiogram (`HKAudiogramSensitivityPoint`) and the tests made at it.
package struct AudiogramPoint: Hashable, Sendable {
  /// The frequency, hertz.
  package var frequency: Double
  /// The tests, one or two (at most one per ear).
  package var tests: [AudiogramTest]

  /// Creates a point.
  package init(frequency: Double, tests: [AudiogramTest]) {
    self.frequency = frequency
    self.tests = tests
  }

  /// The ear's sensitivity the deprecated `leftEarSensitivity`/`rightEarSensitivity` read: its unmasked test's,
  /// else its masked one's.
  package func sensitivity(_ side: AudiogramSide) -> Double? {
    let ear = tests.filter { $0.side == side }
    return (ear.first { !$0.masked } ?? ear.last)?.sensitivity
  }
}

/// The most sensitivity points one audiogram holds.
package let maxAudiogramPoints = 30

/// An audiogram (`HKAudiogramSample`): hearing levels at ascending frequencies, saved by an app (a hearing test) or
/// imported.
package struct Audiogram: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// Start of the test.
  package var start: Date
  /// End of the test.
  package var end: Date
  /// The points, frequencies strictly ascending.
  package var points: [AudiogramPoint]
  /// The sample's metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates an audiogram.
  package init(
    uuid: UUID, start: Date, end: Date, points: [AudiogramPoint], metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.start = start
    self.end = end
    self.points = points
    self.metadata = metadata
    self.source = source
  }

  /// Checks one point as `HKAudiogramSensitivityPoint`'s and `HKAudiogramSensitivityTest`'s initializers do (they
  /// throw): frequency 0–30,000 Hz, sensitivities −20–160 dBHL, one or two tests and at most one per ear, finite
  /// clamping bounds, the lower below the upper (a range without bounds is no range).
  /// - Throws: `errorInvalidArgument` with Apple's message.
  package static func check(_ point: AudiogramPoint) throws(HealthError) {
    func range(_ value: Double, _ low: Double, _ high: Double, _ unit: String) throws(HealthError) {
      guard value.isFinite, value >= low, value <= high else {
        throw .healthKit(
          .errorInvalidArgument,
          "Value \(formatNumber(value)) \(unit) is outside the range "
            + "\(formatNumber(low)) - \(formatNumber(high)) \(unit)")
      }
    }
    try range(point.frequency, 0, 30_000, "Hz")
    guard !point.tests.isEmpty else {
      throw .healthKit(.errorInvalidArgument, "There must be at least one test conducted")
    }
    guard point.tests.count <= 2 else {
      throw .healthKit(.errorInvalidArgument, "Sensitivity Point cannot contain more than 2 tests")
    }
    guard Set(point.tests.map(\.side)).count == point.tests.count else {
      throw .healthKit(.errorInvalidArgument, "Sensitivity point cannot contain more than 1 test per ear")
    }
    for test in point.tests {
      try range(test.sensitivity, -20, 160, "dBHL")
      if let lower = test.clampLower, let upper = test.clampUpper, !(lower < upper) {
        throw .healthKit(.errorInvalidArgument, "The lower bound must be less than the upper bound")
      }
      for bound in [test.clampLower, test.clampUpper].compactMap({ $0 }) where !bound.isFinite {
        throw .healthKit(.errorInvalidArgument, "Clamping range bounds must be finite")
      }
    }
  }

  /// Checks the sample as HealthKit validates it on save: dates as a sample's, 1–30 points, frequencies unique and
  /// ascending, each point valid (``check(_:)``) and metadata values a sample may carry.
  /// - Throws: `wouldTerminate` for the dates and the points' count and order (construction raises on a device);
  ///   `errorInvalidArgument` for a point or a metadata value.
  package func validate() throws(HealthError) {
    try checkObjectDates(start, end, "HKAudiogramSample")
    guard !points.isEmpty else {
      throw .invalidArgumentException("An audiogram sample must have at least 1 sensitivity point")
    }
    guard points.count <= maxAudiogramPoints else {
      throw .invalidArgumentException("Audiograms are limited to 30 sensitivity points per sample")
    }
    guard zip(points, points.dropFirst()).allSatisfy({ $0.frequency < $1.frequency }) else {
      throw .invalidArgumentException("Audiogram frequencies must be unique and in ascending order.")
    }
    for point in points { try Self.check(point) }
    try metadata.checkValues()
  }
}

/// An audiogram as an app saves it (`HKAudiogramSample`): everything but the source, which the device sets.
package struct AudiogramInput: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// Start of the test.
  package var start: Date
  /// End of the test.
  package var end: Date
  /// The points, as the app gave them.
  package var points: [AudiogramPoint]
  /// The sample's metadata.
  package var metadata: Metadata

  /// Creates an input.
  package init(uuid: UUID, start: Date, end: Date, points: [AudiogramPoint], metadata: Metadata = [:]) {
    self.uuid = uuid
    self.start = start
    self.end = end
    self.points = points
    self.metadata = metadata
  }

  /// The stored audiogram of `source`, validated (``Audiogram/validate()``).
  /// - Throws: as ``Audiogram/validate()``.
  package func validated(source: SampleSource) throws(HealthError) -> Audiogram {
    let audiogram = Audiogram(uuid: uuid, start: start, end: end, points: points, metadata: metadata, source: source)
    try audiogram.validate()
    return audiogram
  }
}
