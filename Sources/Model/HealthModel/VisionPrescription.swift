import FoundationEssentials

#if canImport(Glibc)
  import Glibc  // sin, cos and atan2 (pure functions; no system calls)
#elseif canImport(Musl)
  import Musl
#endif

/// `HKVisionPrescriptionType`: what a prescription corrects with (Apple's raw values).
package enum VisionPrescriptionKind: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `glasses` (1).
  case glasses = 1
  /// `contacts` (2).
  case contacts = 2

  /// The Swift case name.
  package var description: String { self == .glasses ? "glasses" : "contacts" }
}

/// `HKPrismBase`: the direction of a prism's base in rectangular form (Apple's raw values 0–4).
package enum PrismBase: Int, Hashable, Sendable, CaseIterable {
  /// `none` (0).
  case none = 0
  /// `up` (1).
  case up
  /// `down` (2).
  case down
  /// `in` (3): toward the nose.
  case inward
  /// `out` (4): away from the nose.
  case outward
}

/// `HKVisionEye` (Apple's raw values).
package enum VisionEye: Int, Hashable, Sendable, CaseIterable {
  /// `left` (1).
  case left = 1
  /// `right` (2).
  case right = 2
}

/// `HKVisionPrism`: a glasses lens's prism, in both of its forms — polar (amount in prism diopters, base angle in
/// degrees) and rectangular (vertical and horizontal components with their bases) — whichever it was made with.
package struct VisionPrism: Hashable, Sendable {
  /// The amount, prism diopters.
  package var amount: Double
  /// The base's angle, degrees.
  package var angle: Double
  /// The vertical component, prism diopters.
  package var verticalAmount: Double
  /// Up, down or none.
  package var verticalBase: PrismBase
  /// The horizontal component, prism diopters.
  package var horizontalAmount: Double
  /// In, out or none.
  package var horizontalBase: PrismBase
  /// The eye.
  package var eye: VisionEye

  /// Creates a prism from both forms.
  package init(
    amount: Double, angle: Double, verticalAmount: Double, verticalBase: PrismBase, horizontalAmount: Double,
    horizontalBase: PrismBase, eye: VisionEye
  ) {
    self.amount = amount
    self.angle = angle
    self.verticalAmount = verticalAmount
    self.verticalBase = verticalBase
    self.horizontalAmount = horizontalAmount
    self.horizontalBase = horizontalBase
    self.eye = eye
  }

  /// The prism of a polar amount and base angle: its components, with the base angle read as optometrists write it
  /// (90° up, 270° down; 0° toward the right eye's nose side, 180° toward the left eye's).
  package init(amount: Double, angle: Double, eye: VisionEye) {
    let radians = angle * .pi / 180
    let vertical = amount * sin(radians)
    let horizontal = amount * cos(radians)
    let towardNose = eye == .right ? horizontal > 0 : horizontal < 0
    self.init(
      amount: amount, angle: angle, verticalAmount: abs(vertical),
      verticalBase: abs(vertical) < 1e-9 ? .none : vertical > 0 ? .up : .down, horizontalAmount: abs(horizontal),
      horizontalBase: abs(horizontal) < 1e-9 ? .none : towardNose ? .inward : .outward, eye: eye)
  }

  /// The prism of rectangular components: its polar amount and base angle (the inverse of
  /// ``init(amount:angle:eye:)``).
  package init(
    verticalAmount: Double, verticalBase: PrismBase, horizontalAmount: Double, horizontalBase: PrismBase,
    eye: VisionEye
  ) {
    let vertical = verticalBase == .down ? -verticalAmount : verticalAmount
    let nasal = horizontalBase == .outward ? -horizontalAmount : horizontalAmount
    let horizontal = eye == .right ? nasal : -nasal
    var angle = atan2(vertical, horizontal) * 180 / .pi
    if angle < 0 { angle += 360 }
    self.init(
      amount: (vertical * vertical + horizontal * horizontal).squareRoot(), angle: angle,
      verticalAmount: verticalAmount, verticalBase: verticalBase, horizontalAmount: horizontalAmount,
      horizontalBase: horizontalBase, eye: eye)
  }

  /// Every amount and angle is finite, amounts not negative.
  var isValid: Bool {
    [amount, angle, verticalAmount, horizontalAmount].allSatisfy(\.isFinite)
      && [amount, verticalAmount, horizontalAmount].allSatisfy { $0 >= 0 }
  }
}

/// One eye's lens (`HKLensSpecification` and its glasses and contacts subclasses), in HealthKit's canonical units:
/// powers in diopters, the axis in degrees, distances and curves in millimetres. Glasses use the vertex distance,
/// prism and pupillary distances; contacts the base curve and diameter.
package struct LensSpecification: Hashable, Sendable {
  /// Sphere power, diopters.
  package var sphere: Double
  /// Cylinder power, diopters.
  package var cylinder: Double?
  /// Cylinder axis, degrees.
  package var axis: Double?
  /// Added power for near vision, diopters.
  package var addPower: Double?
  /// Glasses: distance from the eye to the lens, mm.
  package var vertexDistance: Double?
  /// Glasses: the prism.
  package var prism: VisionPrism?
  /// Glasses: pupillary distance for far vision, mm.
  package var farPupillaryDistance: Double?
  /// Glasses: pupillary distance for near vision, mm.
  package var nearPupillaryDistance: Double?
  /// Contacts: base curve, mm.
  package var baseCurve: Double?
  /// Contacts: diameter, mm.
  package var diameter: Double?

  /// Creates a lens.
  package init(
    sphere: Double, cylinder: Double? = nil, axis: Double? = nil, addPower: Double? = nil,
    vertexDistance: Double? = nil, prism: VisionPrism? = nil, farPupillaryDistance: Double? = nil,
    nearPupillaryDistance: Double? = nil, baseCurve: Double? = nil, diameter: Double? = nil
  ) {
    self.sphere = sphere
    self.cylinder = cylinder
    self.axis = axis
    self.addPower = addPower
    self.vertexDistance = vertexDistance
    self.prism = prism
    self.farPupillaryDistance = farPupillaryDistance
    self.nearPupillaryDistance = nearPupillaryDistance
    self.baseCurve = baseCurve
    self.diameter = diameter
  }

  /// The optional values, in the order the encodings write them.
  package var optionals: [Double?] {
    [cylinder, axis, addPower, vertexDistance, farPupillaryDistance, nearPupillaryDistance, baseCurve, diameter]
  }

  /// Every value finite, the prism valid.
  var isValid: Bool {
    sphere.isFinite && optionals.allSatisfy { $0?.isFinite ?? true } && (prism?.isValid ?? true)
  }
}

/// A vision prescription (`HKVisionPrescription`, iOS 16): glasses or contacts, issued on a date, expiring or not,
/// with each eye's lens when it was made as an `HKGlassesPrescription` or `HKContactsPrescription`. Saved by apps on
/// the iPhone; read only object by object (behavior.md V1–V5).
package struct VisionPrescription: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// Glasses or contacts.
  package var kind: VisionPrescriptionKind
  /// Made with eye specifications (`HKGlassesPrescription`, `HKContactsPrescription`), or the base class.
  package var specifiesLenses: Bool
  /// When it was issued (the sample's start).
  package var dateIssued: Date
  /// When it expires, if it does.
  package var expirationDate: Date?
  /// The right eye's lens.
  package var rightEye: LensSpecification?
  /// The left eye's lens.
  package var leftEye: LensSpecification?
  /// Contacts: the brand.
  package var brand: String?
  /// The sample's metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates a prescription.
  package init(
    uuid: UUID, kind: VisionPrescriptionKind, specifiesLenses: Bool, dateIssued: Date, expirationDate: Date?,
    rightEye: LensSpecification? = nil, leftEye: LensSpecification? = nil, brand: String? = nil,
    metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.kind = kind
    self.specifiesLenses = specifiesLenses
    self.dateIssued = dateIssued
    self.expirationDate = expirationDate
    self.rightEye = rightEye
    self.leftEye = leftEye
    self.brand = brand
    self.metadata = metadata
    self.source = source
  }

  /// The sample's end: the expiration, or the distant future for a prescription that does not expire.
  package var end: Date { expirationDate ?? .distantFuture }

  /// Checks the prescription as HealthKit does when it is made: finite dates, the expiration not before the issue
  /// date, a lens-specifying prescription with at least one eye, finite values, metadata a sample may carry.
  /// - Throws: `wouldTerminate` with Apple's message where Apple raises.
  package func validate() throws(HealthError) {
    try checkObjectDates(dateIssued, expirationDate ?? dateIssued, "HKVisionPrescription")
    if specifiesLenses, rightEye == nil, leftEye == nil {
      throw .invalidArgumentException("Requires atleast one sphere value for left or right eye")
    }
    guard [rightEye, leftEye].allSatisfy({ $0?.isValid ?? true }) else {
      throw .invalidArgumentException("Lens specification values must be finite (prism amounts not negative)")
    }
    if brand != nil, kind == .glasses {
      throw .healthKit(.errorInvalidArgument, "a glasses prescription has no brand (contacts have one)")
    }
    if let brand, brand.utf8.count > 1024 {
      throw .healthKit(.errorInvalidArgument, "the brand is \(brand.utf8.count) bytes long; at most 1024 are kept")
    }
    try metadata.checkValues()
  }
}
