import FoundationEssentials
import HealthEngine
import HealthModel
import Testing

/// App extensions' authorization requests in the engine (behavior.md A23): every way their app's sheet closes
/// completes them.
@Suite("Extension requests complete whenever their app's sheet closes")
struct ExtensionRequestTests {
  @Test func aRequestOnAHandledSheetTheSweepClosesCompletesEvenWithAPermissionForgotten() throws {
    var phone = makeDevice()
    let app = waterApp.bundleID
    guard
      case .prompt(let asked) = try phone.requestAuthorizationFromExtension(
        app, share: [water, steps], read: [], wall: t0)
    else {
      Issue.record("the extension's request waits")
      return
    }
    // The app asks for water itself and the user allows it; then for steps, whose sheet stays up.
    _ = try phone.requestAuthorization(app, share: [water], read: [], wall: t0)
    _ = try phone.answerPrompt(id: nil, bundleID: app, answer: .allowAll)
    guard case .prompt(let stepsSheet) = try phone.requestAuthorization(app, share: [steps], read: [], wall: t0) else {
      Issue.record("expected the steps sheet")
      return
    }
    // The app handles its extension: its sheet lists steps only and queues behind the steps sheet.
    guard case .prompt(let handled) = try phone.handleAuthorizationForExtension(app, wall: t0).outcome else {
      Issue.record("expected the handling sheet")
      return
    }
    #expect(handled.permissions == [Permission(steps, .share)])
    // Settings forgets water, then the user allows the steps sheet: the queued handling sheet has nothing left to ask.
    _ = try phone.changeSettings(app, .reset)
    let (completions, _) = try phone.answerPrompt(id: stepsSheet.id, bundleID: nil, answer: .allowAll)
    #expect(Set(completions.map(\.prompt.id)) == [stepsSheet.id, handled.id, asked.id])
    #expect(completions.allSatisfy { $0.result.success })
    #expect(phone.extensionRequests.isEmpty && phone.prompts.isEmpty)
  }

  @Test func lockingUninstallingAndStoppingEndWaitingRequests() throws {
    var phone = makeDevice()
    let app = waterApp.bundleID
    _ = try phone.requestAuthorizationFromExtension(app, share: [water], read: [], wall: t0)
    _ = try phone.handleAuthorizationForExtension(app, wall: t0)
    let (_, dismissed) = phone.lock(wall: t0)
    #expect(dismissed.count == 2 && dismissed.allSatisfy { !$0.result.success }, "the sheet and the request it lists")
    _ = phone.unlock(wall: t0)
    _ = try phone.requestAuthorizationFromExtension(app, share: [water], read: [], wall: t0)
    let withdrawn = phone.withdrawAllPrompts()
    #expect(withdrawn.count == 1, "a stopping daemon withdraws a request no sheet lists yet")
    _ = try phone.requestAuthorizationFromExtension(app, share: [water], read: [], wall: t0)
    let uninstalled = try phone.uninstall(app)
    #expect(uninstalled.withdrawn.count == 1)
    #expect(phone.extensionRequests.isEmpty)
  }
}
