import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Posix
@testable import Scenario
@testable import ScenarioLanguage

@Suite("Scenario language: running the new forms")
struct LanguageRunTests {
  func scenario(_ text: String) throws -> Scenario {
    try ScenarioParser.parse(text, file: "Scenarios/t/x.scenario").get()
  }

  @Test func bothSaysWhichDeviceFailed() throws {
    let s = try scenario(
      """
      install Water on phone and watch share dietaryWater
      phone: Water requests
      user on phone: allows all
      watch: Water requests
      user on watch: cancels
      expect both: Water's last call succeeded
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("the watch's call was cancelled")
      return
    }
    #expect(f.expected.contains("on the watch"), "\(f.expected)")
    #expect(f.actual.contains("errorUserCanceled"))
  }

  @Test func userOnBothSaysWhichDeviceHadNoSheet() throws {
    let s = try scenario(
      """
      install Water on phone and watch share dietaryWater
      phone: Water requests
      user on both: allows all
      expect phone: no sheet pending
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("the watch had no sheet to answer")
      return
    }
    #expect(f.location.line == 3)
    #expect(f.expected.hasPrefix("watch: "), "\(f.expected)")
  }

  @Test func convergedComparesContentsNotOnlyIdentifiers() throws {
    let s = try scenario(
      """
      install Water on phone and watch share dietaryWater read dietaryWater
      phone: Water requests
      watch: Water requests
      user on both: allows all
      link: hold
      phone: Water saves 250 mL dietaryWater at 08:00 uuid 6F9619FF-8B86-4011-B42D-00C04FC964FF as drink
      watch: Water saves 100 mL dietaryWater at 08:00 with note=watch uuid 6F9619FF-8B86-4011-B42D-00C04FC964FF
      expect converged
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("one identifier, two contents: not converged")
      return
    }
    #expect(f.actual.contains("drink differs (phone / watch): value 250 mL / 100 mL"), "\(f.actual)")
    #expect(f.actual.contains("metadata [] / [note=\"watch\"]"), "\(f.actual)")
    #expect(f.actual.contains("source com.example.water@phone / com.example.water@watch"), "\(f.actual)")
  }

  @Test func aWrongCountInTheSheetHistoryFails() throws {
    let s = try scenario(
      """
      install Water on phone share dietaryWater
      phone: Water requests
      user on phone: sheet fails to present
      expect phone: Water's requests showed 1 sheet, 0 presentations failed
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("the presentation failed")
      return
    }
    #expect(f.actual == "showed 1 sheet, 1 presentation failed")
  }
}
