import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient

extension HealthDevice {
  /// Awaits the moment the system would call `applicationShouldRequestHealthAuthorization(_:)`: an app extension of
  /// `app` asked for authorization and waits for the app to call `handleAuthorizationForExtension` (behavior.md
  /// A23). Returns what it asks for (its `outcome` is pending; no sheet is up yet).
  /// - Throws: ``HealthPairTestingError/timeout(waitingFor:seconds:)``.
  @discardableResult
  public func waitForExtensionRequest(app bundleIdentifier: String, timeout: Double? = nil)
    async throws(HealthPairTestingError) -> PermissionSheet
  {
    let what = "an extension request of \(bundleIdentifier) on the \(kind)"
    do {
      return try await waiter.wait(for: what, timeout: timeout ?? self.timeout) {
        try self.waitingExtensionRequest(of: bundleIdentifier)
      }
    } catch {
      throw .from(error, device: kind, operation: "waitForExtensionRequest")
    }
  }

  /// The blocking form of ``waitForExtensionRequest(app:timeout:)`` (XCTest, synchronous tests).
  /// - Throws: ``HealthPairTestingError/timeout(waitingFor:seconds:)``.
  @discardableResult
  public func waitForExtensionRequest(app bundleIdentifier: String, timeout: Double? = nil)
    throws(HealthPairTestingError) -> PermissionSheet
  {
    let what = "an extension request of \(bundleIdentifier) on the \(kind)"
    do {
      return try waiter.wait(for: what, timeout: timeout ?? self.timeout) {
        try self.waitingExtensionRequest(of: bundleIdentifier)
      }
    } catch {
      throw .from(error, device: kind, operation: "waitForExtensionRequest")
    }
  }

  /// The oldest extension request of `bundleID` waiting for its app, or nil to keep waiting.
  private func waitingExtensionRequest(of bundleID: String) throws -> PermissionSheet? {
    try client.dump().device.waitingExtensionRequests.first { $0.bundleID == bundleID }.map {
      PermissionSheet($0, outcome: .pending)
    }
  }
}
