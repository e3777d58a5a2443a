import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// Vision prescriptions: an app's save, its per-object read request and the user's object-by-object answer, and
/// what its sample queries of the type return (behavior.md section V).
extension RunContext {
  /// `<device>: <App> saves glasses|contacts prescription …`: its outcome is the app's last call.
  mutating func savePrescription(_ device: DeviceKind, _ name: String, _ spec: PrescriptionSpec) throws {
    func lens(_ spec: LensSpec?) -> LensSpecification? {
      spec.map { LensSpecification(sphere: $0.sphere, cylinder: $0.cylinder, axis: $0.axis) }
    }
    let prescription = VisionPrescription(
      uuid: rng.uuid(), kind: spec.kind, specifiesLenses: true,
      dateIssued: spec.issued.map { resolve($0, on: device) } ?? now,
      expirationDate: spec.expires.map { resolve($0, on: device) }, rightEye: lens(spec.right),
      leftEye: lens(spec.left), brand: spec.brand, source: SampleSource(bundleID: "", device: device))
    if let n = spec.name { names[n] = prescription.uuid }
    let bundle = app(name).bundleID
    let c = client(device)
    record(
      device, name, "save",
      try capture { () throws(ClientError) in try c.saveVisionPrescriptions(bundle, [prescription]) })
  }

  /// `<device>: <App> asks to read vision prescriptions [issued from <time>]`: pending while its sheet is up.
  mutating func requestObjects(_ device: DeviceKind, _ name: String, issuedFrom: TimeSpec?) throws {
    let range = issuedFrom.map { DateRange(start: resolve($0, on: device), end: nil, options: .strictStartDate) }
    let query = SampleQuery(
      type: SpecialObjectStore.visionPrescriptionType, range: range, sources: nil, limit: 0, sort: [], filter: nil)
    let request = try client(device).start(.requestPerObjectRead(declared(name, on: device).bundleID, query))
    try awaitSheet(device, name, request, api: "requestPerObjectReadAuthorization")
  }

  /// `user on <device>: turns on <name>… [for <App>]`: the named objects on, every other listed one off.
  mutating func answerObjects(_ device: DeviceKind, _ objects: [String], _ app: String?) throws {
    try answer(device, .objects(Set(objects.compactMap { names[$0] })), app)
  }

  /// `<App> sees <n> vision prescriptions [query]`: the app's sample query of the type.
  func checkSeesPrescriptions(_ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, _ step: Step) throws {
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort, filter: nil)
      let found = try queried(step, "\(spec.app)'s prescription query", on: device, expecting: expected) {
        () throws(ClientError) in
        try client(device).visionPrescriptionQuery(app(spec.app).bundleID, query)
      }
      if found.count != expected {
        let named = found.map { p in names.first { $0.value == p.uuid }?.key ?? "\(p.kind) \(formatDate(p.dateIssued))"
        }
        throw fail(
          step, "\(spec.app) sees \(expected) vision prescriptions on the \(device)",
          "\(found.count) prescription\(found.count == 1 ? "" : "s")"
            + (named.isEmpty ? "" : ": " + named.sorted().joined(separator: ", ")))
      }
    }
  }
}
