import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// Health records: a provider's delivery to the iPhone, and what an app's queries of a clinical type see
/// (behavior.md section F).
extension RunContext {
  /// `<device>: the provider sends …`: a minimal FHIR resource of the type naming the record, received now; the
  /// step fails when the outcome is not the one written (success, or `fails [with "<text>"]`).
  mutating func providerSends(_ device: DeviceKind, _ spec: ClinicalRecordSpec, _ step: Step) throws {
    let uuid = rng.uuid()
    let id = uuid.uuidString.lowercased()
    let record = ClinicalRecord(
      uuid: uuid, type: spec.type, date: now, displayName: spec.displayName, resourceType: spec.resourceType,
      identifier: id, fhirVersion: "4.0.1", sourceURL: nil,
      data: ClinicalRecord.minimalResource(spec.resourceType, id: id, displayName: spec.displayName),
      source: SampleSource(
        bundleID: ClinicalRecord.downloaderBundleID, device: device,
        details: SourceDetails(name: spec.provider ?? "Sample Health System")))
    let c = client(device)
    try expectOutcome(
      attempt { () throws(ClientError) in try c.receiveClinicalRecords([record]) }, spec.failure, step,
      subject: "the delivery", success: "the record to arrive on the \(device)")
  }

  /// `<App> sees <n> <clinical type> records [of <FHIR type>] [query]`: the app's sample query of the type, with
  /// `predicateForClinicalRecords(withFHIRResourceType:)` for `of`.
  func checkSeesClinicalRecords(
    _ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, resourceType: String?, _ step: Step
  ) throws {
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort, filter: resourceType.map { .fhirResource($0, identifier: nil) })
      let c = client(device)
      let bundle = app(spec.app).bundleID
      let found = try queried(step, "\(spec.app)'s \(spec.type.name) query", on: device, expecting: expected) {
        () throws(ClientError) in try c.clinicalRecordQuery(bundle, query)
      }
      if found.count != expected {
        throw fail(
          step, "\(spec.app) sees \(expected) \(spec.type.name) records on the \(device)",
          "\(found.count): " + found.map { "\($0.displayName) (\($0.resourceType))" }.joined(separator: ", "))
      }
    }
  }
}
