import Posix
import TestSupport
import Testing

@testable import HealthModel

/// The checked-in list of HealthKit's type identifiers (Fixtures/hk-identifiers.txt), without comments.
func checkedInIdentifiers() throws -> [String] {
  let text = try Repository.read("Tests/HealthModelTests/Fixtures/hk-identifiers.txt")
  return text.split(separator: "\n").map { line in String(line.filter { !$0.isWhitespace }) }.filter {
    !$0.isEmpty && !$0.hasPrefix("#")
  }
}

@Suite("Type catalog")
struct CatalogTests {
  @Test func holdsExactlyTheCheckedInIdentifiers() throws {
    let expected = try checkedInIdentifiers()
    #expect(Set(expected).count == expected.count, "the fixture lists an identifier twice")
    // The special object types (codes 70–99: workouts, clinical records, …) are checked by their own tests.
    let catalog = Set(SampleType.catalog.filter { $0.objectKind == nil }.map(\.identifier))
    let missing = Set(expected).subtracting(catalog).sorted()
    let extra = catalog.subtracting(expected).sorted()
    #expect(missing.isEmpty, "not in the catalog: \(missing)")
    #expect(extra.isEmpty, "in the catalog but not in the fixture: \(extra)")
    #expect(expected.filter { $0.hasPrefix("HKQuantityTypeIdentifier") }.count == 120)
    #expect(expected.filter { $0.hasPrefix("HKCategoryTypeIdentifier") }.count == 70)
  }

  @Test func codesNamesAndIdentifiersAreUniqueAndInTheirRanges() {
    let entries = SampleType.catalog
    #expect(Set(entries.map(\.code)).count == entries.count)
    #expect(Set(entries.map(\.name)).count == entries.count)
    #expect(Set(entries.map(\.identifier)).count == entries.count)
    // A name must not be another entry's identifier either: lookup(name:) takes both.
    #expect(Set(entries.map(\.name)).isDisjoint(with: entries.map(\.identifier)))
    for entry in entries {
      // 1–59 are the first types; characteristics 60–69; 70–99 reserved; new quantity types 100–299, new
      // category types 300–459.
      switch entry.kind {
      case .quantity: #expect(entry.code < 60 || (100...299).contains(entry.code), "\(entry.name) \(entry.code)")
      case .category: #expect(entry.code < 60 || (300...459).contains(entry.code), "\(entry.name) \(entry.code)")
      case .correlation: #expect(entry.code < 60, "\(entry.name) \(entry.code)")
      case .characteristic: #expect((60...69).contains(entry.code), "\(entry.name) \(entry.code)")
      case .object: #expect((70...99).contains(entry.code), "\(entry.name) \(entry.code)")
      }
    }
  }

  @Test func identifiersFollowTheirKindAndName() {
    for entry in SampleType.catalog where entry.objectKind == nil {
      let prefix =
        switch entry.kind {
        case .quantity: "HKQuantityTypeIdentifier"
        case .category: "HKCategoryTypeIdentifier"
        case .correlation: "HKCorrelationTypeIdentifier"
        case .characteristic: "HKCharacteristicTypeIdentifier"
        case .object: ""
        }
      #expect(entry.identifier.hasPrefix(prefix), "\(entry.identifier)")
      // The Swift name lowercases the first letter (VO2Max and UVExposure lowercase their acronym).
      let tail = String(entry.identifier.dropFirst(prefix.count))
      let exceptions = ["VO2Max": "vo2Max", "UVExposure": "uvExposure"]
      #expect(entry.name == exceptions[tail] ?? tail.prefix(1).lowercased() + tail.dropFirst(), "\(entry.name)")
    }
  }

  @Test func everyEntryIsWellFormed() throws {
    for entry in SampleType.catalog {
      let type = try #require(SampleType.lookup(name: entry.name))
      #expect(SampleType.lookup(name: entry.identifier) == type)
      #expect(SampleType.lookup(code: entry.code) == type)
      switch entry.kind {
      case .quantity(let unit, _):
        let parsed = try #require(entry.canonicalUnit, "\(entry.name): canonical unit '\(unit)' must parse")
        #expect(try HealthUnit(parsing: parsed.description) == parsed, "\(entry.name): '\(unit)' must round-trip")
      case .category(let values):
        #expect(!values.isEmpty, "\(entry.name) has no values")
        #expect(Set(values.map(\.value)).count == values.count, "\(entry.name): duplicate raw values")
        #expect(Set(values.map(\.name)).count == values.count, "\(entry.name): duplicate value names")
      case .correlation(let components):
        #expect(!components.isEmpty)
        for component in components {
          let member = try #require(SampleType.lookup(name: component), "\(entry.name) contains \(component)")
          #expect(member.descriptor.isQuantity, "\(entry.name) contains \(component), which is not a quantity type")
        }
      case .characteristic(let values):
        #expect(Set(values.map(\.value)).count == values.count, "\(entry.name): duplicate raw values")
        #expect(!entry.appsMayShare, "\(entry.name): characteristics are read-only")
      case .object: break
      }
      for key in entry.requiredMetadata {
        #expect(MetadataKey.constantName(of: key).hasPrefix("HKMetadataKey"), "\(entry.name) requires \(key)")
      }
    }
  }

  @Test func correlationsContainTheirComponents() throws {
    let bloodPressure = try #require(SampleType.lookup(name: "bloodPressure")).descriptor
    #expect(bloodPressure.correlationComponents == ["bloodPressureSystolic", "bloodPressureDiastolic"])
    let food = try #require(SampleType.lookup(name: "food")).descriptor
    let dietary = SampleType.catalog.filter { $0.isQuantity && $0.name.hasPrefix("dietary") }.map(\.name)
    #expect(Set(food.correlationComponents) == Set(dietary))
    #expect(dietary.count == 39)
  }

  @Test func readOnlyTypesAreTheDocumentedOnes() {
    // docs/behavior.md T3: Apple-documented read-only types, observed refusals and Apple-computed types.
    let readOnly = Set(
      SampleType.catalog.filter {
        !$0.appsMayShare && !$0.isCorrelation && !$0.isCharacteristic && $0.objectKind == nil
      }.map(\.name))
    #expect(
      readOnly == [
        "appleExerciseTime", "appleMoveTime", "appleStandTime", "appleWalkingSteadiness",
        "appleSleepingWristTemperature", "appleSleepingBreathingDisturbances", "atrialFibrillationBurden",
        "walkingHeartRateAverage", "nikeFuel", "appleStandHour", "appleWalkingSteadinessEvent", "audioExposureEvent",
        "environmentalAudioExposureEvent", "headphoneAudioExposureEvent", "highHeartRateEvent", "lowHeartRateEvent",
        "irregularHeartRhythmEvent", "lowCardioFitnessEvent", "infrequentMenstrualCycles", "irregularMenstrualCycles",
        "persistentIntermenstrualBleeding", "prolongedMenstrualPeriods", "sleepApneaEvent", "hypertensionEvent",
      ])
  }

  @Test func appleFactsOfNewTypes() throws {
    func type(_ name: String) throws -> SampleTypeDescriptor { try #require(SampleType.lookup(name: name)).descriptor }
    // Resting heart rate is written by apps (Apple documents no restriction); the iOS 26 header makes it
    // temporally weighted.
    #expect(try type("restingHeartRate").appsMayShare)
    #expect(try type("restingHeartRate").canonicalUnit?.description == "count/min")
    #expect(try type("restingHeartRate").aggregation == .discreteTemporallyWeighted)
    #expect(try type("walkingHeartRateAverage").appsMayShare == false)
    #expect(try type("bloodGlucose").canonicalUnit?.description == "mg/dL")
    #expect(try type("bloodGlucose").aggregation == .discreteArithmetic)
    #expect(try type("vo2Max").identifier == "HKQuantityTypeIdentifierVO2Max")
    #expect(try type("uvExposure").identifier == "HKQuantityTypeIdentifierUVExposure")
    #expect(try type("environmentalAudioExposure").aggregation == .discreteEquivalentContinuousLevel)
    #expect(try type("insulinDelivery").requiredMetadata == [MetadataKey.insulinDeliveryReason])
    #expect(try type("insulinDelivery").canonicalUnit?.description == "IU")
    #expect(
      try type("headache").categoryValues?.map(\.name) == ["unspecified", "notPresent", "mild", "moderate", "severe"])
    #expect(try type("moodChanges").categoryValues?.map(\.value) == [0, 1])
    #expect(try type("cervicalMucusQuality").categoryValues?.map(\.value) == [1, 2, 3, 4, 5])
    #expect(try type("ovulationTestResult").categoryValues?.map(\.value) == [1, 2, 3, 4])
    #expect(try type("bleedingDuringPregnancy").categoryValues?.map(\.value) == [1, 2, 3, 4, 5])
    #expect(try type("highHeartRateEvent").categoryValues?.map(\.value) == [0])
    #expect(try type("hypertensionEvent").appsMayShare == false)
  }
}
