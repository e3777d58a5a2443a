import FoundationEssentials
import HealthModel

/// The Info.plist keys that govern an app's access to clinical records (behavior.md A24–A25).
package struct HealthRecordsInfo: Hashable, Sendable {
  /// The most identifiers `NSHealthRequiredReadAuthorizationTypeIdentifiers` may list here (HealthKit has 8
  /// clinical types; the rest of the room is for invalid entries a test wants refused).
  package static let maxRequiredTypes = 32

  /// `NSHealthClinicalHealthRecordsShareUsageDescription`: why the app reads clinical records; required to request
  /// read permission for any clinical type (empty or blank counts as missing).
  package var usageDescription: String?
  /// `NSHealthRequiredReadAuthorizationTypeIdentifiers`, as written in the Info.plist: the clinical types the app
  /// cannot work without. Empty, or at least three valid clinical type identifiers; anything else makes every
  /// authorization request terminate the app.
  package var requiredTypes: [String]

  /// Creates the keys (absent by default).
  package init(usageDescription: String? = nil, requiredTypes: [String] = []) {
    self.usageDescription = usageDescription
    self.requiredTypes = requiredTypes
  }

  /// True when neither key is present (the app record then codes as before these keys existed).
  package var isEmpty: Bool { usageDescription == nil && requiredTypes.isEmpty }

  /// Every clinical type, in catalog order.
  package static let clinicalTypes = SampleType.all.filter { $0.descriptor.objectKind == .clinicalRecord }

  /// The required types as types, once ``validate()`` has passed.
  package var requiredClinicalTypes: [SampleType] { requiredTypes.compactMap { SampleType.lookup(name: $0) } }

  /// HealthKit's check of `NSHealthRequiredReadAuthorizationTypeIdentifiers`, run by every authorization request:
  /// one or two entries, or an entry that is not a clinical type identifier, raise `NSInvalidArgumentException`.
  package func validate() throws(HealthError) {
    guard !requiredTypes.isEmpty else { return }
    if requiredTypes.count < 3 {
      throw .invalidArgumentException(
        "Apps that specify required read authorization types (NSHealthRequiredReadAuthorizationTypeIdentifiers) "
          + "must specify at least three clinical record types.")
    }
    let valid = Self.clinicalTypes.map(\.identifier)
    for entry in requiredTypes where !valid.contains(entry) {
      throw .invalidArgumentException(
        "\(entry) is not a valid required clinical record type. Must be one of: \(valid.joined(separator: ", "))")
    }
  }
}

/// The pending sheets' clinical bookkeeping (runtime only, as sheets are).
struct ClinicalSheets: Hashable, Sendable {
  /// The sheets whose request reads a clinical type: their answer checks the app's required types (A25).
  var readsClinical: Set<UInt64> = []
  /// A request's last sheet → the Health Records sheet presented before it (A26).
  var ahead: [UInt64: UInt64] = [:]

  /// Forgets a sheet that closed.
  mutating func finished(_ id: UInt64) {
    readsClinical.remove(id)
    ahead.removeValue(forKey: id)
  }
}

extension Prompt {
  /// Whether this is a Health Records sheet: a sheet of types that lists only clinical types (A26).
  package var isHealthRecordsSheet: Bool {
    objects == nil && !permissions.isEmpty
      && permissions.allSatisfy { $0.type.descriptor.objectKind == .clinicalRecord }
  }
}

/// `DeviceState`: what clinical records add to an authorization request (behavior.md A24–A26).
extension DeviceState {
  /// What a request that reads clinical types completes with once nothing is left to ask: success, or
  /// `errorRequiredAuthorizationDenied` (10) when any type the app requires is not authorized to read — the
  /// error does not say which.
  func requiredTypesResult(_ bundleID: String, readsClinical: Bool) -> AuthorizationCallResult {
    guard readsClinical, let app = apps[bundleID] else { return .succeeded }
    let missing = app.healthRecords.requiredClinicalTypes.contains { type in
      decisions[AuthorizationKey(bundleID, Permission(type, .read))] != .authorized
    }
    guard missing else { return .succeeded }
    return AuthorizationCallResult(
      success: false,
      error: .healthKit(
        .errorRequiredAuthorizationDenied,
        "The user has not authorized access to all of the app's required clinical record types"))
  }

  /// The Health Records sheet still pending before sheet `id`, if any (A26).
  package func sheetAhead(of id: UInt64) -> Prompt? {
    clinicalSheets.ahead[id].flatMap { ahead in prompts.first { $0.id == ahead } }
  }

  /// Whether a read set holds a clinical type.
  static func readsClinical(_ read: Set<SampleType>) -> Bool {
    read.contains { $0.descriptor.objectKind == .clinicalRecord }
  }
}
