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
    SampleInput(uuid: UUID(), type: self.type(type), value: value, start: start ?? t0, end: end ?? t0, metadata: metadata)
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
    .init(name: "end before start", input: { $0.input("dietaryWater", .quantity(1, unit: "mL"), end: $0.t0.addingTimeInterval(-1)) },
          exception: "NSInvalidArgumentException", messagePart: "must be equal to or earlier than endDate"),
    .init(name: "incompatible unit", input: { $0.input("dietaryWater", .quantity(1, unit: "kg")) },
          exception: "NSInvalidArgumentException", messagePart: "incompatible unit 'kg'"),
    .init(name: "unparsable unit", input: { $0.input("dietaryWater", .quantity(1, unit: "floz")) },
          exception: "NSInvalidArgumentException", messagePart: "Unable to parse unit string 'floz'"),
    .init(name: "mindful value other than notApplicable", input: { $0.input("mindfulSession", .category(1)) },
          exception: "_HKObjectValidationFailureException", messagePart: "Value 1 is not compatible with type HKCategoryTypeIdentifierMindfulSession"),
    .init(name: "sleep value out of range", input: { $0.input("sleepAnalysis", .category(601)) },
          exception: "_HKObjectValidationFailureException", messagePart: "Value 601 is not compatible"),
    .init(name: "menstrual flow zero", input: { $0.input("menstrualFlow", .category(0), metadata: [MetadataKey.menstrualCycleStart: .bool(true)]) },
          exception: "_HKObjectValidationFailureException", messagePart: "Value 0 is not compatible"),
    .init(name: "menstrual flow missing cycle start", input: { $0.input("menstrualFlow", .category(2)) },
          exception: "_HKObjectValidationFailureException", messagePart: "required keys: HKMetadataKeyMenstrualCycleStart"),
    .init(name: "sync version without identifier", input: { $0.input("dietaryWater", .quantity(1, unit: "mL"), metadata: [MetadataKey.syncVersion: .int(1)]) },
          exception: "_HKObjectValidationFailureException", messagePart: "HKMetadataKeySyncVersion may not be provided"),
    .init(name: "distant future end", input: { $0.input("dietaryWater", .quantity(1, unit: "mL"), end: .distantFuture) },
          exception: "_HKObjectValidationFailureException", messagePart: "distantFuture"),
    .init(name: "category value on quantity type", input: { $0.input("stepCount", .category(0)) },
          exception: "NSInvalidArgumentException", messagePart: "is a quantity type"),
    .init(name: "quantity on category type", input: { $0.input("mindfulSession", .quantity(1, unit: "min")) },
          exception: "NSInvalidArgumentException", messagePart: "is a category type"),
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
    #expect(throws: UnitError.self) { try HealthUnit(parsing: "m^-9223372036854775808") }
    #expect(throws: UnitError.self) { try HealthUnit(parsing: "m^13") }
    #expect((try? HealthUnit(parsing: "m^-2")) != nil)
  }

  @Test func aSampleBeforeYearOneIsAValidationError() {
    let water = SampleType.lookup(name: "dietaryWater")!
    let ancient = Date(timeIntervalSince1970: -1e15)
    let input = SampleInput(uuid: UUID(), type: water, value: .quantity(1, unit: "mL"), start: ancient, end: ancient)
    #expect(throws: HealthError.self) {
      _ = try input.validated(source: SampleSource(bundleID: "a", device: .phone))
    }
  }
}
