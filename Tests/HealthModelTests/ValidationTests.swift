import FoundationEssentials
import Testing

@testable import HealthModel

@Suite("Sample validation")
struct ValidationTests {
  let source = SampleSource(bundleID: "com.example.water", device: .phone)
  let t0 = parseDate("2026-01-05T08:00:00Z")!

  func type(_ name: String) -> SampleType { SampleType.lookup(name: name)! }

  func input(_ type: String, _ value: SampleInput.Value, start: Date? = nil, end: Date? = nil, metadata: Metadata = [:])
    -> SampleInput
  {
    SampleInput(
      uuid: UUID(), type: self.type(type), value: value, start: start ?? t0, end: end ?? t0, metadata: metadata)
  }

  @Test func convertsToCanonicalUnitAndKeepsMetadata() throws {
    let metadata: Metadata = [MetadataKey.wasUserEntered: .bool(true), "custom": .string("x")]
    let sample = try input("dietaryWater", .quantity(1, unit: "cup_us"), metadata: metadata).validated(source: source)
    #expect(abs(sample.quantityValue! - 236.5882365) < 1e-9)
    #expect(sample.metadata == metadata)
    #expect(sample.source == source)
  }

  @Test func equalStartAndEndIsAllowed() throws {
    _ = try input("dietaryWater", .quantity(250, unit: "mL")).validated(source: source)
  }

  struct Violation: Sendable, CustomTestStringConvertible {
    let name: String
    let input: @Sendable (ValidationTests) -> SampleInput
    let exception: String
    let messagePart: String
    var testDescription: String { name }
  }

  static let violations: [Violation] = [
    .init(
      name: "end before start",
      input: { $0.input("dietaryWater", .quantity(1, unit: "mL"), end: $0.t0.addingTimeInterval(-1)) },
      exception: "NSInvalidArgumentException", messagePart: "must be equal to or earlier than endDate"),
    .init(
      name: "incompatible unit", input: { $0.input("dietaryWater", .quantity(1, unit: "kg")) },
      exception: "NSInvalidArgumentException", messagePart: "incompatible unit 'kg'"),
    .init(
      name: "unparsable unit", input: { $0.input("dietaryWater", .quantity(1, unit: "floz")) },
      exception: "NSInvalidArgumentException", messagePart: "Unable to parse unit string 'floz'"),
    .init(
      name: "mindful value other than notApplicable", input: { $0.input("mindfulSession", .category(1)) },
      exception: "_HKObjectValidationFailureException",
      messagePart: "Value 1 is not compatible with type HKCategoryTypeIdentifierMindfulSession"),
    .init(
      name: "sleep value out of range", input: { $0.input("sleepAnalysis", .category(601)) },
      exception: "_HKObjectValidationFailureException", messagePart: "Value 601 is not compatible"),
    .init(
      name: "menstrual flow zero",
      input: { $0.input("menstrualFlow", .category(0), metadata: [MetadataKey.menstrualCycleStart: .bool(true)]) },
      exception: "_HKObjectValidationFailureException", messagePart: "Value 0 is not compatible"),
    .init(
      name: "menstrual flow missing cycle start", input: { $0.input("menstrualFlow", .category(2)) },
      exception: "_HKObjectValidationFailureException", messagePart: "required keys: HKMetadataKeyMenstrualCycleStart"),
    .init(
      name: "sync version without identifier",
      input: { $0.input("dietaryWater", .quantity(1, unit: "mL"), metadata: [MetadataKey.syncVersion: .int(1)]) },
      exception: "_HKObjectValidationFailureException", messagePart: "HKMetadataKeySyncVersion may not be provided"),
    .init(
      name: "distant future end", input: { $0.input("dietaryWater", .quantity(1, unit: "mL"), end: .distantFuture) },
      exception: "_HKObjectValidationFailureException", messagePart: "distantFuture"),
    .init(
      name: "category value on quantity type", input: { $0.input("stepCount", .category(0)) },
      exception: "NSInvalidArgumentException", messagePart: "is a quantity type"),
    .init(
      name: "quantity on category type", input: { $0.input("mindfulSession", .quantity(1, unit: "min")) },
      exception: "NSInvalidArgumentException", messagePart: "is a category type"),
    .init(
      name: "insulin delivery missing its reason", input: { $0.input("insulinDelivery", .quantity(4, unit: "IU")) },
      exception: "_HKObjectValidationFailureException",
      messagePart: "required keys: HKMetadataKeyInsulinDeliveryReason"),
    .init(
      name: "cervical mucus zero", input: { $0.input("cervicalMucusQuality", .category(0)) },
      exception: "_HKObjectValidationFailureException",
      messagePart: "Value 0 is not compatible with type HKCategoryTypeIdentifierCervicalMucusQuality"),
    .init(
      name: "headache severity out of range", input: { $0.input("headache", .category(5)) },
      exception: "_HKObjectValidationFailureException", messagePart: "Value 5 is not compatible"),
    .init(
      name: "blood glucose in a volume", input: { $0.input("bloodGlucose", .quantity(5, unit: "mL")) },
      exception: "NSInvalidArgumentException", messagePart: "expected a unit compatible with 'mg/dL'"),
  ]

  @Test("Construction violations would terminate the app", arguments: violations)
  func violation(_ v: Violation) {
    do {
      _ = try v.input(self).validated(source: source)
      Issue.record("expected a termination error")
    } catch {
      #expect(error.kind == .wouldTerminate)
      #expect(error.code == .errorInvalidArgument)
      #expect(error.exception == v.exception)
      #expect(error.message.contains(v.messagePart), "\(error.message)")
      #expect(error.description.hasPrefix("this would terminate the app on a device"))
    }
  }

  @Test func newTypesConvertAndKeepTheirMetadata() throws {
    let glucose = try input("bloodGlucose", .quantity(5.5, unit: "mmol<180.15588000005408>/L"))
      .validated(source: source)
    #expect(abs(glucose.quantityValue! - 99.0857340000297) < 1e-9)
    let insulin = try input(
      "insulinDelivery", .quantity(4, unit: "IU"), metadata: [MetadataKey.insulinDeliveryReason: .int(2)]
    ).validated(source: source)
    #expect(insulin.quantityValue == 4)
    let vo2 = try input("vo2Max", .quantity(45, unit: "mL/min·kg")).validated(source: source)
    #expect(abs(vo2.quantityValue! - 45) < 1e-9)
    for value in 0...4 { _ = try input("headache", .category(value)).validated(source: source) }
    // An exposure lasts at least 1 ms (behavior.md T14).
    _ = try input("environmentalAudioExposure", .quantity(72, unit: "dBASPL"), end: t0.addingTimeInterval(60))
      .validated(source: source)
  }

  @Test func validCategoryValues() throws {
    for value in 0...5 { _ = try input("sleepAnalysis", .category(value)).validated(source: source) }
    for value in 1...5 {
      _ = try input("menstrualFlow", .category(value), metadata: [MetadataKey.menstrualCycleStart: .bool(value == 1)])
        .validated(source: source)
    }
    _ = try input("mindfulSession", .category(0), end: t0.addingTimeInterval(600)).validated(source: source)
  }

  @Test func dateFormattingRoundTrips() throws {
    for text in ["2026-01-05T08:00:00Z", "1999-12-31T23:59:59Z", "2024-02-29T12:30:00Z", "2026-01-05T08:00:00.250Z"] {
      let date = try #require(parseDate(text))
      #expect(formatDate(date) == text)
    }
    #expect(parseDate("2026-01-05") == parseDate("2026-01-05T00:00:00Z"))
    #expect(parseDate("2026-13-01") == nil)
    #expect(parseDate("2026-01-05T25:00") == nil)
    #expect(parseDate("yesterday") == nil)
  }
}

/// Values the fuzzers produced that once trapped: each must now be an error or a harmless rendering.
@Suite("Hostile values (fuzz regressions)")
struct HostileValueTests {
  @Test func datesOutsideYears0Through9999AreRefusedOrRenderedAsNumbers() {
    #expect(parseDate("99999-01-01T00:00:00Z") == nil)
    #expect(parseDate("-0001-01-01T00:00:00Z") == nil)
    #expect(formatDate(Date(timeIntervalSince1970: 1e300)).contains("since 1970"))
    #expect(formatDate(Date(timeIntervalSince1970: -.infinity)).contains("since 1970"))
    #expect(formatDate(Date(timeIntervalSince1970: .nan)).contains("since 1970"))
    #expect(formatDate(parseDate("9999-12-31T23:59:59Z")!) == "9999-12-31T23:59:59Z")
  }

  @Test func hugeOrNonFiniteDurations() {
    #expect(parseDuration("99999999999999999999d") == nil)
    #expect(parseDuration("10m") == 600)
    #expect(formatDuration(.infinity).hasSuffix("s"))
    #expect(formatDuration(-.infinity).hasSuffix("s"))
    #expect(formatDuration(1e300).hasSuffix("s"))
  }

  @Test func aUnitPowerOfIntMinIsAnError() {
    #expect(throws: UnitError.invalidPower("-9223372036854775808", offset: 2)) {
      try HealthUnit(parsing: "m^-9223372036854775808")
    }
    #expect(throws: UnitError.invalidPower("13", offset: 2)) { try HealthUnit(parsing: "m^13") }
    #expect((try? HealthUnit(parsing: "m^-2")) != nil)
  }

  @Test func aSampleBeforeYearOneIsAValidationError() {
    let water = SampleType.lookup(name: "dietaryWater")!
    let ancient = Date(timeIntervalSince1970: -1e15)
    let input = SampleInput(uuid: UUID(), type: water, value: .quantity(1, unit: "mL"), start: ancient, end: ancient)
    let message = "Type HKSample can not have startDate before 0001-01-01 (was -1000000000000000.0 s since 1970)"
    #expect(throws: HealthError.validationException(message)) {
      _ = try input.validated(source: SampleSource(bundleID: "a", device: .phone))
    }
  }
}

/// Issue 10 item 1: values that are finite as given but not once stored, and metadata numbers that are not finite.
@Suite("Out-of-range values")
struct OutOfRangeValueTests {
  let source = SampleSource(bundleID: "com.example.water", device: .phone)
  let water = SampleType.lookup(name: "dietaryWater")!
  let t0 = parseDate("2026-01-05T08:00:00Z")!

  func save(_ amount: Double, _ unit: String, metadata: Metadata = [:]) -> Result<Sample, HealthError> {
    let input = SampleInput(
      uuid: UUID(), type: water, value: .quantity(amount, unit: unit), start: t0, end: t0,
      metadata: metadata)
    do throws(HealthError) { return .success(try input.validated(source: source)) } catch { return .failure(error) }
  }

  func expectInvalidArgument(
    _ result: Result<Sample, HealthError>, _ messagePart: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard case .failure(let error) = result else {
      Issue.record("expected errorInvalidArgument, stored \(result)", sourceLocation: sourceLocation)
      return
    }
    #expect(error.kind == .healthKit, sourceLocation: sourceLocation)
    #expect(error.code == .errorInvalidArgument, sourceLocation: sourceLocation)
    #expect(error.message.contains(messagePart), "\(error.message)", sourceLocation: sourceLocation)
  }

  @Test func aFiniteAmountThatOverflowsInTheCanonicalUnitIsRefused() {
    // 1e308 L is 1e311 mL: infinity once converted, so it is refused rather than stored as `inf mL`.
    expectInvalidArgument(save(1e308, "L"), "out of range for HKQuantityTypeIdentifierDietaryWater")
    expectInvalidArgument(save(-1e308, "L"), "-inf mL")
    // Finite but large enough that sums of such samples would overflow.
    expectInvalidArgument(save(2e250, "mL"), "1e250")
    #expect((try? save(1e250, "mL").get())?.quantityValue == 1e250)
    #expect((try? save(1e200, "L").get()) != nil)
  }

  @Test func aNonFiniteAmountStillWouldTerminate() {
    guard case .failure(let error) = save(.nan, "L") else {
      Issue.record("NaN stored")
      return
    }
    #expect(error.kind == .wouldTerminate)
    #expect(error.message.contains("must be finite"))
  }

  @Test func nonFiniteMetadataNumbersDatesAndQuantitiesAreRefused() {
    for (value, shown) in [
      (MetadataValue.double(.nan), "nan"), (.double(.infinity), "inf"), (.double(-.infinity), "-inf"),
      (.quantity(.infinity, unit: "kg"), "inf kg"), (.quantity(.nan, unit: "kg"), "nan kg"),
      (.date(Date(timeIntervalSinceReferenceDate: .nan)), "<nan s since 1970>"),
    ] {
      expectInvalidArgument(
        save(250, "mL", metadata: ["ok": .int(1), "bad": value]),
        "Invalid value \(shown)")
      expectInvalidArgument(save(250, "mL", metadata: ["bad": value]), "for metadata key: bad")
    }
  }

  @Test func aMetadataQuantityNeedsAUnitHealthKitParses() {
    expectInvalidArgument(
      save(250, "mL", metadata: ["q": .quantity(1, unit: "floz")]), "Unable to parse unit string 'floz'")
    expectInvalidArgument(save(250, "mL", metadata: ["q": .quantity(1, unit: "")]), "metadata key: q")
    let kept = try? save(250, "mL", metadata: ["q": .quantity(2, unit: "kg"), "d": .double(1e300)]).get()
    #expect(kept?.metadata["q"] == .quantity(2, unit: "kg"))
  }

  @Test func constructionErrorsComeBeforeTheRangeCheck() {
    // An incompatible unit terminates the app whatever the amount.
    guard case .failure(let error) = save(1e308, "kg") else {
      Issue.record("stored")
      return
    }
    #expect(error.kind == .wouldTerminate)
  }

  @Test func unitsWhoseExponentsOrScaleOverflowAreRefused() {
    // Four litres to the 12th: the length exponent is 144, beyond the Int8 it is kept in: refused, never a trap.
    #expect(throws: UnitError.outOfRange("L^12.L^12.L^12.L^12")) { try HealthUnit(parsing: "L^12.L^12.L^12.L^12") }
    // TL is 1e9 m^3: to the 36th power that is 1e324 m^108, beyond a Double; fL^24 is 1e-432, below one.
    #expect(throws: UnitError.outOfRange("TL^12.TL^12.TL^12")) { try HealthUnit(parsing: "TL^12.TL^12.TL^12") }
    #expect(throws: UnitError.outOfRange("fL^12.fL^12")) { try HealthUnit(parsing: "fL^12.fL^12") }
    #expect((try? HealthUnit(parsing: "L^12.L^12.L^12")) != nil, "an exponent of 108 is fine")
    // Hand-built components never trap either.
    let huge = HealthUnit(components: Array(repeating: .init(prefix: "", symbol: "L", power: 12), count: 10))
    #expect(huge.dimension.length == 127)
  }
}
