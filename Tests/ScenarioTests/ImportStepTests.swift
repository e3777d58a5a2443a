import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Scenario
@testable import ScenarioLanguage

@Suite("Scenario language: import steps and their expectations")
struct ImportStepTests {
  @Test func importStepsParseWithSourcesAndExpectedFailures() throws {
    let text = """
      import fixtures/export.xml on phone
      import "my exports/export.zip" on watch with source "Drink & Track" as com.example.water fails with "unit"
      expect phone: last import added 17 samples
      expect watch: last import added 0 samples and 11 already present and 6 before the retention window
      expect both: store has 2 dietaryWater samples from "Drink & Track"
      expect phone: store has 3 samples from com.apple.Health
      expect watch: store has 2 samples with HKMetadataKeyTimeZone=Europe/London and n=1
      """
    let scenario = try ScenarioParser.parse(header + text, file: "t.scenario").get()
    let kinds = scenario.steps.map(\.kind)
    #expect(
      kinds[1] == .importExport(ImportStep(device: .phone, path: "fixtures/export.xml", sources: [:], failure: nil)))
    #expect(
      kinds[2]
        == .importExport(
          ImportStep(
            device: .watch, path: "my exports/export.zip", sources: ["Drink & Track": "com.example.water"],
            failure: "unit")))
    #expect(kinds[3] == .expect(.lastImport(.phone, added: 17, alreadyPresent: nil, beforeRetention: nil)))
    #expect(kinds[4] == .expect(.lastImport(.watch, added: 0, alreadyPresent: 11, beforeRetention: 6)))
    #expect(
      kinds[5]
        == .expect(
          .storeCountMatching(
            .both, SampleType.lookup(name: "dietaryWater")!, 2, source: "Drink & Track", metadata: [:])))
    #expect(kinds[6] == .expect(.storeCountMatching(.one(.phone), nil, 3, source: "com.apple.Health", metadata: [:])))
    #expect(
      kinds[7]
        == .expect(
          .storeCountMatching(
            .one(.watch), nil, 2, source: nil, metadata: ["HKTimeZone": .string("Europe/London"), "n": .int(1)])))
    #expect(scenario.steps[1].category == .setup)
  }

  @Test func malformedImportStepsAreLocatedErrors() {
    #expect(diagnose("import on phone").map(\.2) == [11])
    #expect(diagnose("import export.xml to phone").first?.0 == .expected("'on'", found: "to"))
    #expect(diagnose("import export.xml on tablet").first?.1 == 2)
    #expect(diagnose("import export.xml on phone with source \"A\" as nodots").first?.2 == 47)
    #expect(diagnose("import export.xml on phone fails loudly").first?.0 == .unexpectedWords("loudly"))
    #expect(diagnose("expect phone: last import added many samples").first != nil)
    #expect(diagnose("expect phone: last import added 3 samples and 2 stale").first?.2 == 49)
  }
}
