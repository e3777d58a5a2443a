import Foundation
import HealthEngine
import HealthKitSim
import HealthModel

/// A permission sheet, pending or past.
public struct PermissionSheet: Hashable, Sendable, CustomStringConvertible {
  /// How a sheet ended.
  public enum Outcome: String, Hashable, Sendable {
    /// Still waiting for the user.
    case pending
    /// The user answered (allowed, did not allow, or chose per type).
    case answered
    /// The user dismissed it.
    case cancelled
    /// It never appeared.
    case failedToPresent
    /// Withdrawn (the app was uninstalled or the daemon stopped).
    case withdrawn
    /// Dismissed because the user left the app.
    case dismissed
  }

  /// The sheet's identifier on its device.
  public var id: UInt64
  /// The requesting app.
  public var app: String
  /// The types whose share (write) permission the sheet lists.
  public var share: [HKObjectType]
  /// The types whose read permission the sheet lists.
  public var read: [HKObjectType]
  /// How it ended.
  public var outcome: Outcome
  /// A per-object read sheet's objects (`requestPerObjectReadAuthorization`), each with its own toggle, in date
  /// order; nil for a sheet of types. `read` then holds the objects' type.
  public var objects: [UUID]?
  /// Whether this is the Health Records sheet: it lists only clinical types, which HealthKit presents on their own
  /// sheet, before the sheet of a request's other types (docs/behavior.md A26).
  public var isHealthRecords: Bool

  init(_ prompt: Prompt, outcome: PromptOutcome) {
    id = prompt.id
    isHealthRecords = prompt.isHealthRecordsSheet
    app = prompt.bundleID
    objects = prompt.objects
    share = prompt.permissions.filter { $0.direction == .share }.map { HKObjectType.make($0.type) }
    read = prompt.permissions.filter { $0.direction == .read }.map { HKObjectType.make($0.type) }
    switch outcome {
    case .pending: self.outcome = .pending
    case .answered: self.outcome = .answered
    case .cancelled: self.outcome = .cancelled
    case .failedToPresent: self.outcome = .failedToPresent
    case .withdrawn: self.outcome = .withdrawn
    case .dismissed: self.outcome = .dismissed
    }
  }

  /// `sheet 3 for com.example.water: share […], read […] (pending)` (`Health Records sheet 3 …` for one), or
  /// `… read 2 … objects (pending)` for a per-object sheet.
  public var description: String {
    if let objects {
      return
        "sheet \(id) for \(app): read \(objects.count) \(read.first?.identifier ?? "") objects (\(outcome.rawValue))"
    }
    let kind = isHealthRecords ? "Health Records sheet" : "sheet"
    return
      "\(kind) \(id) for \(app): share \(share.map(\.identifier)), read \(read.map(\.identifier)) (\(outcome.rawValue))"
  }
}
