import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Scenario
@testable import ScenarioLanguage

@Suite("Scenario parser: the device lock and the Health app")
struct LockParserTests {
  @Test func lockAndHealthAppStepsParse() throws {
    let text = """
      install Profile on phone and watch read dateOfBirth bloodType share bodyMass
      lock both
      unlock watch
      policy phone: units metric
      user on phone: sets date of birth 1990-04-02
      user on watch: sets skin type IV
      user on phone: sets blood type notSet
      user on phone: prefers lb for bodyMass
      user on phone: prefers the default unit for bodyMass
      expect watch: locked
      expect phone: 2 samples wait for unlock
      expect phone: Profile reads dateOfBirth as 1990-04-02
      expect phone: Profile's read of blood type fails with errorDatabaseInaccessible
      expect phone: Profile's preferred unit for bodyMass is kg
      expect phone: Profile's preferred units for bodyMass and dietaryWater fail with 5
      """
    let scenario = try ScenarioParser.parse(text, file: "t.scenario").get()
    let t = { (name: String) in SampleType.lookup(name: name)! }
    let expected: [StepKind] = [
      .install(scenario.apps["Profile"]!, .both), .lock(.both, locked: true), .lock(.one(.watch), locked: false),
      .policy(.one(.phone), reprompt: nil, retention: nil, units: .metric),
      .userSetting(.phone, .characteristic(t("dateOfBirth"), .dateOfBirth(year: 1990, month: 4, day: 2))),
      .userSetting(.watch, .characteristic(t("fitzpatrickSkinType"), .value(4))),
      .userSetting(.phone, .characteristic(t("bloodType"), nil)),
      .userSetting(.phone, .preferredUnit(t("bodyMass"), "lb")),
      .userSetting(.phone, .preferredUnit(t("bodyMass"), nil)),
      .expect(.locked(.one(.watch), true)), .expect(.waitingForUnlock(.phone, 2)),
      .expect(
        .characteristic(.phone, app: "Profile", t("dateOfBirth"), .value(.dateOfBirth(year: 1990, month: 4, day: 2)))),
      .expect(.characteristic(.phone, app: "Profile", t("bloodType"), .fails(.errorDatabaseInaccessible))),
      .expect(.preferredUnit(.phone, app: "Profile", t("bodyMass"), "kg")),
      .expect(
        .preferredUnitsFail(
          .phone, app: "Profile", [t("bodyMass"), t("dietaryWater")], .errorAuthorizationNotDetermined)),
    ]
    #expect(scenario.steps.map(\.kind) == expected)
  }
}
