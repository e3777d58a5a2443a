import Foundation
import HealthModel

/// What a vision prescription corrects with (`HKVisionPrescriptionType`, iOS 16; Apple's raw values).
public enum HKVisionPrescriptionType: UInt, Sendable {
  /// Glasses.
  case glasses = 1
  /// Contact lenses.
  case contacts = 2
}

/// The direction of a prism's base in rectangular form (`HKPrismBase`, iOS 16; Apple's raw values).
public enum HKPrismBase: Int, Sendable {
  /// No base.
  case none = 0
  /// Base up.
  case up = 1
  /// Base down.
  case down = 2
  /// Base in: toward the nose.
  case `in` = 3
  /// Base out: away from the nose.
  case out = 4
}

/// An eye (`HKVisionEye`, iOS 16; Apple's raw values).
public enum HKVisionEye: Int, Sendable {
  /// The left eye.
  case left = 1
  /// The right eye.
  case right = 2
}

/// Reads quantities of lenses and prisms in HealthKit's canonical units, noting the first one of another unit: a
/// device raises when the object is made, HealthKitSim when it is saved (``HKVisionPrescription``).
struct LensUnits {
  /// The first quantity of a wrong unit, as the exception's reason.
  private(set) var problem: String?

  /// `quantity` in `unit`, or NaN (and the problem noted) when it is of another dimension.
  mutating func value(_ quantity: HKQuantity, _ unit: HKUnit, _ what: String) -> Double {
    guard quantity.is(compatibleWith: unit) else {
      if problem == nil { problem = "\(what) must be compatible with \(unit.unitString) (was \(quantity))" }
      return .nan
    }
    return quantity.doubleValue(for: unit)
  }

  /// ``value(_:_:_:)`` of an optional quantity.
  mutating func value(_ quantity: HKQuantity?, _ unit: HKUnit, _ what: String) -> Double? {
    quantity.map { value($0, unit, what) }
  }

  /// Lens powers.
  static let power = HKUnit.diopter()
  /// Axes and prism angles.
  static let degrees = HKUnit.degreeAngle()
  /// Distances, curves and diameters.
  static let millimeters = HKUnit.meterUnit(with: .milli)
  /// Prism amounts.
  static let prismPower = HKUnit.prismDiopter()
}

/// A prism of a glasses lens (`HKVisionPrism`, iOS 16), made in polar or rectangular form; both forms are readable.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKVisionPrism: NSObject, @unchecked Sendable {
  let model: VisionPrism
  let unitProblem: String?

  /// The amount, prism diopters (polar).
  public var amount: HKQuantity { HKQuantity(unit: LensUnits.prismPower, doubleValue: model.amount) }
  /// The base's direction, degrees (polar).
  public var angle: HKQuantity { HKQuantity(unit: LensUnits.degrees, doubleValue: model.angle) }
  /// The vertical component, prism diopters (rectangular).
  public var verticalAmount: HKQuantity { HKQuantity(unit: LensUnits.prismPower, doubleValue: model.verticalAmount) }
  /// The horizontal component, prism diopters (rectangular).
  public var horizontalAmount: HKQuantity {
    HKQuantity(unit: LensUnits.prismPower, doubleValue: model.horizontalAmount)
  }
  /// Up, down or none (rectangular).
  public var verticalBase: HKPrismBase { HKPrismBase(rawValue: model.verticalBase.rawValue) ?? .none }
  /// In, out or none (rectangular).
  public var horizontalBase: HKPrismBase { HKPrismBase(rawValue: model.horizontalBase.rawValue) ?? .none }
  /// The eye.
  public var eye: HKVisionEye { HKVisionEye(rawValue: model.eye.rawValue) ?? .right }

  /// A prism of `amount` prism diopters with its base at `angle` (90° up, 270° down, 0° toward the right eye's nose
  /// side). Quantities of other units are refused when the prescription is saved.
  public init(amount: HKQuantity, angle: HKQuantity, eye: HKVisionEye) {
    var units = LensUnits()
    model = VisionPrism(
      amount: units.value(amount, LensUnits.prismPower, "amount"),
      angle: units.value(angle, LensUnits.degrees, "angle"),
      eye: VisionEye(rawValue: eye.rawValue) ?? .right)
    unitProblem = units.problem
    super.init()
  }

  /// A prism of vertical and horizontal components with their bases.
  public init(
    verticalAmount: HKQuantity, verticalBase: HKPrismBase, horizontalAmount: HKQuantity, horizontalBase: HKPrismBase,
    eye: HKVisionEye
  ) {
    var units = LensUnits()
    model = VisionPrism(
      verticalAmount: units.value(verticalAmount, LensUnits.prismPower, "verticalAmount"),
      verticalBase: PrismBase(rawValue: verticalBase.rawValue) ?? .none,
      horizontalAmount: units.value(horizontalAmount, LensUnits.prismPower, "horizontalAmount"),
      horizontalBase: PrismBase(rawValue: horizontalBase.rawValue) ?? .none,
      eye: VisionEye(rawValue: eye.rawValue) ?? .right)
    unitProblem = units.problem
    super.init()
  }

  init(_ model: VisionPrism) {
    self.model = model
    unitProblem = nil
    super.init()
  }

  /// Equal when every value is.
  public override func isEqual(_ object: Any?) -> Bool { (object as? HKVisionPrism)?.model == model }
  /// Hashes the values.
  public override var hash: Int { model.hashValue }
}

/// One eye's lens (`HKLensSpecification`, iOS 16): sphere power and the optional cylinder, axis and added power.
/// Made through its subclasses ``HKGlassesLensSpecification`` and ``HKContactsLensSpecification``.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public class HKLensSpecification: NSObject, @unchecked Sendable {
  let model: LensSpecification
  let unitProblem: String?

  /// Sphere power, diopters.
  public var sphere: HKQuantity { HKQuantity(unit: LensUnits.power, doubleValue: model.sphere) }
  /// Cylinder power, diopters.
  public var cylinder: HKQuantity? { model.cylinder.map { HKQuantity(unit: LensUnits.power, doubleValue: $0) } }
  /// Cylinder axis, degrees.
  public var axis: HKQuantity? { model.axis.map { HKQuantity(unit: LensUnits.degrees, doubleValue: $0) } }
  /// Added power for near vision, diopters.
  public var addPower: HKQuantity? { model.addPower.map { HKQuantity(unit: LensUnits.power, doubleValue: $0) } }

  init(_ model: LensSpecification, unitProblem: String? = nil) {
    self.model = model
    self.unitProblem = unitProblem
    super.init()
  }

  /// `value` in millimetres.
  static func millimeters(_ value: Double?) -> HKQuantity? {
    value.map { HKQuantity(unit: LensUnits.millimeters, doubleValue: $0) }
  }

  /// Equal when of the same class and every value is.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKLensSpecification else { return false }
    return type(of: other) == type(of: self) && other.model == model
  }
  /// Hashes the values.
  public override var hash: Int { model.hashValue }
}

/// A glasses lens (`HKGlassesLensSpecification`, iOS 16): the lens with its vertex distance, prism and pupillary
/// distances.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKGlassesLensSpecification: HKLensSpecification, @unchecked Sendable {
  /// Distance from the eye to the lens, mm.
  public var vertexDistance: HKQuantity? { Self.millimeters(model.vertexDistance) }
  /// The prism.
  public var prism: HKVisionPrism? { model.prism.map(HKVisionPrism.init) }
  /// Pupillary distance for far vision, mm.
  public var farPupillaryDistance: HKQuantity? { Self.millimeters(model.farPupillaryDistance) }
  /// Pupillary distance for near vision, mm.
  public var nearPupillaryDistance: HKQuantity? { Self.millimeters(model.nearPupillaryDistance) }

  /// A glasses lens. Quantities of other units than a device accepts are refused when the prescription is saved.
  public init(
    sphere: HKQuantity, cylinder: HKQuantity?, axis: HKQuantity?, addPower: HKQuantity?, vertexDistance: HKQuantity?,
    prism: HKVisionPrism?, farPupillaryDistance: HKQuantity?, nearPupillaryDistance: HKQuantity?
  ) {
    var units = LensUnits()
    let model = LensSpecification(
      sphere: units.value(sphere, LensUnits.power, "sphere"),
      cylinder: units.value(cylinder, LensUnits.power, "cylinder"),
      axis: units.value(axis, LensUnits.degrees, "axis"), addPower: units.value(addPower, LensUnits.power, "addPower"),
      vertexDistance: units.value(vertexDistance, LensUnits.millimeters, "vertexDistance"), prism: prism?.model,
      farPupillaryDistance: units.value(farPupillaryDistance, LensUnits.millimeters, "farPupillaryDistance"),
      nearPupillaryDistance: units.value(nearPupillaryDistance, LensUnits.millimeters, "nearPupillaryDistance"))
    super.init(model, unitProblem: units.problem ?? prism?.unitProblem)
  }

  override init(_ model: LensSpecification, unitProblem: String? = nil) { super.init(model, unitProblem: unitProblem) }
}

/// A contact lens (`HKContactsLensSpecification`, iOS 16): the lens with its base curve and diameter.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKContactsLensSpecification: HKLensSpecification, @unchecked Sendable {
  /// The base curve, mm.
  public var baseCurve: HKQuantity? { Self.millimeters(model.baseCurve) }
  /// The diameter, mm.
  public var diameter: HKQuantity? { Self.millimeters(model.diameter) }

  /// A contact lens. Quantities of other units than a device accepts are refused when the prescription is saved.
  public init(
    sphere: HKQuantity, cylinder: HKQuantity?, axis: HKQuantity?, addPower: HKQuantity?, baseCurve: HKQuantity?,
    diameter: HKQuantity?
  ) {
    var units = LensUnits()
    let model = LensSpecification(
      sphere: units.value(sphere, LensUnits.power, "sphere"),
      cylinder: units.value(cylinder, LensUnits.power, "cylinder"),
      axis: units.value(axis, LensUnits.degrees, "axis"), addPower: units.value(addPower, LensUnits.power, "addPower"),
      baseCurve: units.value(baseCurve, LensUnits.millimeters, "baseCurve"),
      diameter: units.value(diameter, LensUnits.millimeters, "diameter"))
    super.init(model, unitProblem: units.problem)
  }

  override init(_ model: LensSpecification, unitProblem: String? = nil) { super.init(model, unitProblem: unitProblem) }
}
