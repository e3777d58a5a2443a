import Foundation
import HealthEngine
import HealthModel

/// The type of conduction a hearing test measured: air (the only one Apple defines; iOS 18.1).
public enum HKAudiogramConductionType: Int, Sendable {
  /// Air conduction.
  case air = 0
}

/// The ear a hearing test measured (iOS 18.1).
public enum HKAudiogramSensitivityTestSide: Int, Sendable {
  /// The left ear.
  case left = 0
  /// The right ear.
  case right = 1
}

/// The range a test's sensitivity was clamped to (iOS 18.1): bounds in dBHL.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKAudiogramSensitivityPointClampingRange: NSObject, @unchecked Sendable {
  /// The lower bound, dBHL.
  public let lowerBound: HKQuantity?
  /// The upper bound, dBHL.
  public let upperBound: HKQuantity?
  let lower: Double?
  let upper: Double?

  /// A range from `lowerBound` to `upperBound` (in dBHL).
  /// - Throws: `HKError(.errorInvalidArgument)` with neither bound, or a lower bound not below the upper.
  public init(lowerBound: NSNumber?, upperBound: NSNumber?) throws {
    lower = lowerBound?.doubleValue
    upper = upperBound?.doubleValue
    guard lower != nil || upper != nil else {
      throw HKError(.errorInvalidArgument, message: "At least one bound must be specified")
    }
    if let lower, let upper, !(lower < upper) {
      throw HKError(.errorInvalidArgument, message: "The lower bound must be less than the upper bound")
    }
    self.lowerBound = lower.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0) }
    self.upperBound = upper.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0) }
  }
}

/// One hearing test at a frequency (iOS 18.1): the sensitivity of one ear, masked or not.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKAudiogramSensitivityTest: NSObject, @unchecked Sendable {
  /// The hearing level, in dBHL.
  public let sensitivity: HKQuantity
  /// The conduction type.
  public let type: HKAudiogramConductionType
  /// Whether the other ear was masked.
  public let masked: Bool
  /// The ear.
  public let side: HKAudiogramSensitivityTestSide
  /// The range the sensitivity was clamped to.
  public let clampingRange: HKAudiogramSensitivityPointClampingRange?
  let model: AudiogramTest

  /// A test of `side` at `sensitivity` (a hearing-level quantity, −20 to 160 dBHL).
  /// - Throws: `HKError(.errorInvalidArgument)` for a sensitivity out of range; ``HKSimulatedTermination`` (a device
  ///   raises) for a unit that is not a hearing level.
  public init(
    sensitivity: HKQuantity, type: HKAudiogramConductionType, masked: Bool, side: HKAudiogramSensitivityTestSide,
    clampingRange: HKAudiogramSensitivityPointClampingRange?
  ) throws {
    let dBHL = try Self.hearingLevel(sensitivity, api: "HKAudiogramSensitivityTest")
    let test = AudiogramTest(
      sensitivity: dBHL, side: side == .left ? .left : .right, masked: masked, clampLower: clampingRange?.lower,
      clampUpper: clampingRange?.upper)
    try checked(api: "HKAudiogramSensitivityTest") {
      () throws(HealthError) in try Audiogram.check(AudiogramPoint(frequency: 1_000, tests: [test]))
    }
    model = test
    self.sensitivity = sensitivity
    self.type = type
    self.masked = masked
    self.side = side
    self.clampingRange = clampingRange
  }

  init(_ test: AudiogramTest) {
    model = test
    sensitivity = HKQuantity(unit: .decibelHearingLevel(), doubleValue: test.sensitivity)
    type = .air
    masked = test.masked
    side = test.side == .left ? .left : .right
    clampingRange =
      test.clampLower == nil && test.clampUpper == nil
      ? nil
      : try? HKAudiogramSensitivityPointClampingRange(
        lowerBound: test.clampLower.map { NSNumber(value: $0) }, upperBound: test.clampUpper.map { NSNumber(value: $0) }
      )
  }

  /// `quantity` in dBHL, or a termination report (and the thrown termination) for another unit.
  static func hearingLevel(_ quantity: HKQuantity, api: String) throws -> Double {
    guard quantity.is(compatibleWith: .decibelHearingLevel()) else {
      let termination = HKSimulatedTermination(
        exceptionName: "NSInvalidArgumentException", reason: "Sensitivity must be a decibel unit", api: api)
      HealthKitSim.reportTermination(termination)
      throw termination
    }
    return quantity.doubleValue(for: .decibelHearingLevel())
  }
}

/// One frequency of an audiogram with its tests (iOS 13; tests iOS 18.1).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKAudiogramSensitivityPoint: NSObject, @unchecked Sendable {
  /// The frequency, in hertz.
  public let frequency: HKQuantity
  /// The tests made at the frequency.
  public let tests: [HKAudiogramSensitivityTest]
  let model: AudiogramPoint

  /// The left ear's sensitivity: its unmasked test's, else its masked one's.
  @available(iOS, deprecated: 18.1, message: "Use tests")
  public var leftEarSensitivity: HKQuantity? { quantity(.left) }
  /// The right ear's sensitivity: its unmasked test's, else its masked one's.
  @available(iOS, deprecated: 18.1, message: "Use tests")
  public var rightEarSensitivity: HKQuantity? { quantity(.right) }

  /// A point at `frequency` with unmasked air tests of the ears given.
  /// - Throws: `HKError(.errorInvalidArgument)` with neither ear, or a value out of range (0–30,000 Hz, −20–160
  ///   dBHL); ``HKSimulatedTermination`` for a unit that is not a frequency or a hearing level.
  @available(iOS, deprecated: 18.1, message: "Use init(frequency:tests:)")
  public convenience init(frequency: HKQuantity, leftEarSensitivity: HKQuantity?, rightEarSensitivity: HKQuantity?)
    throws
  {
    guard leftEarSensitivity != nil || rightEarSensitivity != nil else {
      throw HKError(.errorInvalidArgument, message: "At least one sensitivity (left or right) must be set")
    }
    var tests: [HKAudiogramSensitivityTest] = []
    for (ear, side) in [(leftEarSensitivity, HKAudiogramSensitivityTestSide.left), (rightEarSensitivity, .right)] {
      guard let ear else { continue }
      tests.append(
        try HKAudiogramSensitivityTest(sensitivity: ear, type: .air, masked: false, side: side, clampingRange: nil))
    }
    try self.init(frequency: frequency, tests: tests)
  }

  /// A point at `frequency` with `tests` (one or two, at most one per ear).
  /// - Throws: `HKError(.errorInvalidArgument)` for no test, more than two or two of one ear, or a frequency out of
  ///   range; ``HKSimulatedTermination`` for a unit that is not a frequency.
  public init(frequency: HKQuantity, tests: [HKAudiogramSensitivityTest]) throws {
    guard frequency.is(compatibleWith: .hertz()) else {
      let termination = HKSimulatedTermination(
        exceptionName: "_HKObjectValidationFailureException",
        reason: "Unit '\(frequency.unit.unitString)' is not compatible with unit 'Hz'",
        api: "HKAudiogramSensitivityPoint")
      HealthKitSim.reportTermination(termination)
      throw termination
    }
    let point = AudiogramPoint(frequency: frequency.doubleValue(for: .hertz()), tests: tests.map(\.model))
    try checked(api: "HKAudiogramSensitivityPoint") { () throws(HealthError) in try Audiogram.check(point) }
    model = point
    self.frequency = frequency
    self.tests = tests
  }

  init(_ point: AudiogramPoint) {
    model = point
    frequency = HKQuantity(unit: .hertz(), doubleValue: point.frequency)
    tests = point.tests.map(HKAudiogramSensitivityTest.init)
  }

  private func quantity(_ side: AudiogramSide) -> HKQuantity? {
    model.sensitivity(side).map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0) }
  }
}

/// An audiogram (iOS 13): hearing sensitivities at up to 30 ascending frequencies, saved by a hearing-test app
/// with share permission (behavior.md H1–H3).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKAudiogramSample: HKSample, @unchecked Sendable {
  /// The points, frequencies ascending.
  public let sensitivityPoints: [HKAudiogramSensitivityPoint]

  /// An audiogram with a new UUID. The points' count (1–30) and order (frequencies unique, ascending) are checked
  /// when it is saved, where a device would raise.
  @available(iOS, deprecated: 18.1, message: "Use init(sensitivityPoints:start:end:device:metadata:)")
  public convenience init(
    sensitivityPoints: [HKAudiogramSensitivityPoint], start startDate: Date, end endDate: Date,
    metadata: [String: Any]?
  ) {
    self.init(sensitivityPoints: sensitivityPoints, start: startDate, end: endDate, device: nil, metadata: metadata)
  }

  /// An audiogram with a new UUID, measured with `device` (iOS 18.1).
  public init(
    sensitivityPoints: [HKAudiogramSensitivityPoint], start startDate: Date, end endDate: Date, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.sensitivityPoints = sensitivityPoints
    super.init(
      uuid: .fresh(), start: startDate, end: endDate, metadata: MetadataPayload(metadata).adding(device),
      origin: HKSample.unsavedOrigin(HKObjectType.audiogramSampleType()))
  }

  /// The object for a stored audiogram.
  package init(_ audiogram: Audiogram) {
    sensitivityPoints = audiogram.points.map(HKAudiogramSensitivityPoint.init)
    super.init(
      uuid: audiogram.uuid, start: audiogram.start, end: audiogram.end, metadata: .valid(audiogram.metadata),
      origin: SampleOrigin(
        type: HKObjectType.audiogramSampleType(), unit: nil, source: HKSourceRevision(audiogram.source)))
  }

  override var valueDescription: String? { "\(sensitivityPoints.count) points" }

  /// The audiogram as the daemon's save takes it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses.
  func audiogramInput(api: String) throws -> AudiogramInput {
    AudiogramInput(
      uuid: uuid, start: startDate, end: endDate, points: sensitivityPoints.map(\.model),
      metadata: try metadataPayload.checked(api: api))
  }
}

/// Runs an engine check for a throwing initializer, its error as the public API throws it.
private func checked(api: String, _ body: () throws(HealthError) -> Void) throws {
  do { try body() } catch { throw Session.translate(error, api: api) }
}
