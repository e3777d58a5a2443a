import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

@Suite("Authorization on the phone")
struct PhoneAuthorizationTests {
  @Test func firstRequestPresentsASheetListingEveryUndecidedPermission() throws {
    var phone = makeDevice()
    let outcome = try phone.requestAuthorization(waterApp.bundleID, share: [water], read: [water], wall: t0)
    guard case .prompt(let prompt) = outcome else {
      Issue.record("expected a sheet")
      return
    }
    #expect(prompt.permissions == [Permission(water, .share), Permission(water, .read)])
    #expect(phone.prompts.count == 1)
    #expect(try phone.authorizationStatus(waterApp.bundleID, water) == .notDetermined)
    #expect(try phone.requestStatus(waterApp.bundleID, share: [water], read: [water]) == .shouldRequest)
  }

  @Test func allowAllGrantsBothDirections() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    #expect(try phone.authorizationStatus(waterApp.bundleID, water) == .sharingAuthorized)
    #expect(phone.decision(waterApp.bundleID, Permission(water, .read)) == .authorized)
    #expect(try phone.requestStatus(waterApp.bundleID, share: [water], read: [water]) == .unnecessary)
  }

  @Test func dontAllowLooksLikeSuccessToTheApp() throws {
    var phone = makeDevice()
    guard
      case .prompt(let prompt) = try phone.requestAuthorization(
        returnApp.bundleID, share: [mindful], read: [], wall: t0)
    else {
      Issue.record("expected a sheet")
      return
    }
    let (completions, events) = try phone.answerPrompt(id: prompt.id, bundleID: nil, answer: .denyAll)
    #expect(completions.first?.result == .succeeded)
    #expect(
      events == [
        .promptAnswered(
          bundleID: returnApp.bundleID, changes: [AuthorizationChange(Permission(mindful, .share), .denied)])
      ])
    #expect(try phone.authorizationStatus(returnApp.bundleID, mindful) == .sharingDenied)
    #expect(try phone.requestStatus(returnApp.bundleID, share: [mindful], read: []) == .unnecessary)
  }

  @Test func decidedPermissionsCompleteWithoutASheet() throws {
    var phone = makeDevice()
    try phone.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    let outcome = try phone.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0)
    #expect(outcome == .completed(.succeeded))
    #expect(phone.prompts.isEmpty)
  }

  @Test func perTypeChoicesRecordEachToggleAndUnmentionedOnesAreOff() throws {
    var phone = makeDevice()
    try phone.grant(
      waterApp.bundleID, share: [water, steps], read: [water],
      answer: .choices([Permission(water, .share): true, Permission(water, .read): false]))
    #expect(try phone.authorizationStatus(waterApp.bundleID, water) == .sharingAuthorized)
    #expect(phone.decision(waterApp.bundleID, Permission(water, .read)) == .denied)
    #expect(try phone.authorizationStatus(waterApp.bundleID, steps) == .sharingDenied)
  }

  @Test func choicesNamingAnUnlistedPermissionAreRejected() throws {
    var phone = makeDevice()
    guard case .prompt = try phone.requestAuthorization(waterApp.bundleID, share: [water], read: [], wall: t0) else {
      Issue.record("expected a sheet")
      return
    }
    expectError(.unknownError, kind: .simulator) {
      _ = try phone.answerPrompt(id: nil, bundleID: nil, answer: .choices([Permission(steps, .share): true]))
    }
    #expect(phone.prompts.count == 1, "a rejected answer leaves the sheet up")
  }

  @Test func cancelFailsWithUserCanceledAndRecordsNothing() throws {
    var phone = makeDevice()
    _ = try phone.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0)
    let (completions, _) = try phone.answerPrompt(id: nil, bundleID: nil, answer: .cancel)
    #expect(completions.first?.result.success == false)
    #expect(completions.first?.result.error?.code == .errorUserCanceled)
    #expect(try phone.authorizationStatus(returnApp.bundleID, mindful) == .notDetermined)
    #expect(try phone.requestStatus(returnApp.bundleID, share: [mindful], read: []) == .shouldRequest)
    // The phone asks again next time.
    guard case .prompt = try phone.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0) else {
      Issue.record("the phone must present the sheet again after a cancel")
      return
    }
  }

  @Test(arguments: [PresentationFailureMode.error, .silent])
  func presentationFailureRecordsNothingAndTheNextRequestAsksAgain(_ mode: PresentationFailureMode) throws {
    var phone = makeDevice()
    _ = try phone.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0)
    let (completions, events) = try phone.answerPrompt(id: nil, bundleID: nil, answer: .failToPresent(mode))
    #expect(events.isEmpty)
    #expect(completions.first?.result.success == (mode == .silent))
    #expect(try phone.authorizationStatus(returnApp.bundleID, mindful) == .notDetermined)
    #expect(try phone.requestStatus(returnApp.bundleID, share: [mindful], read: []) == .shouldRequest)
    #expect(phone.promptHistory.last?.outcome == .failedToPresent(mode))
    guard case .prompt = try phone.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0) else {
      Issue.record("expected a sheet")
      return
    }
  }

  @Test func incrementalRequestsListOnlyTheNewPermissions() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water])
    guard
      case .prompt(let prompt) = try phone.requestAuthorization(
        waterApp.bundleID, share: [water], read: [water], wall: t0)
    else {
      Issue.record("expected a sheet for the new read permission")
      return
    }
    #expect(prompt.permissions == [Permission(water, .read)])
  }

  @Test func readOnlyRequestReportsSharingDeniedOnceAnswered() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, read: [steps])
    #expect(try phone.authorizationStatus(waterApp.bundleID, steps) == .sharingDenied)
    #expect(phone.decision(waterApp.bundleID, Permission(steps, .read)) == .authorized)
    #expect(try phone.requestStatus(waterApp.bundleID, share: [steps], read: []) == .shouldRequest)
  }

  @Test func correlationStatusIsAlwaysNotDetermined() throws {
    let phone = makeDevice()
    #expect(try phone.authorizationStatus(waterApp.bundleID, bloodPressure) == .notDetermined)
  }

  struct Termination: Sendable, CustomTestStringConvertible {
    let name: String
    let app: AppRecord
    let share: Set<SampleType>
    let read: Set<SampleType>
    let message: String
    var testDescription: String { name }
  }

  static let terminations: [Termination] = [
    .init(
      name: "both sets empty", app: waterApp, share: [], read: [],
      message: "Must request authorization for at least one data type"),
    .init(
      name: "share a read-only type", app: waterApp, share: [exercise, standHour], read: [],
      message:
        "Authorization to share the following types is disallowed: HKQuantityTypeIdentifierAppleExerciseTime, HKCategoryTypeIdentifierAppleStandHour"
    ),
    .init(
      name: "share a correlation", app: waterApp, share: [bloodPressure], read: [],
      message: "Authorization to share the following types is disallowed: HKCorrelationTypeIdentifierBloodPressure"),
    .init(
      name: "read a correlation", app: waterApp, share: [], read: [bloodPressure],
      message: "Authorization to read the following types is disallowed: HKCorrelationTypeIdentifierBloodPressure"),
    .init(
      name: "missing NSHealthShareUsageDescription", app: returnApp, share: [], read: [mindful],
      message:
        "NSHealthShareUsageDescription must be set in the app's Info.plist in order to request read authorization for the following types: HKCategoryTypeIdentifierMindfulSession"
    ),
    .init(
      name: "missing NSHealthUpdateUsageDescription",
      app: AppRecord(
        bundleID: "com.example.reader", displayName: "Reader", writeUsageDescription: "  ",
        readUsageDescription: "reads"),
      share: [water], read: [],
      message:
        "NSHealthUpdateUsageDescription must be set in the app's Info.plist in order to request write authorization for the following types: HKQuantityTypeIdentifierDietaryWater"
    ),
  ]

  @Test("Preconditions that would terminate the app", arguments: terminations)
  func termination(_ t: Termination) throws {
    var phone = makeDevice(apps: [t.app])
    do {
      _ = try phone.requestAuthorization(t.app.bundleID, share: t.share, read: t.read, wall: t0)
      Issue.record("expected a termination error")
    } catch {
      #expect(error.kind == .wouldTerminate)
      #expect(error.exception == "NSInvalidArgumentException")
      #expect(error.message == t.message)
    }
    #expect(phone.prompts.isEmpty)
    // getRequestStatus applies the same preconditions.
    let statusError = #expect(throws: HealthError.self) {
      try phone.requestStatus(t.app.bundleID, share: t.share, read: t.read)
    }
    #expect(statusError?.kind == .wouldTerminate && statusError?.exception == "NSInvalidArgumentException")
    #expect(statusError?.message == t.message)
  }

  @Test func readingAnAppleComputedTypeIsAllowed() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, read: [exercise, standHour])
    #expect(phone.decision(waterApp.bundleID, Permission(exercise, .read)) == .authorized)
  }

  @Test func unknownAppIsASimulatorError() {
    var phone = makeDevice(apps: [])
    expectError(.unknownError, kind: .simulator) {
      _ = try phone.requestAuthorization("com.nope", share: [water], read: [], wall: t0)
    }
  }

  @Test func queuedSheetsCompleteWhenAnEarlierAnswerDecidedEverything() throws {
    var phone = makeDevice()
    guard
      case .prompt(let first) = try phone.requestAuthorization(waterApp.bundleID, share: [water], read: [], wall: t0),
      case .prompt(let second) = try phone.requestAuthorization(waterApp.bundleID, share: [water], read: [], wall: t0)
    else {
      Issue.record("expected two sheets")
      return
    }
    let (completions, _) = try phone.answerPrompt(id: first.id, bundleID: nil, answer: .allowAll)
    #expect(completions.map(\.prompt.id) == [first.id, second.id])
    #expect(completions.allSatisfy { $0.result == .succeeded })
    #expect(phone.prompts.isEmpty)
  }

  @Test func noPendingSheetIsASimulatorError() {
    var phone = makeDevice()
    expectError(.unknownError, kind: .simulator) {
      _ = try phone.answerPrompt(id: nil, bundleID: nil, answer: .allowAll)
    }
  }
}

@Suite("Settings and revocation")
struct SettingsTests {
  @Test func revokingShareKeepsSamplesAndDeniesSaves() throws {
    var phone = makeDevice()
    try phone.grant(returnApp.bundleID, share: [mindful])
    _ = try phone.save(returnApp.bundleID, [mindfulInput(minutes: 10)], wall: t0)
    _ = try phone.changeSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: false))
    #expect(try phone.authorizationStatus(returnApp.bundleID, mindful) == .sharingDenied)
    expectError(.errorAuthorizationDenied) {
      _ = try phone.save(returnApp.bundleID, [mindfulInput(minutes: 5)], wall: t0)
    }
    #expect(phone.storedSamples(type: mindful, wall: t0).count == 1, "revoking keeps every sample")
    // No re-prompt after revocation: the request completes silently.
    #expect(
      try phone.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0) == .completed(.succeeded)
    )
    #expect(try phone.requestStatus(returnApp.bundleID, share: [mindful], read: []) == .unnecessary)
  }

  @Test func turnAllOffAndReset() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    _ = try phone.changeSettings(waterApp.bundleID, .turnAllOff)
    #expect(phone.decision(waterApp.bundleID, Permission(water, .read)) == .denied)
    #expect(try phone.authorizationStatus(waterApp.bundleID, water) == .sharingDenied)
    _ = try phone.changeSettings(waterApp.bundleID, .reset)
    #expect(try phone.authorizationStatus(waterApp.bundleID, water) == .notDetermined)
    #expect(try phone.requestStatus(waterApp.bundleID, share: [water], read: [water]) == .shouldRequest)
  }

  @Test func settingsListOnlyRequestedPermissions() throws {
    var phone = makeDevice()
    expectError(.unknownError, kind: .simulator) {
      _ = try phone.changeSettings(waterApp.bundleID, .set(Permission(water, .share), on: true))
    }
  }

  @Test func uninstallForgetsAuthorizationButKeepsSamples() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    _ = try phone.save(waterApp.bundleID, [waterInput(250)], wall: t0)
    _ = try phone.uninstall(waterApp.bundleID)
    _ = try phone.install(waterApp)
    #expect(try phone.authorizationStatus(waterApp.bundleID, water) == .notDetermined)
    #expect(phone.storedSamples(type: water, wall: t0).count == 1)
  }

  @Test func uninstallWithdrawsPendingSheets() throws {
    var phone = makeDevice()
    _ = try phone.requestAuthorization(waterApp.bundleID, share: [water], read: [], wall: t0)
    let (_, withdrawn) = try phone.uninstall(waterApp.bundleID)
    #expect(withdrawn.count == 1)
    #expect(phone.prompts.isEmpty)
    #expect(phone.promptHistory.last?.outcome == .withdrawn)
  }
}

@Suite("Authorization on the watch")
struct WatchAuthorizationTests {
  @Test func denyOnTheWatchLocksTheAppOutEvenForNewTypes() throws {
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    #expect(watch.lockedOut.contains(returnApp.bundleID))
    #expect(
      try watch.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0) == .completed(.succeeded)
    )
    // Not even a newly requested type gets a sheet.
    #expect(
      try watch.requestAuthorization(returnApp.bundleID, share: [steps], read: [], wall: t0) == .completed(.succeeded))
    #expect(try watch.authorizationStatus(returnApp.bundleID, steps) == .notDetermined)
    #expect(try watch.requestStatus(returnApp.bundleID, share: [steps], read: []) == .unnecessary)
  }

  @Test func cancelOnTheWatchAlsoLocksOut() throws {
    var watch = makeDevice(.watch)
    _ = try watch.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0)
    let (completions, events) = try watch.answerPrompt(id: nil, bundleID: nil, answer: .cancel)
    #expect(completions.first?.result.error?.code == .errorUserCanceled)
    #expect(events == [.promptCancelled(bundleID: returnApp.bundleID)])
    #expect(try watch.authorizationStatus(returnApp.bundleID, mindful) == .notDetermined)
    #expect(
      try watch.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0) == .completed(.succeeded)
    )
  }

  @Test func presentationFailureDoesNotLockOut() throws {
    var watch = makeDevice(.watch)
    _ = try watch.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0)
    _ = try watch.answerPrompt(id: nil, bundleID: nil, answer: .failToPresent(.error))
    #expect(!watch.lockedOut.contains(returnApp.bundleID))
    guard case .prompt = try watch.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0) else {
      Issue.record("expected a sheet")
      return
    }
  }

  @Test func grantDoesNotLockOutAndNewTypesStillPrompt() throws {
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful])
    guard case .prompt = try watch.requestAuthorization(returnApp.bundleID, share: [steps], read: [], wall: t0) else {
      Issue.record("expected a sheet")
      return
    }
  }

  @Test func theWatchRefusesSettingsChangesSentToItInTheIPhoneOnlyModel() throws {
    var watch = makeDevice(.watch)
    var policy = watch.policy
    policy.watchSettings = .iPhoneOnly
    _ = try watch.setPolicy(policy)
    try watch.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    expectError(.unknownError, kind: .simulator) {
      _ = try watch.changeSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: true))
    }
  }

  @Test func byDefaultTheWatchHasSettingsOfItsOwnThatEndTheLockout() throws {
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    #expect(watch.lockedOut.contains(returnApp.bundleID))
    _ = try watch.changeSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: true))
    #expect(watch.decision(returnApp.bundleID, Permission(mindful, .share)) == .authorized)
    #expect(!watch.lockedOut.contains(returnApp.bundleID))
  }

  @Test func watchAppSettingsFromThePhoneFixTheLockout() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    _ = try phone.queueWatchSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: true))
    #expect(
      phone.decision(returnApp.bundleID, Permission(mindful, .share)) == nil, "the phone's own state is untouched")
    let entries = phone.outboundEntries(after: 0, maxItems: 100)
    _ = watch.receivePeerEntries(entries, wall: t0)
    #expect(try watch.authorizationStatus(returnApp.bundleID, mindful) == .sharingAuthorized)
    #expect(!watch.lockedOut.contains(returnApp.bundleID))
  }

  @Test func watchAppResetLetsTheWatchAskAgain() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    _ = try phone.queueWatchSettings(returnApp.bundleID, .reset)
    _ = watch.receivePeerEntries(phone.outboundEntries(after: 0, maxItems: 100), wall: t0)
    guard case .prompt = try watch.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: t0) else {
      Issue.record("expected a sheet after the reset")
      return
    }
  }

  @Test func standardPolicyOnTheWatchBehavesLikeThePhone() throws {
    var watch = makeDevice(.watch)
    _ = try watch.setPolicy(DevicePolicy(reprompt: .standard, retention: DevicePolicy.defaultWatchRetention))
    try watch.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    guard case .prompt = try watch.requestAuthorization(returnApp.bundleID, share: [steps], read: [], wall: t0) else {
      Issue.record("expected a sheet for a new type")
      return
    }
  }

  @Test func authorizationIsIndependentPerDevice() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try phone.grant(returnApp.bundleID, share: [mindful])
    try watch.grant(returnApp.bundleID, share: [mindful], answer: .denyAll)
    _ = watch.receivePeerEntries(phone.outboundEntries(after: 0, maxItems: 100), wall: t0)
    #expect(try phone.authorizationStatus(returnApp.bundleID, mindful) == .sharingAuthorized)
    #expect(try watch.authorizationStatus(returnApp.bundleID, mindful) == .sharingDenied)
  }
}

@Suite("Companion authorization (A18)")
struct CompanionAuthorizationTests {
  func companion(_ kind: DeviceKind) throws -> DeviceState {
    var device = makeDevice(kind, apps: [waterApp])
    var policy = device.policy
    policy.authorization = .companion
    _ = try device.setPolicy(policy)
    return device
  }

  /// Delivers everything `from` logged to `to`.
  func deliver(_ from: DeviceState, _ to: inout DeviceState) {
    _ = to.receivePeerEntries(from.outboundEntries(after: to.sync.appliedFromPeer, maxItems: 100), wall: t0)
  }

  @Test func conflictingDecisionsConvergeToTheLaterWhicheverOrderTheyArrive() throws {
    for phoneFirst in [true, false] {
      var phone = try companion(.phone)
      var watch = try companion(.watch)
      _ = try phone.grant(waterApp.bundleID, share: [water], answer: .allowAll)
      _ = try watch.setClock(t0.addingTimeInterval(60))
      _ = try watch.grant(waterApp.bundleID, share: [water], answer: .denyAll)
      if phoneFirst {
        deliver(phone, &watch)
        deliver(watch, &phone)
      } else {
        deliver(watch, &phone)
        deliver(phone, &watch)
      }
      let key = Permission(water, .share)
      #expect(phone.decision(waterApp.bundleID, key) == .denied, "the watch decided a minute later")
      #expect(watch.decision(waterApp.bundleID, key) == .denied)
    }
  }

  @Test func atTheSameInstantTheIPhoneWins() throws {
    var phone = try companion(.phone)
    var watch = try companion(.watch)
    _ = try phone.grant(waterApp.bundleID, share: [water], answer: .allowAll)
    _ = try watch.grant(waterApp.bundleID, share: [water], answer: .denyAll)
    deliver(phone, &watch)
    deliver(watch, &phone)
    #expect(phone.decision(waterApp.bundleID, Permission(water, .share)) == .authorized)
    #expect(watch.decision(waterApp.bundleID, Permission(water, .share)) == .authorized)
  }

  @Test func independentDevicesIgnoreDecisionsAndAResetTravels() throws {
    var phone = try companion(.phone)
    var plain = makeDevice(.watch, apps: [waterApp])
    _ = try phone.grant(waterApp.bundleID, share: [water])
    deliver(phone, &plain)
    #expect(plain.decision(waterApp.bundleID, Permission(water, .share)) == nil, "independent: nothing applied")
    var watch = try companion(.watch)
    deliver(phone, &watch)
    #expect(watch.decision(waterApp.bundleID, Permission(water, .share)) == .authorized)
    _ = try phone.changeSettings(waterApp.bundleID, .reset)
    deliver(phone, &watch)
    #expect(watch.decision(waterApp.bundleID, Permission(water, .share)) == nil, "a reset forgets on both")
  }

  @Test func replayRebuildsTheStamps() throws {
    var phone = try companion(.phone)
    var journal: [DeviceEvent] = []
    let prompt = try #require(
      try {
        switch try phone.requestAuthorization(waterApp.bundleID, share: [water], read: [], wall: t0) {
        case .prompt(let p): return p
        case .completed: return nil
        }
      }())
    journal += try phone.answerPrompt(id: prompt.id, bundleID: nil, answer: .allowAll, wall: t0).events
    #expect(journal.contains { if case .authorizationShared = $0 { true } else { false } })
    var replayed = DeviceState(device: .phone)
    for event in [DeviceEvent.clockSet(t0), .appInstalled(waterApp), .policyChanged(phone.policy)] + journal {
      replayed.apply(event)
    }
    #expect(replayed.decisionStamps == phone.decisionStamps)
    #expect(replayed.sync == phone.sync)
  }
}
