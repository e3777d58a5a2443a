// Published-style vision prescription code (iOS 16): an optician's app saves the glasses it fitted, and a
// companion app asks to see the prescriptions the user picks, object by object.

import Foundation
import HealthKit

/// One eye's correction as an order form lists it.
public struct EyeCorrection: Sendable, Equatable {
  /// Sphere, diopters.
  public let sphere: Double
  /// Cylinder, diopters.
  public let cylinder: Double?
  /// Axis, degrees.
  public let axis: Double?

  /// A correction.
  public init(sphere: Double, cylinder: Double? = nil, axis: Double? = nil) {
    self.sphere = sphere
    self.cylinder = cylinder
    self.axis = axis
  }
}

/// Saves and reads vision prescriptions.
public struct EyeCare: Sendable {
  /// A store user.
  public init() {}

  /// Asks to save prescriptions (reading them is asked object by object).
  public func requestSaving() async throws {
    try await HKHealthStore().requestAuthorization(toShare: [HKObjectType.visionPrescriptionType()], read: [])
  }

  /// Saves a glasses prescription issued on `issued`, valid for two years.
  public func saveGlasses(right: EyeCorrection, left: EyeCorrection, issued: Date) async throws -> UUID {
    func lens(_ eye: EyeCorrection) -> HKGlassesLensSpecification {
      HKGlassesLensSpecification(
        sphere: HKQuantity(unit: .diopter(), doubleValue: eye.sphere),
        cylinder: eye.cylinder.map { HKQuantity(unit: .diopter(), doubleValue: $0) },
        axis: eye.axis.map { HKQuantity(unit: .degreeAngle(), doubleValue: $0) }, addPower: nil,
        vertexDistance: nil, prism: nil, farPupillaryDistance: nil, nearPupillaryDistance: nil)
    }
    let prescription = HKGlassesPrescription(
      rightEyeSpecification: lens(right), leftEyeSpecification: lens(left), dateIssued: issued,
      expirationDate: Calendar(identifier: .gregorian).date(byAdding: .year, value: 2, to: issued), device: nil,
      metadata: [HKMetadataKeyGlassesPrescriptionDescription: "Distance"])
    try await HKHealthStore().save(prescription)
    return prescription.uuid
  }

  /// Lets the user pick which prescriptions this app may read (the sheet shows every time).
  public func requestReading() async throws {
    try await HKHealthStore().requestPerObjectReadAuthorization(
      for: HKObjectType.visionPrescriptionType(), predicate: nil)
  }

  /// The glasses prescriptions this app may read, newest first: each eye's correction.
  public func glasses() async throws -> [(id: UUID, right: EyeCorrection?, left: EyeCorrection?)] {
    let found = try await HKSampleQueryDescriptor(
      predicates: [.visionPrescription()], sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)]
    ).result(for: HKHealthStore())
    func correction(_ lens: HKGlassesLensSpecification?) -> EyeCorrection? {
      lens.map {
        EyeCorrection(
          sphere: $0.sphere.doubleValue(for: .diopter()), cylinder: $0.cylinder?.doubleValue(for: .diopter()),
          axis: $0.axis?.doubleValue(for: .degreeAngle()))
      }
    }
    return found.compactMap { $0 as? HKGlassesPrescription }.map {
      ($0.uuid, correction($0.rightEye), correction($0.leftEye))
    }
  }
}
