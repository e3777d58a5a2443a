import Testing

@testable import HealthModel
@testable import ScenarioLanguage

/// The diagnostics of `text` (with `loader` for includes) as (message, file:line:col).
private func problems(_ text: String, loader: IncludeLoader = .none) -> [(String, String)] {
  switch ScenarioParser.parseAll(bytes: Array(text.utf8), file: "s.scenario", loader: loader) {
  case .success: return []
  case .failure(let d): return d.items.map { ("\($0.error)", "\($0.location)") }
  }
}

@Suite("Scenario language: installs are checked before anything runs")
struct InstallCheckTests {
  @Test func aStepByAnAppNotInstalledOnThatDeviceIsAnErrorAtItsName() {
    let found = problems(
      """
      install Sleepy on phone share sleepAnalysis
      watch: Sleepy requests
      expect phone: Sleepy share sleepAnalysis is notDetermined

      """)
    #expect(found.count == 1)
    #expect(found.first?.1 == "s.scenario:2:8")
    #expect(found.first?.0.contains("app 'Sleepy' is not installed on the watch at this step") == true)
    #expect(found.first?.0.contains("installed on the phone") == true)
  }

  @Test func positionInTheFileDecides() {
    // Used on the watch before it is installed there, then after.
    let found = problems(
      """
      install Water on phone share dietaryWater
      watch: Water saves 250 mL dietaryWater
      install Water on watch share dietaryWater
      watch: Water saves 250 mL dietaryWater
      expect watch: store has 1 samples

      """)
    #expect(found.map(\.1) == ["s.scenario:2:8"])
  }

  @Test func anUninstallRemovesItFromThatDeviceOnly() {
    let found = problems(
      """
      install Water on phone and watch share dietaryWater
      uninstall Water from phone
      watch: Water requests
      phone: Water requests
      user on phone: allows all for Water
      expect phone: Water's queries of dietaryWater fail with errorAuthorizationNotDetermined
      uninstall Water from phone
      install Water on phone share dietaryWater
      phone: Water requests
      expect phone: Water share dietaryWater is notDetermined

      """)
    #expect(found.map(\.1) == ["s.scenario:4:8", "s.scenario:5:31", "s.scenario:6:15", "s.scenario:7:11"])
    #expect(found.first?.0.contains("uninstalled from the phone at s.scenario:2") == true)
  }

  @Test func forBlocksOutlinesAndIncludesAreCheckedAsExpanded() {
    let loop = problems(
      """
      install Water on phone share dietaryWater
      for device in phone, watch:
        <device>: Water requests
      expect phone: Water share dietaryWater is notDetermined

      """)
    #expect(loop.map(\.1) == ["s.scenario:3:13"])
    #expect(loop.first?.0.contains("on the watch") == true)

    let outline = problems(
      """
      examples:
        device
        phone
        watch
      install Water on phone share dietaryWater
      <device>: Water requests
      expect phone: Water share dietaryWater is notDetermined

      """)
    #expect(outline.map(\.1) == ["s.scenario:6:11"])

    let included = IncludeLoader.files([
      "setup.steps": "install Water on phone share dietaryWater\n",
      "use.steps": "watch: Water requests\n",
    ])
    let fromInclude = problems(
      """
      include setup.steps
      phone: Water requests
      include use.steps
      expect phone: Water share dietaryWater is notDetermined

      """, loader: included)
    #expect(fromInclude.map(\.1) == ["use.steps:1:8"])
  }

  @Test func expectationsThatQueryAsTheAppAreCheckedTheRestAreNot() {
    let found = problems(
      """
      install Water on phone share dietaryWater read dietaryWater
      phone: Water saves 250 mL dietaryWater
      expect both: Water share dietaryWater is notDetermined
      expect watch: Water sees 0 dietaryWater samples
      expect watch: store has 0 samples
      expect phone: Water's last call succeeded
      expect phone: Water sees 1 dietaryWater samples from Water

      """)
    #expect(found.map(\.1) == ["s.scenario:3:14", "s.scenario:4:15"])
  }

  @Test func settingsChangesForAnAppNotInstalledStayLegalTheyAreRefusedAtRunTime() {
    let found = problems(
      """
      install Water on phone share dietaryWater
      user on watch: in Settings turns on share dietaryWater for Water
      expect watch: the last settings change was refused
      user on phone: in the Watch app turns on share dietaryWater for Water
      expect watch: the last settings change was refused

      """)
    #expect(found.isEmpty, "\(found)")
  }
}
