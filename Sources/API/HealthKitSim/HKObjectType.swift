import Foundation
import HealthModel

/// A type of HealthKit data, identified by Apple's identifier string; an `NSObject` equal (`==`, `isEqual(_:)`)
/// and hashed by identifier, as on a device.
///
/// Immutable. Declared `@unchecked Sendable` because it is a non-final class (HealthKit's hierarchy needs
/// subclasses); every stored property of it and of its subclasses is a `let` of a Sendable type.
public class HKObjectType: NSObject, @unchecked Sendable {
  /// Apple's identifier string (`HKQuantityTypeIdentifierDietaryWater`).
  public let identifier: String
  /// The catalog type with this identifier, looked up once (every save and query of the type needs it), or nil.
  private let catalogType: SampleType?

  init(identifier: String) {
    self.identifier = identifier
    self.catalogType = SampleType.lookup(name: identifier).flatMap { $0.identifier == identifier ? $0 : nil }
    super.init()
  }

  /// Two types are equal when their identifiers are (whatever the subclass that was created).
  public override func isEqual(_ object: Any?) -> Bool {
    (object as? HKObjectType)?.identifier == identifier
  }
  /// The identifier's hash.
  public override var hash: Int { identifier.hashValue }
  /// The identifier, as HealthKit prints a type.
  public override var description: String { identifier }
  /// The class and identifier (`HKQuantityType(HKQuantityTypeIdentifierStepCount)`).
  public override var debugDescription: String { "\(type(of: self))(\(identifier))" }

  /// The quantity type with this identifier, or nil when HealthKitSim does not simulate it.
  public static func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
    guard let type = SampleType.lookup(name: identifier.rawValue), type.descriptor.isQuantity else { return nil }
    return HKQuantityType(identifier)
  }

  /// The category type with this identifier, or nil when HealthKitSim does not simulate it.
  public static func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
    guard let type = SampleType.lookup(name: identifier.rawValue), type.descriptor.categoryValues != nil else {
      return nil
    }
    return HKCategoryType(identifier)
  }

  /// The correlation type with this identifier, or nil when HealthKitSim does not know it.
  public static func correlationType(forIdentifier identifier: HKCorrelationTypeIdentifier) -> HKCorrelationType? {
    guard let type = SampleType.lookup(name: identifier.rawValue), type.descriptor.isCorrelation else { return nil }
    return HKCorrelationType(identifier)
  }

  /// The simulator's catalog entry for this type.
  /// - Throws: ``HealthKitSimError/unsupported(_:)`` when the identifier is not in HealthKitSim's catalog.
  package func simulatedType() throws(HealthKitSimError) -> SampleType {
    guard let type = catalogType else {
      let nearest = suggest(identifier, from: SampleType.catalog.map(\.identifier)).map { " (did you mean \($0)?)" }
      throw .unsupported(
        "\(identifier) is not a type HealthKitSim simulates\(nearest ?? ""): it simulates every quantity and "
          + "category type of the iOS 26 SDK, blood pressure and food; see docs/behavior.md section T")
    }
    return type
  }

  /// The HealthKitSim type object for a catalog type: an `HKQuantityType`, `HKCategoryType`, `HKCorrelationType`
  /// or one of the special object types (activity summaries are not sample types: nil). No sample has a
  /// characteristic type; one would get a plain `HKSampleType`.
  package static func make(_ type: SampleType) -> HKSampleType {
    switch type.descriptor.kind {
    case .quantity: HKQuantityType(HKQuantityTypeIdentifier(type.identifier))
    case .category: HKCategoryType(HKCategoryTypeIdentifier(type.identifier))
    case .correlation: HKCorrelationType(HKCorrelationTypeIdentifier(type.identifier))
    case .characteristic: HKSampleType(identifier: type.identifier)
    case .object(let kind):
      objectType(kind, identifier: type.identifier) as? HKSampleType ?? HKSampleType(identifier: type.identifier)
    }
  }
}

/// A type of sample data: a quantity, category or correlation type, or a workout, clinical, document… type.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public class HKSampleType: HKObjectType, @unchecked Sendable {}
