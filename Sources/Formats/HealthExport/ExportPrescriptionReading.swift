import FoundationEssentials
import HealthModel

/// `VisionPrescription` elements: the prescription's kind and dates, its `RightEye` and `LeftEye` lenses (each
/// value with its unit), its `MetadataEntry`s; `Attachment`s are skipped and reported (behavior.md V6).
extension ExportReader {
  /// Reads the `VisionPrescription` the scanner is at into ``pendingPrescriptions``.
  ///
  /// - `type` names the kind: a value containing `glasses` or `contact` (any case; Apple's exact spelling is not
  ///   documented), or `1` / `2` (`HKVisionPrescriptionType`'s raw values); anything else is a located error.
  /// - `dateIssued` is required, `expirationDate` optional; `brand` is kept for contacts.
  /// - A lens's values are `sphere`, `cylinder`, `axis`, `add`, `vertex`, `prismAmount`, `prismAngle`, `farPD`,
  ///   `nearPD`, `baseCurve` and `diameter`, each in the unit its `…Unit` attribute names (any unit of the value's
  ///   dimension, converted to diopters, degrees, millimetres and prism diopters; none written reads as those).
  /// - The element has no source: prescriptions belong to the Health app on the iPhone. The identifier is
  ///   `_HealthPair.uuid`, else derived from the content (``ExportIdentity/prescription(_:)``).
  mutating func visionPrescription() throws(ExportError) {
    let location = scanner.tokenLocation
    guard let typeIndex = scanner.attribute("type") else {
      throw ExportError(.notAnExport, at: location, "a '<VisionPrescription>' without a 'type' attribute")
    }
    let typeText = try scanner.string(typeIndex)
    let lowered = typeText.lowercased()
    let kind: VisionPrescriptionKind
    if lowered.contains("glasses") || lowered == "1" {
      kind = .glasses
    } else if lowered.contains("contact") || lowered == "2" {
      kind = .contacts
    } else {
      throw ExportError(
        .value, at: scanner.valueLocation(typeIndex),
        "'\(typeText)' is not a vision prescription type (glasses or contacts)")
    }
    guard let issuedIndex = scanner.attribute("dateIssued") else {
      throw ExportError(.notAnExport, at: location, "a '<VisionPrescription>' without a 'dateIssued' attribute")
    }
    let issued = try date(issuedIndex)
    var expiration: Double?
    if let index = scanner.attribute("expirationDate") { expiration = try date(index) }
    var brand: String?
    if let index = scanner.attribute("brand") { brand = try scanner.string(index) }
    var metadata: Metadata = [:]
    var identifier: UUID?
    var metadataBytes = 0
    var right: LensSpecification?
    var left: LensSpecification?
    try forEachChild(of: "VisionPrescription", at: location) { r throws(ExportError) in
      if r.scanner.nameIs("MetadataEntry") {
        try r.metadataEntry(into: &metadata, identifier: &identifier, bytes: &metadataBytes)
      } else if r.scanner.nameIs("RightEye") {
        right = try r.lens(eye: .right)
        _ = try r.skipSubtree()
      } else if r.scanner.nameIs("LeftEye") {
        left = try r.lens(eye: .left)
        _ = try r.skipSubtree()
      } else {
        r.summary.skip(r.scanner.name, "in VisionPrescription")
        _ = try r.skipSubtree()
      }
    }
    var prescription = VisionPrescription(
      uuid: UUID(), kind: kind, specifiesLenses: right != nil || left != nil,
      dateIssued: Date(timeIntervalSinceReferenceDate: issued),
      expirationDate: expiration.map { Date(timeIntervalSinceReferenceDate: $0) }, rightEye: right, leftEye: left,
      brand: kind == .contacts ? brand : nil, metadata: metadata,
      source: mapping.source(name: "Health", version: nil, hardware: nil))
    prescription.uuid = identifier ?? ExportIdentity.prescription(prescription)
    do throws(HealthError) { try prescription.validate() } catch {
      throw ExportError(.invalidRecord, at: location, "a '<VisionPrescription>': \(error.message)")
    }
    summary.visionPrescriptions += 1
    pendingPrescriptions.append(prescription)
  }

  /// The `RightEye` or `LeftEye` the scanner is at (a prism's values are polar: its base angle in degrees).
  private mutating func lens(eye: VisionEye) throws(ExportError) -> LensSpecification {
    func value(_ name: StaticString, _ unitName: StaticString, _ target: HealthUnit, _ what: String)
      throws(ExportError) -> Double?
    {
      guard let index = scanner.attribute(name) else { return nil }
      return try quantity(index, unit: scanner.attribute(unitName), in: target, what: what)
    }
    let power = Self.diopters
    let at = scanner.tokenLocation
    guard let sphere = try value("sphere", "sphereUnit", power, "lens power") else {
      throw ExportError(.notAnExport, at: at, "a '<\(eye == .right ? "RightEye" : "LeftEye")>' without a 'sphere'")
    }
    var lens = LensSpecification(
      sphere: sphere, cylinder: try value("cylinder", "cylinderUnit", power, "lens power"),
      axis: try value("axis", "axisUnit", Self.degrees, "an angle"),
      addPower: try value("add", "addUnit", power, "lens power"),
      vertexDistance: try value("vertex", "vertexUnit", Self.millimeters, "a length"),
      farPupillaryDistance: try value("farPD", "farPDUnit", Self.millimeters, "a length"),
      nearPupillaryDistance: try value("nearPD", "nearPDUnit", Self.millimeters, "a length"),
      baseCurve: try value("baseCurve", "baseCurveUnit", Self.millimeters, "a length"),
      diameter: try value("diameter", "diameterUnit", Self.millimeters, "a length"))
    if let amount = try value("prismAmount", "prismAmountUnit", Self.prismDiopters, "a prism power") {
      let angle = try value("prismAngle", "prismAngleUnit", Self.degrees, "an angle") ?? 0
      lens.prism = VisionPrism(amount: amount, angle: angle, eye: eye)
    }
    return lens
  }

  /// Diopters, the unit lens powers are kept in.
  static var diopters: HealthUnit { try! HealthUnit.cached("D") }
  /// Degrees, the unit axes and prism angles are kept in.
  static var degrees: HealthUnit { try! HealthUnit.cached("deg") }
  /// Millimetres, the unit lens distances are kept in.
  static var millimeters: HealthUnit { try! HealthUnit.cached("mm") }
  /// Prism diopters, the unit prism amounts are kept in.
  static var prismDiopters: HealthUnit { try! HealthUnit.cached("pD") }
}
