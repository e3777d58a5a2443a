import Foundation
import HealthEngine
import HealthModel
import HealthPairClient

/// `HKMetadataKeyGlassesPrescriptionDescription` (iOS 16): what the glasses are for (a string).
public let HKMetadataKeyGlassesPrescriptionDescription = "HKMetadataKeyGlassesPrescriptionDescription"

/// A vision prescription (`HKVisionPrescription`, iOS 16): glasses or contacts, issued on `dateIssued` (the sample's
/// start), expiring at `expirationDate` (its end; the distant future when it does not expire). Saved by apps on the
/// iPhone only; read object by object (``HKHealthStore/requestPerObjectReadAuthorization(for:predicate:)``;
/// behavior.md V1–V5).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public class HKVisionPrescription: HKSample, @unchecked Sendable {
  /// Glasses or contacts.
  public let prescriptionType: HKVisionPrescriptionType
  /// When it was issued.
  public let dateIssued: Date
  /// When it expires, if it does.
  public let expirationDate: Date?
  let model: VisionPrescription

  /// A prescription without lens specifications, with a new UUID.
  public convenience init(
    type: HKVisionPrescriptionType, dateIssued: Date, expirationDate: Date?, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.init(
      kind: type, specifiesLenses: false, dateIssued: dateIssued, expirationDate: expirationDate, right: nil, left: nil,
      brand: nil, device: device, metadata: metadata)
  }

  init(
    kind: HKVisionPrescriptionType, specifiesLenses: Bool, dateIssued: Date, expirationDate: Date?,
    right: HKLensSpecification?, left: HKLensSpecification?, brand: String?, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    prescriptionType = kind
    self.dateIssued = dateIssued
    self.expirationDate = expirationDate
    let payload = MetadataPayload(metadata).adding(device)
    model = VisionPrescription(
      uuid: .fresh(), kind: VisionPrescriptionKind(rawValue: Int(kind.rawValue)) ?? .glasses,
      specifiesLenses: specifiesLenses, dateIssued: dateIssued, expirationDate: expirationDate,
      rightEye: right?.model, leftEye: left?.model, brand: brand,
      source: SampleSource(bundleID: "", device: .phone))
    unitProblem = right?.unitProblem ?? left?.unitProblem
    super.init(
      uuid: model.uuid, start: dateIssued, end: model.end, metadata: payload,
      origin: HKSample.unsavedOrigin(HKObjectType.visionPrescriptionType()))
  }

  /// The first lens quantity of a unit a device refuses, as the exception's reason.
  let unitProblem: String?

  /// The object for a stored prescription: an ``HKGlassesPrescription`` or ``HKContactsPrescription`` when it was
  /// saved with lens specifications.
  package static func make(_ stored: VisionPrescription) -> HKVisionPrescription {
    guard stored.specifiesLenses else { return HKVisionPrescription(stored: stored) }
    return stored.kind == .glasses ? HKGlassesPrescription(stored: stored) : HKContactsPrescription(stored: stored)
  }

  init(stored: VisionPrescription) {
    prescriptionType = HKVisionPrescriptionType(rawValue: UInt(stored.kind.rawValue)) ?? .glasses
    dateIssued = stored.dateIssued
    expirationDate = stored.expirationDate
    model = stored
    unitProblem = nil
    super.init(
      uuid: stored.uuid, start: stored.dateIssued, end: stored.end, metadata: .valid(stored.metadata),
      origin: SampleOrigin(
        type: HKObjectType.visionPrescriptionType(), unit: nil, source: HKSourceRevision(stored.source)))
  }

  override var valueDescription: String? { "\(prescriptionType)" }

  /// The prescription as the daemon's save takes it (the daemon sets the source).
  /// - Throws: ``HKSimulatedTermination`` for a lens quantity of another unit, or metadata HealthKit refuses.
  func prescriptionInput(api: String) throws -> VisionPrescription {
    if let unitProblem {
      throw HKSimulatedTermination(exceptionName: "NSInvalidArgumentException", reason: unitProblem, api: api)
    }
    var input = model
    input.uuid = uuid
    input.metadata = try metadataPayload.checked(api: api)
    return input
  }
}

/// A glasses prescription (`HKGlassesPrescription`, iOS 16) with each eye's lens.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKGlassesPrescription: HKVisionPrescription, @unchecked Sendable {
  /// The right eye's lens.
  public var rightEye: HKGlassesLensSpecification? { model.rightEye.map { HKGlassesLensSpecification($0) } }
  /// The left eye's lens.
  public var leftEye: HKGlassesLensSpecification? { model.leftEye.map { HKGlassesLensSpecification($0) } }

  /// A glasses prescription with a new UUID; one without either eye is refused when it is saved, where a device
  /// would have raised ("Requires atleast one sphere value for left or right eye").
  public init(
    rightEyeSpecification: HKGlassesLensSpecification?, leftEyeSpecification: HKGlassesLensSpecification?,
    dateIssued: Date, expirationDate: Date?, device: HKDevice?, metadata: [String: Any]?
  ) {
    super.init(
      kind: .glasses, specifiesLenses: true, dateIssued: dateIssued, expirationDate: expirationDate,
      right: rightEyeSpecification, left: leftEyeSpecification, brand: nil, device: device, metadata: metadata)
  }

  override init(stored: VisionPrescription) { super.init(stored: stored) }
}

/// A contact lens prescription (`HKContactsPrescription`, iOS 16) with each eye's lens and the brand.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKContactsPrescription: HKVisionPrescription, @unchecked Sendable {
  /// The right eye's lens.
  public var rightEye: HKContactsLensSpecification? { model.rightEye.map { HKContactsLensSpecification($0) } }
  /// The left eye's lens.
  public var leftEye: HKContactsLensSpecification? { model.leftEye.map { HKContactsLensSpecification($0) } }
  /// The lenses' brand.
  public var brand: String { model.brand ?? "" }

  /// A contacts prescription with a new UUID; one without either eye is refused when it is saved.
  public init(
    rightEyeSpecification: HKContactsLensSpecification?, leftEyeSpecification: HKContactsLensSpecification?,
    brand: String, dateIssued: Date, expirationDate: Date?, device: HKDevice?, metadata: [String: Any]?
  ) {
    super.init(
      kind: .contacts, specifiesLenses: true, dateIssued: dateIssued, expirationDate: expirationDate,
      right: rightEyeSpecification, left: leftEyeSpecification, brand: brand, device: device, metadata: metadata)
  }

  override init(stored: VisionPrescription) { super.init(stored: stored) }
}

extension HKSamplePredicate where Sample == HKVisionPrescription {
  /// Vision prescriptions matching `predicate` (nil: all; iOS 16).
  public static func visionPrescription(_ predicate: NSPredicate? = nil) -> Self {
    Self(HKObjectType.visionPrescriptionType(), predicate)
  }
}

extension HKHealthStore {
  /// Asks the user which objects of `objectType` (vision prescriptions) matching `predicate` the app may read.
  ///
  /// The iPhone presents its per-object sheet on every call, even when nothing matches, listing every stored
  /// prescription the predicate matches; the call returns once the user has answered. Each listed object the user
  /// turns on becomes readable, each turned off unreadable; objects saved later need a new request. The watch
  /// presents no sheet and fails with `errorHealthDataRestricted` (behavior.md V3–V5).
  /// - Throws: ``HKError`` (`errorUserCanceled` when cancelled); ``HKSimulatedTermination`` for a type that is not
  ///   read per object ("Per-Object authorization to read … is disallowed") or a missing
  ///   `NSHealthShareUsageDescription`; ``HealthKitSimError``; `CancellationError`.
  public func requestPerObjectReadAuthorization(for objectType: HKObjectType, predicate: NSPredicate?) async throws {
    try await awaitSheet(api: "HKHealthStore.requestPerObjectReadAuthorization(for:predicate:)") { session in
      try self.perObjectOperation(session, objectType, predicate)
    }
  }

  /// Completion-handler form of ``requestPerObjectReadAuthorization(for:predicate:)``: `completion` receives
  /// `success` and the error on a background queue once the user has answered.
  public func requestPerObjectReadAuthorization(
    for objectType: HKObjectType, predicate: NSPredicate?, completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    awaitSheet(
      api: "HKHealthStore.requestPerObjectReadAuthorization(for:predicate:completion:)",
      { session in try self.perObjectOperation(session, objectType, predicate) }, completion: completion)
  }

  private func perObjectOperation(_ session: Session, _ type: HKObjectType, _ predicate: NSPredicate?) throws
    -> DeviceOperation<AuthorizationCallResult>
  {
    let filter = try QueryFilter.decompose(predicate).get()
    return .requestPerObjectRead(session.bundleID, try filter.sampleQuery(of: type, limit: 0, sort: []))
  }
}
