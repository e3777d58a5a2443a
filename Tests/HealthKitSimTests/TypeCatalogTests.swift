import Foundation
import HealthKitSim
import HealthModel
import HealthPairTesting
import Posix
import TestSupport
import Testing

/// The static members HKTypeIdentifiers.swift declares: (member name, identifier type, identifier string).
func declaredTypeIdentifiers() throws -> [(name: String, kind: String, identifier: String)] {
  let text = try Repository.read("Sources/API/HealthKitSim/HKTypeIdentifiers.swift")
  // Members may wrap after "(": join the lines of each declaration before reading it.
  let joined = text.replacingOccurrences(of: "(\n", with: "(").replacingOccurrences(of: "\n    \"", with: "\"")
  var result: [(String, String, String)] = []
  for line in joined.split(separator: "\n") where line.contains("public static let ") {
    let declaration = line.split(separator: "public static let ")[1]
    let name = String(declaration.prefix { $0 != " " })
    let kind = String(declaration.split(separator: "= ")[1].prefix { $0 != "(" })
    let identifier = String(declaration.split(separator: "\"")[1])
    result.append((name, kind, identifier))
  }
  return result
}

@Suite("Type identifiers and category values (no daemon)")
struct TypeCatalogTests {
  @Test func theIdentifierFileNamesExactlyTheCatalogsTypes() throws {
    let declared = try declaredTypeIdentifiers()
    #expect(Set(declared.map(\.name)).count == declared.count, "a member is declared twice")
    // The special object types (workouts, clinical records, …) have factory methods of their own, not identifiers.
    let catalog = SampleType.catalog.filter { $0.objectKind == nil }
    #expect(declared.count == catalog.count)
    for entry in catalog {
      let kind =
        switch entry.kind {
        case .quantity: "HKQuantityTypeIdentifier"
        case .category: "HKCategoryTypeIdentifier"
        case .correlation: "HKCorrelationTypeIdentifier"
        case .characteristic: "HKCharacteristicTypeIdentifier"
        case .object: ""
        }
      let member = declared.first { $0.name == entry.name }
      #expect(member?.kind == kind, "\(entry.name) must be declared as \(kind).\(entry.name)")
      #expect(member?.identifier == entry.identifier, "\(entry.name) must wrap \(entry.identifier)")
    }
  }

  @Test func everyCatalogTypeIsAvailableUnderItsHealthKitName() {
    for entry in SampleType.catalog {
      switch entry.kind {
      case .quantity:
        #expect(HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(entry.identifier)) != nil)
      case .category:
        #expect(HKObjectType.categoryType(forIdentifier: HKCategoryTypeIdentifier(entry.identifier)) != nil)
      case .correlation:
        #expect(HKObjectType.correlationType(forIdentifier: HKCorrelationTypeIdentifier(entry.identifier)) != nil)
      case .characteristic:
        #expect(
          HKObjectType.characteristicType(forIdentifier: HKCharacteristicTypeIdentifier(entry.identifier)) != nil)
      case .object: break
      }
    }
    #expect(HKQuantityType(.restingHeartRate).aggregationStyle == .discreteTemporallyWeighted)
    #expect(HKQuantityType(.environmentalAudioExposure).aggregationStyle == .discreteEquivalentContinuousLevel)
    #expect(
      HKQuantityType(.bloodGlucose).is(
        compatibleWith: .moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose).unitDivided(by: .liter())))
    #expect(HKQuantityType(.vo2Max).is(compatibleWith: HKUnit(from: "mL/min·kg")))
    #expect(!HKQuantityType(.insulinDelivery).is(compatibleWith: .count()))
  }

  /// Each value enum's cases, raw values and names are the catalog's values for a type that uses it.
  @Test func valueEnumsMatchTheCatalog() throws {
    func values(_ type: String) throws -> [String] {
      try #require(SampleType.lookup(name: type)?.descriptor.categoryValues).map { "\($0.value) \($0.name)" }
    }
    func cases<E: CaseIterable & RawRepresentable>(_: E.Type) -> [String] where E.RawValue == Int {
      E.allCases.map { "\($0.rawValue) \($0)" }
    }
    #expect(try cases(HKCategoryValue.self) == values("handwashingEvent"))
    #expect(try cases(HKCategoryValueSeverity.self) == values("headache"))
    #expect(try cases(HKCategoryValuePresence.self) == values("moodChanges"))
    #expect(try cases(HKCategoryValueAppetiteChanges.self) == values("appetiteChanges"))
    #expect(try cases(HKCategoryValueAppleWalkingSteadinessEvent.self) == values("appleWalkingSteadinessEvent"))
    #expect(try cases(HKCategoryValueCervicalMucusQuality.self) == values("cervicalMucusQuality"))
    #expect(try cases(HKCategoryValueContraceptive.self) == values("contraceptive"))
    #expect(
      try cases(HKCategoryValueEnvironmentalAudioExposureEvent.self) == values("environmentalAudioExposureEvent"))
    #expect(try cases(HKCategoryValueHeadphoneAudioExposureEvent.self) == values("headphoneAudioExposureEvent"))
    #expect(try cases(HKCategoryValueLowCardioFitnessEvent.self) == values("lowCardioFitnessEvent"))
    #expect(try cases(HKCategoryValueOvulationTestResult.self) == values("ovulationTestResult"))
    #expect(try cases(HKCategoryValuePregnancyTestResult.self) == values("pregnancyTestResult"))
    #expect(try cases(HKCategoryValueProgesteroneTestResult.self) == values("progesteroneTestResult"))
    #expect(try cases(HKCategoryValueVaginalBleeding.self) == values("bleedingAfterPregnancy"))
    #expect(try cases(HKCategoryValueVaginalBleeding.self) == values("menstrualFlow"))
    #expect(try cases(HKCategoryValueSleepAnalysis.self) == values("sleepAnalysis"))
    #expect(try cases(HKCategoryValueAppleStandHour.self) == values("appleStandHour"))
    #expect(HKInsulinDeliveryReason.bolus.rawValue == 2)
    #expect(HKBloodGlucoseMealTime.postprandial.rawValue == 2)
  }

  /// The hand-written category value enums cover the catalog: every category type's values (names and raw values)
  /// are exactly one enum's cases, and every enum is some type's values, so a value added, renamed or renumbered on
  /// either side fails here.
  @Test func everyCategoryTypesValuesAreAnEnum() throws {
    func cases<E: CaseIterable & RawRepresentable>(_: E.Type) -> [String] where E.RawValue == Int {
      E.allCases.map { "\($0.rawValue) \($0)" }
    }
    let enums: [String: [String]] = [
      "HKCategoryValue": cases(HKCategoryValue.self),
      "HKCategoryValueSleepAnalysis": cases(HKCategoryValueSleepAnalysis.self),
      "HKCategoryValueAppleStandHour": cases(HKCategoryValueAppleStandHour.self),
      "HKCategoryValueMenstrualFlow": cases(HKCategoryValueMenstrualFlow.self),
      "HKCategoryValueVaginalBleeding": cases(HKCategoryValueVaginalBleeding.self),
      "HKCategoryValueSeverity": cases(HKCategoryValueSeverity.self),
      "HKCategoryValuePresence": cases(HKCategoryValuePresence.self),
      "HKCategoryValueAppetiteChanges": cases(HKCategoryValueAppetiteChanges.self),
      "HKCategoryValueAppleWalkingSteadinessEvent": cases(HKCategoryValueAppleWalkingSteadinessEvent.self),
      "HKCategoryValueCervicalMucusQuality": cases(HKCategoryValueCervicalMucusQuality.self),
      "HKCategoryValueContraceptive": cases(HKCategoryValueContraceptive.self),
      "HKCategoryValueEnvironmentalAudioExposureEvent": cases(HKCategoryValueEnvironmentalAudioExposureEvent.self),
      "HKCategoryValueHeadphoneAudioExposureEvent": cases(HKCategoryValueHeadphoneAudioExposureEvent.self),
      "HKCategoryValueLowCardioFitnessEvent": cases(HKCategoryValueLowCardioFitnessEvent.self),
      "HKCategoryValueOvulationTestResult": cases(HKCategoryValueOvulationTestResult.self),
      "HKCategoryValuePregnancyTestResult": cases(HKCategoryValuePregnancyTestResult.self),
      "HKCategoryValueProgesteroneTestResult": cases(HKCategoryValueProgesteroneTestResult.self),
    ]
    var used: Set<String> = []
    for entry in SampleType.catalog {
      // The deprecated audio exposure events' enum is deprecated itself: checked below without naming it.
      guard let values = entry.categoryValues, entry.name != "audioExposureEvent" else { continue }
      let signature = values.map { "\($0.value) \($0.name)" }
      let matching = enums.filter { $0.value == signature }.map(\.key)
      #expect(!matching.isEmpty, "\(entry.name)'s values \(signature) are no HealthKitSim enum's cases")
      used.formUnion(matching)
    }
    let deprecated = try #require(SampleType.lookup(name: "audioExposureEvent")?.descriptor.categoryValues)
    #expect(deprecated.map { "\($0.value) \($0.name)" } == ["1 loudEnvironment"])
    #expect(used == Set(enums.keys), "enums no catalog type uses: \(Set(enums.keys).subtracting(used).sorted())")
  }

  /// The characteristic value enums are the catalog's characteristic values (names and raw values), with HealthKit's
  /// `notSet` (0) besides, which the catalog does not list as a value (C2).
  @Test func characteristicValueEnumsMatchTheCatalog() throws {
    func values(_ type: String) throws -> [String] {
      try #require(SampleType.lookup(name: type)?.descriptor.characteristicValues).map { "\($0.value) \($0.name)" }
    }
    func cases<E: CaseIterable & RawRepresentable>(_: E.Type) -> [String] where E.RawValue == Int {
      E.allCases.filter { $0.rawValue != 0 }.map { "\($0.rawValue) \($0)" }
    }
    func notSet<E: CaseIterable & RawRepresentable>(_: E.Type) -> String? where E.RawValue == Int {
      E.allCases.first { $0.rawValue == 0 }.map { "\($0)" }
    }
    #expect(try cases(HKBiologicalSex.self) == values("biologicalSex"))
    #expect(try cases(HKBloodType.self) == values("bloodType"))
    #expect(try cases(HKFitzpatrickSkinType.self) == values("fitzpatrickSkinType"))
    #expect(try cases(HKWheelchairUse.self) == values("wheelchairUse"))
    #expect(try cases(HKActivityMoveMode.self) == values("activityMoveMode"))
    for notSetCase in [
      notSet(HKBiologicalSex.self), notSet(HKBloodType.self), notSet(HKFitzpatrickSkinType.self),
      notSet(HKWheelchairUse.self),
    ] {
      #expect(notSetCase == "notSet")
    }
    #expect(notSet(HKActivityMoveMode.self) == nil, "HKActivityMoveMode has no notSet case (C5)")
    #expect(try values("dateOfBirth").isEmpty)
  }

  @Test func anUnknownIdentifierSuggestsTheNearest() {
    let type = HKQuantityType(HKQuantityTypeIdentifier("HKQuantityTypeIdentifierRestingHeartRat"))
    #expect(throws: HealthKitSimError.self) { try type.simulatedType() }
    do {
      _ = try type.simulatedType()
    } catch {
      #expect(error.description.contains("did you mean HKQuantityTypeIdentifierRestingHeartRate?"))
    }
  }
}

@Suite("New types against real daemons")
struct NewTypeTests {
  let diabetesID = "com.example.diabetes"
  let glucose = HKQuantityType(.bloodGlucose)
  let insulin = HKQuantityType(.insulinDelivery)
  let headache = HKCategoryType(.headache)
  let mmolPerL = HKUnit.moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose).unitDivided(by: .liter())

  @Test func glucoseInMmolPerLitreIsStoredAndQueriedInMgPerDecilitre() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(
        app: diabetesID, name: "Diabetes", writeUsage: "Logs glucose and insulin.", readUsage: "Shows your levels.")
      try await pair.phone.authorize(diabetesID, share: [glucose, insulin, headache], read: [glucose, headache])
      let readings = [5.5, 7.0].enumerated().map { index, value in
        HKQuantitySample(
          type: glucose, quantity: HKQuantity(unit: mmolPerL, doubleValue: value),
          start: t0.addingTimeInterval(Double(index) * 600), end: t0.addingTimeInterval(Double(index) * 600),
          metadata: [HKMetadataKeyBloodGlucoseMealTime: HKBloodGlucoseMealTime.preprandial.rawValue])
      }
      try await pair.phone.use(app: diabetesID) {
        let store = HKHealthStore()
        try await store.save(readings)
        try await store.save(
          HKCategorySample(type: headache, value: HKCategoryValueSeverity.moderate.rawValue, start: t0, end: t0))
        let average = try await statistics(store, glucose, options: [.discreteAverage, .discreteMax])
        let mgPerDL = HKUnit.gramUnit(with: .milli).unitDivided(by: .literUnit(with: .deci))
        let mean = try #require(average.averageQuantity()?.doubleValue(for: mgPerDL))
        #expect(abs(mean - 6.25 * HKUnitMolarMassBloodGlucose / 10) < 1e-9)
        #expect(abs((average.maximumQuantity()?.doubleValue(for: mmolPerL) ?? 0) - 7) < 1e-9)
      }
      let stored = try pair.phone.storedSamples(of: glucose).compactMap { $0 as? HKQuantitySample }
      #expect(stored.count == 2)
      #expect(stored.first?.quantity.description.hasSuffix("mg/dL") == true)
      #expect(stored.first?.metadata?[HKMetadataKeyBloodGlucoseMealTime] as? Int == 1)
      let symptom = try #require(try pair.phone.storedSamples(of: headache).first as? HKCategorySample)
      #expect(symptom.value == HKCategoryValueSeverity.moderate.rawValue)
    }
  }

  @Test func insulinWithoutItsReasonAndReadOnlyTypesWouldTerminate() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(
        app: diabetesID, name: "Diabetes", writeUsage: "Logs glucose and insulin.", readUsage: "Shows your levels.")
      try await pair.phone.authorize(diabetesID, share: [insulin])
      try await pair.phone.use(app: diabetesID) {
        let store = HKHealthStore()
        let units = HKQuantity(unit: .internationalUnit(), doubleValue: 4)
        let bare = HKQuantitySample(type: insulin, quantity: units, start: t0, end: t0)
        await #expect { try await store.save(bare) } throws: {
          ($0 as? HKSimulatedTermination)?.reason.contains("HKMetadataKeyInsulinDeliveryReason") == true
        }
        let bolus = HKQuantitySample(
          type: insulin, quantity: units, start: t0, end: t0,
          metadata: [HKMetadataKeyInsulinDeliveryReason: HKInsulinDeliveryReason.bolus.rawValue])
        try await store.save(bolus)
        // Apple computes walking heart rate averages: asking to share them is refused with an exception.
        await #expect {
          try await store.requestAuthorization(toShare: [HKQuantityType(.walkingHeartRateAverage)], read: [])
        } throws: {
          ($0 as? HKSimulatedTermination)?.reason
            == "Authorization to share the following types is disallowed: "
            + "HKQuantityTypeIdentifierWalkingHeartRateAverage"
        }
      }
      #expect(try pair.phone.storedSamples(of: insulin).count == 1)
    }
  }
}
