import FoundationEssentials
import HealthEngine
import HealthModel
import Testing

/// Clinical records' own Info.plist keys in the engine (behavior.md A24–A25).
@Suite("Clinical records: the Health Records usage description and the required types")
struct ClinicalAuthorizationTests {
  static let allergy = SampleType.lookup(name: "allergyRecord")!
  static let condition = SampleType.lookup(name: "conditionRecord")!
  static let labs = SampleType.lookup(name: "labResultRecord")!
  static let required = [allergy, condition, labs].map(\.identifier)

  static func chart(usage: String? = "Shows your records.", required: [String] = [], readUsage: String? = nil)
    -> AppRecord
  {
    AppRecord(
      bundleID: "com.example.chart", displayName: "Chart", writeUsageDescription: nil, readUsageDescription: readUsage,
      entitlements: [.healthRecords], healthRecords: HealthRecordsInfo(usageDescription: usage, requiredTypes: required)
    )
  }

  /// An extension's request of allergy records waiting on its app's sheet, or nil (recorded as an issue).
  static func extensionOnItsAppsSheet(_ phone: inout DeviceState) throws -> (waiting: Prompt, sheet: Prompt)? {
    guard
      case .prompt(let waiting) = try phone.requestAuthorizationFromExtension(
        "com.example.chart", share: [], read: [allergy], wall: t0),
      case .prompt(let sheet) = try phone.handleAuthorizationForExtension("com.example.chart", wall: t0).outcome
    else {
      Issue.record("expected the extension to wait and its app's sheet")
      return nil
    }
    return (waiting, sheet)
  }

  /// Chart's request of allergy records and steps: the second of its two sheets, or nil (recorded as an issue).
  static func mixedRequest(_ phone: inout DeviceState) throws -> Prompt? {
    guard
      case .prompt(let data) = try phone.requestAuthorization(
        "com.example.chart", share: [], read: [allergy, steps], wall: t0)
    else {
      Issue.record("expected sheets")
      return nil
    }
    return data
  }

  static func terminationMessage(_ body: () throws(HealthError) -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return error.kind == .wouldTerminate ? error.message : "not a termination: \(error)"
    }
  }

  @Test(arguments: [nil, "", "  "])
  func aClinicalReadWithoutTheRecordsDescriptionWouldTerminate(usage: String?) {
    var phone = makeDevice(apps: [Self.chart(usage: usage, readUsage: "r")])
    let message = Self.terminationMessage { () throws(HealthError) in
      _ = try phone.requestAuthorization("com.example.chart", share: [], read: [Self.allergy, steps], wall: t0)
    }
    #expect(
      message
        == "NSHealthClinicalHealthRecordsShareUsageDescription must be set in the app's Info.plist in order to request "
        + "read authorization for the following types: HKClinicalTypeIdentifierAllergyRecord")
    #expect(phone.prompts.isEmpty)
  }

  @Test func clinicalTypesNeedOnlyTheRecordsDescriptionAndTheOthersStillNeedTheirs() throws {
    var phone = makeDevice(apps: [Self.chart(readUsage: nil)])
    guard
      case .prompt(let sheet) = try phone.requestAuthorization(
        "com.example.chart", share: [], read: [Self.allergy], wall: t0)
    else {
      Issue.record("a clinical-only request needs no NSHealthShareUsageDescription")
      return
    }
    #expect(sheet.permissions == [Permission(Self.allergy, .read)])
    let message = Self.terminationMessage { () throws(HealthError) in
      _ = try phone.requestAuthorization("com.example.chart", share: [], read: [Self.allergy, steps], wall: t0)
    }
    #expect(message?.hasPrefix("NSHealthShareUsageDescription must be set") == true)
    #expect(message?.hasSuffix("types: HKQuantityTypeIdentifierStepCount") == true, "only the non-clinical type")
  }

  @Test func requiredTypesAreCheckedOnEveryRequestBeforeThePurposeStrings() {
    let short = HealthRecordsInfo(usageDescription: "c", requiredTypes: Array(Self.required.prefix(2)))
    #expect(throws: HealthError.self) { try short.validate() }
    var phone = makeDevice(apps: [Self.chart(usage: nil, required: [Self.required[0], Self.required[1], "x"])])
    // The list is checked before the missing clinical key (a request without clinical types checks it too: the
    // `Short` app of health-records/required-clinical-types).
    let message = Self.terminationMessage { () throws(HealthError) in
      _ = try phone.requestAuthorization("com.example.chart", share: [], read: [Self.allergy], wall: t0)
    }
    #expect(message?.hasPrefix("x is not a valid required clinical record type. Must be one of: ") == true)
    #expect(message?.contains("HKClinicalTypeIdentifierAllergyRecord") == true)
    #expect(HealthRecordsInfo().isEmpty && !HealthRecordsInfo(usageDescription: "").isEmpty)
    #expect(throws: Never.self) {
      try HealthRecordsInfo(usageDescription: nil, requiredTypes: Self.required).validate()
    }
  }

  @Test func aRequiredTypeLeftOffFailsTheRequestButKeepsTheDecisions() throws {
    var phone = makeDevice(apps: [Self.chart(required: Self.required)])
    let app = "com.example.chart"
    guard
      case .prompt(let sheet) = try phone.requestAuthorization(
        app, share: [], read: [Self.allergy, Self.condition, Self.labs], wall: t0)
    else {
      Issue.record("expected a sheet")
      return
    }
    let choices = [Permission(Self.allergy, .read): true, Permission(Self.condition, .read): true]
    let (completions, _) = try phone.answerPrompt(id: sheet.id, bundleID: nil, answer: .choices(choices))
    #expect(completions.count == 1)
    #expect(completions.first?.result.success == false)
    #expect(completions.first?.result.error?.code == .errorRequiredAuthorizationDenied)
    #expect(completions.first?.result.error?.message.contains("labResult") == false, "the error does not say which")
    #expect(phone.decision(app, Permission(Self.allergy, .read)) == .authorized)
    #expect(phone.decision(app, Permission(Self.labs, .read)) == .denied)
    // Asked again with nothing undecided: no sheet, the same failure; a request without clinical types succeeds.
    guard case .completed(let again) = try phone.requestAuthorization(app, share: [], read: [Self.allergy], wall: t0)
    else {
      Issue.record("everything is decided")
      return
    }
    #expect(again.error?.code == .errorRequiredAuthorizationDenied)
    _ = try phone.changeSettings(app, .set(Permission(Self.labs, .read), on: true))
    guard case .completed(let granted) = try phone.requestAuthorization(app, share: [], read: [Self.allergy], wall: t0)
    else {
      Issue.record("everything is decided")
      return
    }
    #expect(granted == .succeeded)
  }

  @Test func aNeverAskedRequiredTypeFailsAQueuedSheetAndAnExtensionsRequestToo() throws {
    var phone = makeDevice(apps: [Self.chart(required: Self.required)])
    let app = "com.example.chart"
    guard case .prompt(let first) = try phone.requestAuthorization(app, share: [], read: [Self.allergy], wall: t0),
      case .prompt(let queued) = try phone.requestAuthorization(app, share: [], read: [Self.allergy], wall: t0)
    else {
      Issue.record("expected two sheets")
      return
    }
    let (completions, _) = try phone.answerPrompt(id: first.id, bundleID: nil, answer: .allowAll)
    #expect(completions.map(\.prompt.id) == [first.id, queued.id])
    #expect(completions.allSatisfy { $0.result.error?.code == .errorRequiredAuthorizationDenied })
    guard
      case .completed(let fromExtension) = try phone.requestAuthorizationFromExtension(
        app, share: [], read: [Self.allergy], wall: t0)
    else {
      Issue.record("nothing undecided")
      return
    }
    #expect(fromExtension.error?.code == .errorRequiredAuthorizationDenied)
  }

  @Test func installRefusesKeysPastTheStoredLimits() {
    var phone = makeDevice(apps: [])
    var app = Self.chart(required: Array(repeating: "x", count: HealthRecordsInfo.maxRequiredTypes + 1))
    #expect(throws: HealthError.self) { _ = try phone.install(app) }
    app.healthRecords = HealthRecordsInfo(usageDescription: String(repeating: "a", count: (1 << 16) + 1))
    #expect(throws: HealthError.self) { _ = try phone.install(app) }
    #expect(phone.apps.isEmpty)
  }

  @Test func clinicalTypesAreAskedOnTheirOwnSheetFirstAndTheCallWaitsForBoth() throws {
    var phone = makeDevice(apps: [Self.chart(readUsage: "r")])
    let app = "com.example.chart"
    guard
      case .prompt(let data) = try phone.requestAuthorization(app, share: [], read: [Self.allergy, steps], wall: t0),
      let records = phone.sheetAhead(of: data.id)
    else {
      Issue.record("expected the Health Records sheet ahead of the other")
      return
    }
    #expect(records.isHealthRecordsSheet && !data.isHealthRecordsSheet)
    #expect(records.permissions == [Permission(Self.allergy, .read)] && data.permissions == [Permission(steps, .read)])
    #expect(phone.prompts.map(\.id) == [records.id, data.id])
    #expect(throws: HealthError.self, "the other sheet waits for the Health Records one") {
      _ = try phone.answerPrompt(id: data.id, bundleID: nil, answer: .allowAll)
    }
    let (first, _) = try phone.answerPrompt(id: nil, bundleID: app, answer: .allowAll)
    #expect(first.map(\.prompt.id) == [records.id], "no completion reaches the call yet")
    #expect(phone.decision(app, Permission(Self.allergy, .read)) == .authorized)
    let (second, _) = try phone.answerPrompt(id: nil, bundleID: app, answer: .denyAll)
    #expect(second.map(\.prompt.id) == [data.id] && second.first?.result == .succeeded)
    #expect(phone.decision(app, Permission(steps, .read)) == .denied)
  }

  @Test(arguments: [PromptAnswer.cancel, .leaveApp, .failToPresent(.error)])
  func aHealthRecordsSheetNotAnsweredEndsTheRequest(answer: PromptAnswer) throws {
    var phone = makeDevice(apps: [Self.chart(readUsage: "r")])
    let app = "com.example.chart"
    guard let data = try Self.mixedRequest(&phone) else { return }
    let (completions, _) = try phone.answerPrompt(id: nil, bundleID: app, answer: answer)
    #expect(completions.count == 2)
    let call = completions.first { $0.prompt.id == data.id }
    #expect(call?.result.success == false)
    #expect(call?.result == completions.first?.result, "the call ends as its Health Records sheet did")
    #expect(phone.prompts.isEmpty && phone.decision(app, Permission(steps, .read)) == nil)
  }

  @Test func theOtherSheetWithNothingLeftToAskStillWaitsForTheHealthRecordsSheet() throws {
    var phone = makeDevice(apps: [Self.chart(readUsage: "r")])
    let app = "com.example.chart"
    guard case .prompt(let steady) = try phone.requestAuthorization(app, share: [], read: [steps], wall: t0),
      case .prompt(let data) = try phone.requestAuthorization(app, share: [], read: [Self.allergy, steps], wall: t0),
      let records = phone.sheetAhead(of: data.id)
    else {
      Issue.record("expected three sheets")
      return
    }
    // Answering the first request's sheet decides steps: the Health Records sheet is still up, so the last waits.
    let (completions, _) = try phone.answerPrompt(id: steady.id, bundleID: nil, answer: .allowAll)
    #expect(completions.map(\.prompt.id) == [steady.id])
    let (rest, _) = try phone.answerPrompt(id: records.id, bundleID: nil, answer: .allowAll)
    #expect(rest.map(\.prompt.id) == [records.id, data.id], "now it has nothing to ask and completes")
    let (_, dismissed) = phone.lock(wall: t0)
    #expect(dismissed.isEmpty)
  }

  @Test func anExtensionsWaitingRequestAndAStrictLockoutAreCheckedToo() throws {
    var phone = makeDevice(apps: [Self.chart(required: Self.required)])
    let app = "com.example.chart"
    guard let (waiting, sheet) = try Self.extensionOnItsAppsSheet(&phone) else { return }
    let (completions, _) = try phone.answerPrompt(id: sheet.id, bundleID: nil, answer: .allowAll)
    let extensionCall = completions.first { $0.prompt.id == waiting.id }
    #expect(extensionCall?.result.error?.code == .errorRequiredAuthorizationDenied, "condition and labs never asked")
    // On a strict device an app locked out completes at once, still checked.
    var policy = phone.policy
    policy.reprompt = .strict
    _ = try phone.setPolicy(policy)
    guard case .prompt(let denied) = try phone.requestAuthorization(app, share: [], read: [Self.condition], wall: t0)
    else {
      Issue.record("expected a sheet")
      return
    }
    _ = try phone.answerPrompt(id: denied.id, bundleID: nil, answer: .denyAll)
    guard case .completed(let locked) = try phone.requestAuthorization(app, share: [], read: [Self.labs], wall: t0)
    else {
      Issue.record("a locked-out app sees no sheet")
      return
    }
    #expect(locked.error?.code == .errorRequiredAuthorizationDenied)
  }

  @Test func onAStrictDeviceADenialOnTheHealthRecordsSheetLeavesTheSecondUp() throws {
    var phone = makeDevice(apps: [Self.chart(readUsage: "r")])
    var policy = phone.policy
    policy.reprompt = .strict
    _ = try phone.setPolicy(policy)
    let app = "com.example.chart"
    guard let data = try Self.mixedRequest(&phone) else { return }
    let (first, _) = try phone.answerPrompt(id: nil, bundleID: app, answer: .denyAll)
    #expect(!first.contains { $0.prompt.id == data.id }, "the second sheet is still the user's to answer")
    let (second, _) = try phone.answerPrompt(id: data.id, bundleID: nil, answer: .allowAll)
    #expect(second.first?.prompt.id == data.id && second.first?.result == .succeeded)
    #expect(phone.decision(app, Permission(steps, .read)) == .authorized)
  }

  @Test func lockAndUninstallCloseBothSheetsAndTheCallHearsOnce() throws {
    var phone = makeDevice(apps: [Self.chart(readUsage: "r")])
    let app = "com.example.chart"
    _ = try phone.requestAuthorization(app, share: [], read: [Self.allergy, steps], wall: t0)
    let (_, dismissed) = phone.lock(wall: t0)
    #expect(dismissed.count == 2 && dismissed.allSatisfy { $0.result.error?.code == .errorAuthorizationNotDetermined })
    _ = phone.unlock(wall: t0)
    guard let data = try Self.mixedRequest(&phone) else { return }
    let withdrawn = try phone.uninstall(app).withdrawn
    #expect(withdrawn.map(\.id) == [data.id - 1, data.id] && phone.prompts.isEmpty)
  }

  @Test func anExtensionsRequestOnASilentlyFailedSheetSucceedsUnchecked() throws {
    var phone = makeDevice(apps: [Self.chart(required: Self.required)])
    guard let (waiting, sheet) = try Self.extensionOnItsAppsSheet(&phone) else { return }
    let (completions, _) = try phone.answerPrompt(id: sheet.id, bundleID: nil, answer: .failToPresent(.silent))
    #expect(completions.first { $0.prompt.id == waiting.id }?.result == .succeeded)
  }
}
