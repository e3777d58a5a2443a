import Foundation
import HealthModel
import HealthPairClient

extension HKHealthStore {
  /// The containing app presents the permission sheet its app extensions asked for (called from the app
  /// delegate's `applicationShouldRequestHealthAuthorization(_:)`; behavior.md A23).
  ///
  /// The sheet lists what the waiting extension requests ask that is still undecided; when the user answers, this
  /// call and the extensions' `requestAuthorization` calls complete. With nothing waiting it completes at once.
  /// `success` says whether the prompt, if any, completed and was not cancelled — never whether access was granted.
  /// Unavailable on watchOS and to extensions themselves.
  public func handleAuthorizationForExtension(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    let api = "HKHealthStore.handleAuthorizationForExtension(completion:)"
    if let refusal = Self.extensionRefusal(api: api) {
      deliver({ throw refusal }) { _ in completion(false, refusal) }
      return
    }
    awaitSheet(api: api, { session in .handleAuthorizationForExtension(session.bundleID) }, completion: completion)
  }

  /// The async form of ``handleAuthorizationForExtension(completion:)``: returns once the user answered the sheet
  /// (or at once); throws when `success` would be false.
  /// - Throws: ``HKError`` (`errorUserCanceled` for a cancelled sheet); ``HealthKitSimError``.
  public func handleAuthorizationForExtension() async throws {
    let api = "HKHealthStore.handleAuthorizationForExtension()"
    if let refusal = Self.extensionRefusal(api: api) { throw refusal }
    try await awaitSheet(api: api) { session in .handleAuthorizationForExtension(session.bundleID) }
  }

  /// Why `api` cannot be called from the current target: from an app extension (the method is unavailable to
  /// extensions); nil otherwise.
  private static func extensionRefusal(api: String) -> HealthKitSimError? {
    guard let identifier = HealthKitSim.currentTarget?.extensionIdentifier else { return nil }
    return .misuse("\(api) is not available to extensions: \(identifier)'s containing app calls it")
  }
}
