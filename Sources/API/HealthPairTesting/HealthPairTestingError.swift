import HealthKitSim
import HealthModel
import HealthPairClient

/// Why the harness could not do what a test asked.
public enum HealthPairTestingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The pair could not be launched (daemon executable missing, a daemon failed to start).
  case launchFailed(String)
  /// A condition was not reached before the deadline.
  case timeout(waitingFor: String, seconds: Double)
  /// A device refused an operation (no sheet pending, a permission Settings does not list, an unknown app).
  case deviceRefused(device: HealthDeviceKind, operation: String, reason: String)
  /// A device's daemon could not be reached.
  case deviceUnreachable(device: HealthDeviceKind, reason: String)
  /// A type outside HealthKitSim's catalog was used.
  case unsupportedType(String)
  /// A permission sheet stayed up for the pair's whole deadline with nobody answering it — usually because the test
  /// awaited the app's request before answering. The harness then made the sheet fail to present (the app's call
  /// ended with `HKError.unknownError`), and every later wait of the pair throws this error.
  case sheetNotAnswered(device: HealthDeviceKind, sheet: PermissionSheet, seconds: Double)
  /// An app extension's authorization request waited the pair's sheet deadline without its containing app calling
  /// `handleAuthorizationForExtension`; the harness ended it (behavior.md A23).
  case extensionRequestNotHandled(device: HealthDeviceKind, request: PermissionSheet, seconds: Double)
  /// An Apple Health export could not be imported: the file (with `file:line:col` and byte offset) or the device
  /// refused it. Nothing was imported.
  case importFailed(device: HealthDeviceKind, reason: String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .launchFailed(let why): "cannot launch the phone + watch pair: \(why)"
    case .timeout(let what, let seconds): "timed out after \(seconds) s waiting for \(what)"
    case .deviceRefused(let device, let operation, let reason): "the \(device) refused \(operation): \(reason)"
    case .deviceUnreachable(let device, let reason): "cannot reach the \(device): \(reason)"
    case .unsupportedType(let identifier): "\(identifier) is not a type HealthKitSim simulates"
    case .importFailed(let device, let reason): "nothing was imported into the \(device): \(reason)"
    case .sheetNotAnswered(let device, let sheet, let seconds):
      "nobody answered the \(device)'s permission sheet for \(sheet.app) (share: \(Self.list(sheet.share)); read: "
        + "\(Self.list(sheet.read))) within \(Self.seconds(seconds)). Likely mistake: the request was awaited before "
        + "the sheet was answered — start it with `async let asked: Void = …requestAuthorization(…)` (or the "
        + "completion-handler form), answer as the user (`try await pair.\(device).user.allowAll()`, `dontAllow()`, "
        + "`cancel()`, `choose(share:read:)`), then `try await asked`. The harness made the sheet fail to present, "
        + "so the app's call ended with HKError.unknownError"
    case .extensionRequestNotHandled(let device, let request, let seconds):
      "an app extension of \(request.app) asked for authorization on the \(device) "
        + "(share: \(Self.list(request.share)); read: \(Self.list(request.read))) and its app did not call "
        + "handleAuthorizationForExtension within \(Self.seconds(seconds)). Call it from the app "
        + "(`try await pair.\(device).use(app: \"\(request.app)\") { "
        + "try await HKHealthStore().handleAuthorizationForExtension() }` after "
        + "`pair.\(device).waitForExtensionRequest(app:)`), then answer its sheet. The harness presented the sheet and "
        + "made it fail to present, so the extension's call ended with HKError.unknownError"
    }
  }

  private static func list(_ types: [HKObjectType]) -> String {
    types.isEmpty ? "none" : types.map(\.identifier).joined(separator: ", ")
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
  }

  /// Maps a client error of an operation on `device`.
  static func from(_ error: any Error, device: HealthDeviceKind, operation: String) -> HealthPairTestingError {
    switch error {
    case let error as HealthPairTestingError: return error
    case ClientError.rejected(let rejection):
      return .deviceRefused(device: device, operation: operation, reason: rejection.message)
    case let error as ClientError: return .deviceUnreachable(device: device, reason: error.description)
    default: return .deviceUnreachable(device: device, reason: "\(error)")
    }
  }
}
