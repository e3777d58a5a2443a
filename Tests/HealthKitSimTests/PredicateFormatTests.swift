import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// `NSPredicate(format:)` as published HealthKit code writes it: swift-corelibs-foundation has no format parser, so
/// HealthKitSim reads the formats that describe samples (docs/healthkit-api.md, "Format predicates").
@Suite("Format predicates (NSPredicate(format:))")
struct PredicateFormatTests {
  static let typed = water(250, at: t0, metadata: [HKMetadataKeyWasUserEntered: true, "cup": "large"])
  static let measured = water(500, at: t0 + 60, metadata: ["cup": "steel"])
  static let untouched = water(90, at: t0 + 120)

  /// A format, its arguments, and which of `typed`, `measured`, `untouched` it matches.
  struct Case: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [any Sendable]
    let matches: [Bool]
    var testDescription: String { format }
    init(_ format: String, _ arguments: [any Sendable] = [], _ matches: [Bool]) {
      self.format = format
      self.arguments = arguments
      self.matches = matches
    }
  }

  @Test(arguments: [
    Case("metadata.%K != YES", [HKMetadataKeyWasUserEntered], [false, true, true]),
    Case("metadata.%K == YES", [HKMetadataKeyWasUserEntered], [true, false, false]),
    Case("metadata.%K == nil", [HKMetadataKeyWasUserEntered], [false, true, true]),
    Case("metadata.cup != nil", [], [true, true, false]),
    Case("%K IN {'large', 'small'}", ["metadata.cup"], [true, false, false]),
    Case("NOT (metadata.cup IN %@)", [["steel"]], [true, false, true]),
    Case("%K >= %@", [HKPredicateKeyPathStartDate, NSDate(timeInterval: 30, since: t0)], [false, true, true]),
    Case("startDate > %@ AND startDate < %@", [t0, t0 + 100], [false, true, false]),
    Case("%@ >= endDate", [t0 + 60], [true, true, false]),
    Case("endDate == %@ || endDate == %@", [t0, t0 + 120], [true, false, true]),
    Case("startDate BETWEEN {%@, %@}", [t0 + 1, t0 + 200], [false, true, true]),
    Case("quantity > %@", [HKQuantity(unit: .liter(), doubleValue: 0.1)], [true, true, false]),
    Case("%K <= %@", [HKPredicateKeyPathQuantity, HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250)],
      [true, false, true]),
    Case("UUID == %@", [typed.uuid], [true, false, false]),
    Case("%K IN %@", [HKPredicateKeyPathUUID, [measured.uuid, untouched.uuid]], [false, true, true]),
    Case("TRUEPREDICATE", [], [true, true, true]),
    Case("FALSEPREDICATE OR (metadata.cup = 'steel' AND NOT metadata.%K == 1)", [HKMetadataKeyWasUserEntered],
      [false, true, false]),
  ])
  func aFormatMatchesAsOnADevice(_ c: Case) {
    let predicate = NSPredicate(format: c.format, argumentArray: c.arguments)
    #expect([Self.typed, Self.measured, Self.untouched].map { predicate.evaluate(with: $0) } == c.matches)
    let variadic = c.arguments.count == 1 ? NSPredicate(format: c.format, c.arguments[0]) : nil
    if let variadic { #expect(variadic.evaluate(with: Self.typed) == c.matches[0]) }
  }

  /// Category values compare with numbers however they arrive (an `NSNumber` 0 or 1 reads as a Boolean on Linux);
  /// device properties by their names; a format nested too deep is refused, not a stack overflow.
  @Test func categoryValuesDevicePropertiesAndDepth() {
    let sleep = HKCategoryType(.sleepAnalysis)
    let inBed = HKCategorySample(type: sleep, value: HKCategoryValueSleepAnalysis.inBed.rawValue, start: t0, end: t0)
    let rem = HKCategorySample(
      type: sleep, value: HKCategoryValueSleepAnalysis.asleepREM.rawValue, start: t0, end: t0 + 60)
    for predicate in [
      NSPredicate(format: "%K == %@", HKPredicateKeyPathCategoryValue, NSNumber(value: 0)),
      NSPredicate(format: "value == NO"),
      NSPredicate(format: "%K IN %@", HKPredicateKeyPathCategoryValue, [0, 3] as NSArray),
    ] {
      #expect(predicate.evaluate(with: inBed) && !predicate.evaluate(with: rem), "\(predicate)")
    }
    let recorded = HKQuantitySample(
      type: waterType, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 1), start: t0, end: t0,
      device: HKDevice(
        name: "Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: nil, firmwareVersion: nil,
        softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil), metadata: nil)
    #expect(NSPredicate(format: "device.model == %@", "Watch").evaluate(with: recorded))
    #expect(NSPredicate(format: "device.%K IN {'Watch'}", HKDevicePropertyKeyModel).evaluate(with: recorded))
    #expect(!NSPredicate(format: "device.model == 'iPhone'").evaluate(with: recorded))
    let deep = NSPredicate(format: String(repeating: "(", count: 10_000) + "TRUEPREDICATE")
    #expect(!deep.evaluate(with: Self.typed), "refused, not evaluated")
    #expect(NSPredicate(format: "metadata.cup == 'lar\\ge' OR value > .5").evaluate(with: inBed) == false)
  }

  /// Published code passes dates and identifiers `as CVarArg`, which on Linux HealthKitSim makes compile.
  @Test func datesAndIdentifiersPassedAsCVarArg() {
    let recent = NSPredicate(format: "%K >= %@", HKPredicateKeyPathStartDate, (t0 + 30) as CVarArg)
    #expect(!recent.evaluate(with: Self.typed) && recent.evaluate(with: Self.measured))
    let one = NSPredicate(format: "%K == %@", HKPredicateKeyPathUUID, Self.typed.uuid as CVarArg)
    #expect(one.evaluate(with: Self.typed) && !one.evaluate(with: Self.measured))
    #expect(String(format: "%@", t0 as CVarArg).hasPrefix("<CFDate"), "a C-variadic call gets an NSDate")
  }

  @Test(arguments: [
    ("sumQuantity == 1", [any Sendable](), "the key path 'sumQuantity' needs a quantity type identifier", 0),
    ("sumQuantity.HKQuantityTypeIdentifierHeartRate > %@", [HKQuantity(unit: .kilocalorie(), doubleValue: 1)],
      "an HKQuantity of heartRate's dimension", 0),
    ("averageQuantity.HKQuantityTypeIdentifierNope > 1", [], "is not a quantity type identifier", 0),
    ("metadata.cup CONTAINS 'st'", [], "the operator 'CONTAINS'", 13),
    ("startDate >= %@", [], "more format specifiers than arguments (0)", 13),
    ("startDate >= %@", ["yesterday"], "startDate compares with a date, not a string", 0),
    ("UUID < %@", [UUID()], "UUID compares only with == and !=", 0),
    ("name == $NAME", [], "substitution variables", 8),
    ("(startDate > %@", [Date()], "expected ')'", 15),
  ] as [(String, [any Sendable], String, Int)])
  func aFormatHealthKitSimCannotReadFailsTheQuerySayingWhere(
    format: String, arguments: [any Sendable], reason: String, offset: Int
  ) async throws {
    let predicate = NSPredicate(format: format, argumentArray: arguments)
    #expect(!predicate.evaluate(with: Self.typed))
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      await pair.phone.use(app: waterID) {
        let error = await #expect(throws: HealthKitSimError.self) {
          try await samples(HKHealthStore(), waterType, predicate: predicate)
        }
        let message = "\(error.map { $0 } as Any)"
        #expect(message.contains(reason) && message.contains("at offset \(offset)"), "\(message)")
      }
    }
  }

  /// The daemon applies a format predicate as it applies the factories' (before the limit), alone or inside an
  /// `NSCompoundPredicate` with them.
  @Test func theDaemonAppliesAFormatLikeTheFactoriesPredicates() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        try await store.save([Self.typed, Self.measured, Self.untouched])
        let notTyped = NSPredicate(format: "metadata.%K != YES", HKMetadataKeyWasUserEntered)
        let found = try await samples(store, waterType, predicate: notTyped)
        #expect(Set(found.map(\.uuid)) == [Self.measured.uuid, Self.untouched.uuid])
        let window = HKQuery.predicateForSamples(withStart: t0 + 30, end: t0 + 90, options: .strictStartDate)
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [window, notTyped])
        let sum = try await statistics(store, waterType, predicate: both, options: .cumulativeSum)
        #expect(sum.sumQuantity()?.doubleValue(for: .literUnit(with: .milli)) == 500)
        // The commonest format, startDate >= a AND startDate < b, is predicateForSamples(…, .strictStartDate): a
        // sample across the end is prorated alike (its part before the end counts).
        let long = HKQuantitySample(
          type: waterType, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 1000),
          start: t0 - 3600, end: t0 + 3600)
        try await store.save(long)
        let morning = (start: t0 - 3 * 3600, end: t0)
        let factory = HKQuery.predicateForSamples(withStart: morning.start, end: morning.end, options: .strictStartDate)
        let format = NSPredicate(
          format: "%K >= %@ AND %K < %@", HKPredicateKeyPathStartDate, morning.start as NSDate,
          HKPredicateKeyPathStartDate, morning.end as NSDate)
        var sums: [Double?] = []
        for predicate in [factory, format] {
          let sum = try await statistics(store, waterType, predicate: predicate, options: .cumulativeSum)
          sums.append(sum.sumQuantity()?.doubleValue(for: .literUnit(with: .milli)))
        }
        #expect(sums[0] == sums[1] && sums[0] == 500, "\(sums)")
        let newest = NSPredicate(format: "startDate > %@", t0 as NSDate)
        let first = try await samples(
          store, waterType, predicate: newest, limit: 1,
          sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)])
        #expect(first.map(\.uuid) == [Self.measured.uuid], "filtered before the limit")
      }
    }
  }
}
