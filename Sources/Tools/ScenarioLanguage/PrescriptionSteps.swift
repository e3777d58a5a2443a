import FoundationEssentials
import HealthEngine
import HealthModel

/// One eye's lens as `saves glasses|contacts prescription …` writes it.
package struct LensSpec: Hashable, Sendable {
  /// Sphere power, diopters.
  package var sphere: Double
  /// `cylinder <d>`.
  package var cylinder: Double?
  /// `axis <degrees>`.
  package var axis: Double?
}

/// A vision prescription to save, as `saves glasses|contacts prescription …` writes it.
package struct PrescriptionSpec: Hashable, Sendable {
  /// Glasses or contacts.
  package var kind: VisionPrescriptionKind
  /// `right sphere <d> …`.
  package var right: LensSpec?
  /// `left sphere <d> …`.
  package var left: LensSpec?
  /// `brand <word>` (contacts).
  package var brand: String?
  /// `issued <time>` (nil: now).
  package var issued: TimeSpec?
  /// `expires <time>` (nil: does not expire).
  package var expires: TimeSpec?
  /// `as <name>`: a sample name (`deletes <name>`, `turns on <name>`).
  package var name: String?
}

/// `saves glasses|contacts prescription …`, `asks to read vision prescriptions …`, the user's `turns on <name>…`
/// and `sees <n> vision prescriptions …` (docs/scenario-language.md; behavior.md section V).
extension ParseState {
  /// `saves glasses|contacts prescription` (read already), then `[right <lens>] [left <lens>] [brand <word>] [issued <time>]
  /// [expires <time>] [as <name>]`, a lens `sphere <d> [cylinder <d> axis <degrees>]`.
  mutating func parseSavePrescription(
    _ c: inout Cursor, device: DeviceKind, app: AppDeclaration, kind: VisionPrescriptionKind
  ) throws(Diagnostic) -> StepKind {
    var spec = PrescriptionSpec(kind: kind)
    while let t = c.peek {
      if c.take("right") {
        spec.right = try c.lens()
      } else if c.take("left") {
        spec.left = try c.lens()
      } else if kind == .contacts, c.take("brand") {
        spec.brand = try c.word("a brand").text
      } else if c.take("issued") {
        spec.issued = try c.time()
      } else if c.take("expires") {
        spec.expires = try c.time()
      } else if c.take("as") {
        spec.name = try newSampleName(&c)
      } else {
        throw c.error(
          .expected(
            "'right', 'left', \(kind == .contacts ? "'brand', " : "")'issued <time>', 'expires <time>' or 'as <name>'",
            found: t.text), at: t)
      }
    }
    return .savePrescription(device, app: app.name, spec)
  }

  /// `asks to read vision prescriptions [issued from <time>]`: `requestPerObjectReadAuthorization` with the issue
  /// dates as its predicate.
  func parseAskToRead(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    if c.take("to", "read", "cda", "documents") { return try parseAskToReadDocuments(&c, device: device, app: app) }
    if c.take("to", "read", "medications") {
      try c.finish()
      return .requestMedications(device, app: app.name)
    }
    try c.expect(
      "to", "read", "vision", "prescriptions",
      what: "'asks to read vision prescriptions', 'asks to read medications' or 'asks to read CDA documents'")
    var from: TimeSpec?
    if c.take("issued", "from") { from = try c.time() }
    try c.finish()
    return .requestObjects(device, app: app.name, issuedFrom: from)
  }

  /// `turns on <name>[, <name>]… [for <App>]` or `turns on nothing [for <App>]`: a per-object sheet's answer, the
  /// named objects on and every other listed one off.
  func parseTurnOn(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    var names: [String] = []
    if !c.take("nothing") {
      repeat {
        names.append(try c.sampleName(defined: false))
      } while c.peek.map {
        $0.text != "for" && sampleNames.contains($0.text)
      } == true
    }
    let app = c.take("for") ? try c.app(installedOn: [device]).name : nil
    try c.finish()
    return .answerObjects(device, names: names, app: app)
  }

  /// `sees <n> vision prescriptions [query]`, or `sees no vision prescriptions …` (`count` 0: the words are read
  /// already).
  func parseSeesPrescriptions(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 2)  // "vision prescriptions"
    var query = SampleQuerySpec(app: subject.app.name, type: SpecialObjectStore.visionPrescriptionType)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesPrescriptions(subject.devices, query, count)
  }
}

extension Cursor {
  /// `sphere <d> [cylinder <d> axis <degrees>]`.
  mutating func lens() throws(Diagnostic) -> LensSpec {
    try expect("sphere", what: "'sphere <diopters>'")
    var lens = LensSpec(sphere: try number())
    if take("cylinder") {
      lens.cylinder = try number()
      try expect("axis", what: "'axis <degrees>' after the cylinder")
      lens.axis = try number()
    }
    return lens
  }
}
