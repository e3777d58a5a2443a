import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of vision prescriptions and per-object read choices, shared by the wire protocol, the journal
// and snapshots (docs/journal.md).
//
// prism         := amount f64 | angle f64 | verticalAmount f64 | verticalBase u8 | horizontalAmount f64 |
//                  horizontalBase u8 | eye u8
// lens          := sphere f64 | cylinder f64? | axis f64? | addPower f64? | vertexDistance f64? |
//                  farPupillaryDistance f64? | nearPupillaryDistance f64? | baseCurve f64? | diameter f64? | prism?
// prescription  := uuid | kind u8 | specifiesLenses bool | dateIssued | expirationDate date? | rightEye lens? |
//                  leftEye lens? | brand string? | metadata | source
// choices       := [uuid, on bool]   (in identifier order)
// prescriptions := u8 4 | [prescription, change u64] | [bundle string, choices]
//                  (a snapshot's trailing section after the objects section, written only when a prescription is
//                  stored; the choices are those of prescriptions, the assessments section holding the documents';
//                  absent: none)

/// The smallest encoded prescription: no expiration, lenses, brand or metadata; the shortest source.
package let minimumVisionPrescriptionSize = 16 + 1 + 1 + 8 + 1 + 1 + 1 + 1 + 4 + 5

extension BinaryWriter {
  /// A lens (layout above).
  mutating func lensSpecification(_ lens: LensSpecification) {
    f64(lens.sphere)
    for value in lens.optionals { optional(value) { $0.f64($1) } }
    optional(lens.prism) { w, prism in
      w.f64(prism.amount)
      w.f64(prism.angle)
      w.f64(prism.verticalAmount)
      w.u8(UInt8(prism.verticalBase.rawValue))
      w.f64(prism.horizontalAmount)
      w.u8(UInt8(prism.horizontalBase.rawValue))
      w.u8(UInt8(prism.eye.rawValue))
    }
  }

  /// A vision prescription (layout above).
  package mutating func visionPrescription(_ p: VisionPrescription) {
    uuid(p.uuid)
    u8(UInt8(p.kind.rawValue))
    bool(p.specifiesLenses)
    date(p.dateIssued)
    optional(p.expirationDate) { $0.date($1) }
    optional(p.rightEye) { $0.lensSpecification($1) }
    optional(p.leftEye) { $0.lensSpecification($1) }
    optional(p.brand) { $0.string($1) }
    metadata(p.metadata)
    source(p.source)
  }

  /// One app's per-object choices, in identifier order.
  mutating func objectChoices(_ choices: [UUID: Bool]) {
    array(choices.sorted { $0.key.uuidString < $1.key.uuidString }) { w, item in
      w.uuid(item.key)
      w.bool(item.value)
    }
  }

  /// A snapshot's trailing prescriptions section, when one is stored or a choice recorded (layout above).
  package mutating func prescriptionsSection(_ store: SpecialObjectStore) {
    guard !store.hasNoPrescriptions else { return }
    u8(4)
    entries(store.visionPrescriptions.ordered) { $0.visionPrescription($1) }
    objectChoicesList(store.objectReadChoices, of: store.visionPrescriptions.contains)
  }

  /// A shelf's entries in change order: each object (as `write` lays it out) and its change number.
  mutating func entries<Value>(_ entries: [WorkoutStore.Entry<Value>], _ write: (inout BinaryWriter, Value) -> Void) {
    array(entries) { w, entry in
      write(&w, entry.value)
      w.u64(entry.change)
    }
  }

  /// Each app's per-object choices for the objects `kept` selects, apps in name order (those with none left out).
  mutating func objectChoicesList(_ choices: [String: [UUID: Bool]], of kept: (UUID) -> Bool) {
    let listed = choices.compactMapValues { chosen in
      let mine = chosen.filter { kept($0.key) }
      return mine.isEmpty ? nil : mine
    }
    array(listed.sorted { $0.key < $1.key }) { w, item in
      w.string(item.key)
      w.objectChoices(item.value)
    }
  }
}

extension BinaryReader {
  /// Reads a lens (layout above).
  mutating func lensSpecification() throws(DecodeError) -> LensSpecification {
    let sphere = try f64()
    var values: [Double?] = []
    for _ in 0..<8 { values.append(try optional { r throws(DecodeError) in try r.f64() }) }
    let prism = try optional { r throws(DecodeError) -> VisionPrism in
      func base(_ r: inout BinaryReader) throws(DecodeError) -> PrismBase {
        let raw = try r.u8()
        guard let base = PrismBase(rawValue: Int(raw)) else { throw r.error("unknown prism base \(raw)") }
        return base
      }
      let amount = try r.f64()
      let angle = try r.f64()
      let vertical = try r.f64()
      let verticalBase = try base(&r)
      let horizontal = try r.f64()
      let horizontalBase = try base(&r)
      let rawEye = try r.u8()
      guard let eye = VisionEye(rawValue: Int(rawEye)) else { throw r.error("unknown eye \(rawEye)") }
      return VisionPrism(
        amount: amount, angle: angle, verticalAmount: vertical, verticalBase: verticalBase,
        horizontalAmount: horizontal, horizontalBase: horizontalBase, eye: eye)
    }
    return LensSpecification(
      sphere: sphere, cylinder: values[0], axis: values[1], addPower: values[2], vertexDistance: values[3],
      prism: prism, farPupillaryDistance: values[4], nearPupillaryDistance: values[5], baseCurve: values[6],
      diameter: values[7])
  }

  /// Reads a vision prescription: one ``VisionPrescription/validate()`` accepts, unless `validated` is false (an
  /// app's save, which the device checks).
  package mutating func visionPrescription(validated: Bool = true) throws(DecodeError) -> VisionPrescription {
    let start = offset
    let id = try uuid()
    let rawKind = try u8()
    guard let kind = VisionPrescriptionKind(rawValue: Int(rawKind)) else {
      throw error("unknown vision prescription type \(rawKind)")
    }
    let specifiesLenses = try bool()
    let issued = try finiteDate("prescription issue date")
    let expiration = try optional { r throws(DecodeError) in try r.finiteDate("prescription expiration date") }
    let right = try optional { r throws(DecodeError) in try r.lensSpecification() }
    let left = try optional { r throws(DecodeError) in try r.lensSpecification() }
    let brand = try optional { r throws(DecodeError) in try r.string(maxLength: 1024) }
    let prescription = VisionPrescription(
      uuid: id, kind: kind, specifiesLenses: specifiesLenses, dateIssued: issued, expirationDate: expiration,
      rightEye: right, leftEye: left, brand: brand, metadata: try metadata(finite: true), source: try source())
    guard validated else { return prescription }
    do { try prescription.validate() } catch {
      throw DecodeError(offset: reportBase + start, "vision prescription \(id) is not valid: \(error.message)")
    }
    return prescription
  }

  /// Reads one app's per-object choices.
  mutating func objectChoices() throws(DecodeError) -> [UUID: Bool] {
    let items = try array(minElementSize: 17) { r throws(DecodeError) in (try r.uuid(), try r.bool()) }
    var choices: [UUID: Bool] = [:]
    for (uuid, on) in items {
      guard choices.updateValue(on, forKey: uuid) == nil else { throw error("object \(uuid) chosen twice") }
    }
    return choices
  }

  /// Reads a snapshot's prescriptions section after its `4` into `store` (layout above).
  package mutating func prescriptionsSection(into store: inout SpecialObjectStore, changeCounter: UInt64)
    throws(DecodeError)
  {
    let prescriptions = try entries(minValueSize: minimumVisionPrescriptionSize) { r throws(DecodeError) in
      try r.visionPrescription()
    }
    let choices = try objectChoicesList()
    do {
      store = try SpecialObjectStore(
        restoring: store.electrocardiograms.ordered, audiograms: store.audiograms.ordered,
        statesOfMind: store.statesOfMind.ordered, clinicalRecords: store.clinicalRecords.ordered,
        visionPrescriptions: prescriptions, objectReadChoices: choices, changeCounter: changeCounter)
    } catch {
      throw self.error(error.message)
    }
  }
}

extension BinaryReader {
  /// Reads a shelf's entries (``BinaryWriter/entries(_:_:)``), each object at least `minValueSize` bytes.
  mutating func entries<Value>(
    minValueSize: Int, _ read: (inout BinaryReader) throws(DecodeError) -> Value
  ) throws(DecodeError) -> [WorkoutStore.Entry<Value>] {
    try array(minElementSize: minValueSize + 8) { r throws(DecodeError) in
      WorkoutStore.Entry(try read(&r), change: try r.u64())
    }
  }

  /// Reads each app's per-object choices (``BinaryWriter/objectChoicesList(_:of:)``).
  /// - Throws: ``DecodeError`` for an app listed twice.
  mutating func objectChoicesList() throws(DecodeError) -> [String: [UUID: Bool]] {
    let apps = try array(minElementSize: 8) { r throws(DecodeError) in
      (try r.string(maxLength: StoredLimits.identifier), try r.objectChoices())
    }
    var choices: [String: [UUID: Bool]] = [:]
    for (app, chosen) in apps {
      guard choices.updateValue(chosen, forKey: app) == nil else { throw error("choices of '\(app)' listed twice") }
    }
    return choices
  }
}

extension Fields {
  /// `[prescription]`.
  static let visionPrescriptions = RecordField<[VisionPrescription]>(
    write: { w, prescriptions in w.array(prescriptions) { $0.visionPrescription($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumVisionPrescriptionSize) { r throws(DecodeError) in
        try r.visionPrescription()
      }
    })
  /// `choices`.
  static let objectChoices = RecordField<[UUID: Bool]>(
    write: { w, choices in w.objectChoices(choices) }, read: { r throws(DecodeError) in try r.objectChoices() })
}
