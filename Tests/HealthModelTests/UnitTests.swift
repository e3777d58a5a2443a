import Testing

@testable import HealthModel

struct ConversionCase: Sendable, CustomTestStringConvertible {
  let value: Double
  let from: String
  let expected: Double
  let to: String
  var testDescription: String { "\(value) \(from) = \(expected) \(to)" }
}

@Suite("Units")
struct UnitTests {
  static let conversions: [ConversionCase] = [
    // Volumes (HKUnit.h constants).
    .init(value: 1, from: "fl_oz_us", expected: 0.0295735295625, to: "L"),
    .init(value: 1, from: "L", expected: 33.814022701843, to: "fl_oz_us"),
    .init(value: 1, from: "cup_us", expected: 236.5882365, to: "mL"),
    .init(value: 1, from: "cup_us", expected: 8, to: "fl_oz_us"),
    .init(value: 1, from: "pt_us", expected: 16, to: "fl_oz_us"),
    .init(value: 1, from: "fl_oz_imp", expected: 28.4130625, to: "mL"),
    .init(value: 1, from: "cup_imp", expected: 0.284130625, to: "L"),
    .init(value: 1, from: "pt_imp", expected: 568.26125, to: "mL"),
    .init(value: 250, from: "mL", expected: 0.25, to: "L"),
    .init(value: 1, from: "dL", expected: 100, to: "mL"),
    // Mass.
    .init(value: 1, from: "lb", expected: 453.592, to: "g"),
    .init(value: 1, from: "oz", expected: 28.3495, to: "g"),
    .init(value: 1, from: "st", expected: 6.35, to: "kg"),
    .init(value: 1, from: "kg", expected: 1_000_000, to: "mg"),
    .init(value: 1, from: "g", expected: 1_000_000, to: "mcg"),
    // Energy.
    .init(value: 1, from: "kcal", expected: 4184, to: "J"),
    .init(value: 1, from: "kcal", expected: 1000, to: "cal"),
    .init(value: 1, from: "Cal", expected: 1, to: "kcal"),
    .init(value: 1, from: "kJ", expected: 0.239005736137667, to: "kcal"),
    // Time.
    .init(value: 1, from: "hr", expected: 60, to: "min"),
    .init(value: 1, from: "d", expected: 86400, to: "s"),
    .init(value: 1500, from: "ms", expected: 1.5, to: "s"),
    // Temperature (offsets).
    .init(value: 100, from: "degC", expected: 212, to: "degF"),
    .init(value: 0, from: "degC", expected: 273.15, to: "K"),
    .init(value: 32, from: "degF", expected: 0, to: "degC"),
    .init(value: -40, from: "degF", expected: -40, to: "degC"),
    // Compounds.
    .init(value: 60, from: "count/min", expected: 1, to: "count/s"),
    .init(value: 1, from: "count/s", expected: 60, to: "count/min"),
    .init(value: 72, from: "count/min", expected: 4320, to: "count/hr"),
    .init(value: 1, from: "kg/m^2", expected: 0.1, to: "g/cm^2"),
    .init(value: 1, from: "kg/m.s^2", expected: 1, to: "kg.m^-1.s^-2"),
    .init(value: 1, from: "kg/m.s^2", expected: 1, to: "Pa"),
    .init(value: 1, from: "mmHg", expected: 133.322387415, to: "Pa"),
    .init(value: 1, from: "mi", expected: 1609.344, to: "m"),
    .init(value: 1, from: "km", expected: 1000, to: "m"),
    .init(value: 0.5, from: "%", expected: 0.5, to: "%"),
    // The catalog's newer canonical units (HKUnit.h): parentheses, HealthKit's own '·', moles of glucose, watts.
    .init(value: 45, from: "mL/min·kg", expected: 45, to: "ml/(kg*min)"),
    .init(value: 1, from: "ml/(kg*min)", expected: 60, to: "mL/kg.hr"),
    // Apple's init(from:) page and many apps write VO2 max as `ml/kg/min`: each '/' divides by what follows.
    .init(value: 42, from: "ml/kg/min", expected: 42, to: "ml/(kg*min)"),
    .init(value: 1, from: "mL/kg/min", expected: 60, to: "mL/kg/hr"),
    .init(value: 1, from: "kg/m/s^2", expected: 1, to: "Pa"),
    .init(value: 1, from: "kcal/(kg*hr)", expected: 1, to: "kcal/hr·kg"),
    .init(value: 1, from: "mmol<180.15588000005408>/L", expected: 18.015588000005408, to: "mg/dL"),
    .init(value: 100, from: "mg/dL", expected: 5.550748607260001, to: "mmol<180.15588000005408>/L"),
    .init(value: 1, from: "mol<180.15588000005408>", expected: 180.15588000005408, to: "g"),
    .init(value: 250, from: "W", expected: 250, to: "J/s"),
    .init(value: 1, from: "kW", expected: 1000, to: "W"),
    .init(value: 1, from: "S", expected: 1_000_000, to: "mcS"),
    .init(value: 4, from: "IU", expected: 4, to: "IU"),
    .init(value: 72, from: "dBASPL", expected: 72, to: "dBASPL"),
    .init(value: 7, from: "appleEffortScore", expected: 7, to: "appleEffortScore"),
    .init(value: 3, from: "m/s", expected: 10.8, to: "km/hr"),
    // HKUnit's hearing, vision, light and electrical units: angles convert between degrees and radians, volts and
    // lux take prefixes, the rest measure only themselves.
    .init(value: 180, from: "deg", expected: Double.pi, to: "rad"),
    .init(value: 1, from: "rad", expected: 1000, to: "mrad"),
    .init(value: 1, from: "rad", expected: 57.29577951308232, to: "deg"),
    .init(value: 1.5, from: "V", expected: 1500, to: "mV"),
    .init(value: 1, from: "mV", expected: 1000, to: "mcV"),
    .init(value: 2, from: "klx", expected: 2000, to: "lx"),
    .init(value: 25, from: "dBHL", expected: 25, to: "dBHL"),
    .init(value: -2.5, from: "D", expected: -2.5, to: "D"),
    .init(value: 0.5, from: "pD", expected: 0.5, to: "pD"),
    .init(value: 90, from: "deg/s", expected: Double.pi / 2, to: "rad/s"),
  ]

  @Test("Converts with Apple's constants", arguments: conversions)
  func converts(_ c: ConversionCase) throws {
    let from = try HealthUnit(parsing: c.from)
    let to = try HealthUnit(parsing: c.to)
    let result = try from.convert(c.value, to: to)
    #expect(abs(result - c.expected) <= 1e-9 * max(1, abs(c.expected)), "got \(result)")
  }

  @Test(
    "Unit strings round-trip",
    arguments: [
      "mL", "L", "count", "count/min", "count/s", "kcal", "kg", "lb", "st", "fl_oz_us", "fl_oz_imp", "cup_us", "pt_us",
      "min", "hr", "d", "degC", "degF", "%", "kg/m^2", "kg/m.s^2", "mcg", "dL", "mg/dL", "m.s^-1", "J", "Hz", "cal",
      "ml/(kg*min)", "mL/min·kg", "kcal/(kg*hr)", "mmol<180.15588000005408>/L", "W", "mcS", "IU", "dBASPL",
      "appleEffortScore", "V", "mV", "rad", "mrad", "deg", "lx", "klx", "dBHL", "D", "pD", "deg/s",
    ])
  func roundTrips(_ text: String) throws {
    let unit = try HealthUnit(parsing: text)
    let printed = unit.description
    #expect(try HealthUnit(parsing: printed) == unit)
    // A product written with '*' or negative powers prints canonically with '.' and '/'.
    #expect(!printed.contains("*"))
  }

  @Test func newUnitsHaveTheirOwnDimensions() throws {
    let count = try HealthUnit(parsing: "count")
    for text in ["S", "IU", "dBASPL", "appleEffortScore"] {
      let unit = try HealthUnit(parsing: text)
      #expect(!unit.isCompatible(with: count), "\(text)")
      #expect(!unit.isCompatible(with: try HealthUnit(parsing: "%")), "\(text)")
    }
    #expect(try HealthUnit(parsing: "W").isCompatible(with: HealthUnit(parsing: "kcal/hr")))
    #expect(try HealthUnit(parsing: "mmol<180.15588000005408>/L").isCompatible(with: HealthUnit(parsing: "mg/dL")))
    #expect(try !HealthUnit(parsing: "mmol<180.15588000005408>/L").isCompatible(with: HealthUnit(parsing: "mL")))
    #expect(try HealthUnit(parsing: "IU").dimension.description == "internationalUnit")
    for text in ["V", "rad", "lx", "dBHL", "D", "pD"] {
      let unit = try HealthUnit(parsing: text)
      for other in ["V", "rad", "lx", "dBHL", "D", "pD", "count", "%", "dBASPL", "S"] where other != text {
        #expect(!unit.isCompatible(with: try HealthUnit(parsing: other)), "\(text) vs \(other)")
      }
    }
    #expect(try !HealthUnit(parsing: "D").isCompatible(with: HealthUnit(parsing: "m^-1")))
    #expect(try !HealthUnit(parsing: "V").isCompatible(with: HealthUnit(parsing: "W")))
    #expect(try HealthUnit(parsing: "deg").isCompatible(with: HealthUnit(parsing: "mrad")))
    #expect(try HealthUnit(parsing: "deg").dimension.description == "angle")
  }

  @Test func moleSpellingsAndGroupsPrintCanonically() throws {
    #expect(try HealthUnit(parsing: "mmol<180.15588000005408>/L").description == "mmol<180.15588000005408>/L")
    #expect(try HealthUnit(parsing: "mol<180.1558800>").description == "mol<180.15588>")
    #expect(try HealthUnit(parsing: "ml/(kg*min)").description == "ml/kg.min")
    #expect(try HealthUnit(parsing: "ml/kg/min").description == "ml/kg.min")
    #expect(try HealthUnit(parsing: "ml/kg/min") == HealthUnit(parsing: "ml/kg*min"))
    #expect(try HealthUnit(parsing: "mL/min·kg").description == "mL/min.kg")
  }

  @Test func canonicalPrinting() throws {
    #expect(try HealthUnit(parsing: "kg.m^-1.s^-2").description == "kg/m.s^2")
    #expect(try HealthUnit(parsing: "count*s^-1").description == "count/s")
    #expect(try HealthUnit(parsing: "s^-1").description == "s^-1")
  }

  @Test(
    "Parse errors are typed and located",
    arguments: [
      ("", UnitError.empty),
      ("floz", .unknownSymbol("floz", offset: 0)),
      ("count/", .missingTerm(offset: 6)),
      ("/min", .missingTerm(offset: 0)),
      ("kg..m", .missingTerm(offset: 3)),
      ("m^x", .invalidPower("", offset: 2)),
      ("m^0", .invalidPower("0", offset: 2)),
      ("degC/s", .offsetUnitInCompound("degC")),
      ("degF^2", .offsetUnitInCompound("degF")),
      ("kmin", .unknownSymbol("kmin", offset: 0)),
      ("ml/(kg*min", .invalidGroup(offset: 3)),
      ("kg)", .invalidGroup(offset: 2)),
      ("((kg))", .invalidGroup(offset: 1)),
      ("(kg)^2", .invalidGroup(offset: 4)),
      ("(m/s)", .invalidGroup(offset: 2)),
      ("kg/(m/s)", .invalidGroup(offset: 5)),
      ("mL/kg/", .missingTerm(offset: 6)),
      ("mL//min", .missingTerm(offset: 3)),
      ("kg(m)", .invalidGroup(offset: 2)),
      ("(kg)m", .missingTerm(offset: 4)),
      ("ml/()", .missingTerm(offset: 4)),
      ("mol<abc>", .invalidMolarMass("abc", offset: 4)),
      ("mol<-1>/L", .invalidMolarMass("-1", offset: 4)),
      ("mmol<180", .invalidMolarMass("180", offset: 5)),
      ("kIU", .unknownSymbol("kIU", offset: 0)),
      // Prefixes go only on the SI units: not on degrees, diopters, prism diopters or hearing levels.
      ("mdeg", .unknownSymbol("mdeg", offset: 0)),
      ("cD", .unknownSymbol("cD", offset: 0)),
      ("kdBHL", .unknownSymbol("kdBHL", offset: 0)),
    ])
  func parseErrors(_ text: String, _ expected: UnitError) {
    #expect(throws: expected) { try HealthUnit(parsing: text) }
  }

  @Test func incompatibleConversionIsAnError() throws {
    let mL = try HealthUnit(parsing: "mL")
    let kg = try HealthUnit(parsing: "kg")
    #expect(throws: UnitError.incompatible(from: "mL", to: "kg")) { try mL.convert(1, to: kg) }
    #expect(!mL.isCompatible(with: kg))
    #expect(try HealthUnit(parsing: "count").isCompatible(with: HealthUnit(parsing: "count")))
    #expect(try !HealthUnit(parsing: "count/s").isCompatible(with: HealthUnit(parsing: "Hz")))
  }
}

@Suite("Sample types")
struct SampleTypeTests {
  @Test func catalogIsConsistent() throws {
    let codes = SampleType.catalog.map(\.code)
    #expect(Set(codes).count == codes.count)
    for entry in SampleType.catalog {
      let type = try #require(SampleType.lookup(name: entry.name))
      #expect(SampleType.lookup(name: entry.identifier) == type)
      #expect(SampleType.lookup(code: entry.code) == type)
      if case .quantity(let unit, _) = entry.kind { #expect(entry.canonicalUnit != nil, "\(unit) must parse") }
    }
    #expect(SampleType.lookup(code: 999) == nil)
  }

  @Test func requiredTypesHaveAppleFacts() throws {
    func type(_ name: String) throws -> SampleTypeDescriptor { try #require(SampleType.lookup(name: name)).descriptor }
    #expect(try type("dietaryWater").aggregation == .cumulative)
    #expect(try type("dietaryWater").canonicalUnit?.description == "mL")
    #expect(try type("heartRate").aggregation == .discreteTemporallyWeighted)
    #expect(try type("heartRate").canonicalUnit?.description == "count/s")
    #expect(try type("bodyMass").aggregation == .discreteArithmetic)
    #expect(try type("appleExerciseTime").appsMayShare == false)
    #expect(try type("appleStandHour").appsMayShare == false)
    #expect(try type("mindfulSession").categoryValues?.map(\.value) == [0])
    #expect(try type("sleepAnalysis").categoryValues?.map(\.value) == [0, 1, 2, 3, 4, 5])
    #expect(try type("menstrualFlow").categoryValues?.map(\.value) == [1, 2, 3, 4, 5])
    #expect(try type("menstrualFlow").requiredMetadata == [MetadataKey.menstrualCycleStart])
    #expect(try type("bloodPressure").isCorrelation)
    #expect(try type("food").isCorrelation)
  }

  @Test func enumRawValuesAreApples() {
    #expect(AuthorizationStatus.notDetermined.rawValue == 0)
    #expect(AuthorizationStatus.sharingDenied.rawValue == 1)
    #expect(AuthorizationStatus.sharingAuthorized.rawValue == 2)
    #expect(AuthorizationRequestStatus.unknown.rawValue == 0)
    #expect(AuthorizationRequestStatus.shouldRequest.rawValue == 1)
    #expect(AuthorizationRequestStatus.unnecessary.rawValue == 2)
    #expect(HealthErrorCode.errorInvalidArgument.rawValue == 3)
    #expect(HealthErrorCode.errorAuthorizationDenied.rawValue == 4)
    #expect(HealthErrorCode.errorAuthorizationNotDetermined.rawValue == 5)
    #expect(HealthErrorCode.errorUserCanceled.rawValue == 7)
    #expect(HealthErrorCode.errorNoData.rawValue == 11)
    #expect(HealthErrorCode.errorNotPermissibleForGuestUserMode.rawValue == 15)
    #expect(StatisticsOptions.cumulativeSum.rawValue == 16)
    #expect(QueryOptions.strictEndDate.rawValue == 2)
    #expect(HealthErrorCode(name: "errorNoData") == .errorNoData)
    #expect(HealthErrorCode(name: "4") == .errorAuthorizationDenied)
  }
}

@Suite("Unit suggestions")
struct UnitSuggestionTests {
  @Test func anUnknownUnitSuggestsTheNearestSpelling() {
    for (typo, meant) in [
      ("mLL", "mL"), ("kcl", "kcal"), ("fl_oz", "fl_oz_us"), ("cup", "cup_us"), ("Kg", "kg"),
      ("dbHL", "dBHL"), ("kv", "kV"), ("lux", "lx"), ("RAD", "rad"),
    ] {
      do {
        _ = try HealthUnit(parsing: typo)
        Issue.record("\(typo) parsed")
      } catch {
        #expect("\(error)".contains("did you mean '\(meant)'?"), "\(typo): \(error)")
      }
    }
  }
}

@Suite("Number formatting")
struct NumberFormattingTests {
  @Test func roundedNumbersDropTrailingZeros() {
    #expect(formatNumber(12.3456, decimals: 2) == "12.35")
    #expect(formatNumber(10.0, decimals: 3) == "10")
    #expect(formatNumber(0.5, decimals: 3) == "0.5")
    #expect(formatNumber(-1.25, decimals: 1) == "-1.3")  // halves round away from zero
    #expect(formatNumber(.infinity, decimals: 2) == formatNumber(.infinity))
  }

  @Test func fixedNumbersKeepEveryDecimal() {
    #expect(formatFixed(1.5, decimals: 3) == "1.500")
    #expect(formatFixed(0.0004, decimals: 3) == "0.000")
    #expect(formatFixed(-0.25, decimals: 3) == "-0.250")
    #expect(formatFixed(-0.0001, decimals: 2) == "0.00")
    #expect(formatFixed(2.999, decimals: 2) == "3.00")
    #expect(formatFixed(7, decimals: 0) == "7")
  }
}
