import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient

extension HealthDevice {
  /// A provider's health record arrives on the iPhone, as the Health app downloads it (apps never write them): a
  /// FHIR resource of `resourceType` filed under `type`, named `displayName`, from `provider` (the record's source
  /// name), received at the device's time unless `date` is given. `json` is the resource (a JSON object; by default a
  /// minimal one of that type naming the display name). The watch keeps no records (behavior.md F1).
  /// - Returns: the record's identifier.
  /// - Throws: ``HealthPairTestingError``: on the watch, or for an invalid record (an unknown resource type, a
  ///   version that is not `major.minor.patch`, data that is not a JSON object or over 1 MiB).
  @discardableResult
  public func receiveClinicalRecord(
    _ type: HKClinicalTypeIdentifier, displayName: String, resourceType: HKFHIRResourceType,
    provider: String = "Sample Health System", fhirVersion: String = "4.0.1", identifier: String? = nil,
    json: Data? = nil, sourceURL: URL? = nil, date: Date? = nil, id: UUID = UUID()
  ) throws(HealthPairTestingError) -> UUID {
    let record = try control("receiveClinicalRecord") { client -> ClinicalRecord in
      let clinical = try HKClinicalType(type).simulatedType()
      let resourceID = identifier ?? id.uuidString.lowercased()
      let body =
        json.map(Array.init)
        ?? ClinicalRecord.minimalResource(resourceType.rawValue, id: resourceID, displayName: displayName)
      return ClinicalRecord(
        uuid: id, type: clinical, date: try date ?? client.dump().device.now, displayName: displayName,
        resourceType: resourceType.rawValue, identifier: resourceID, fhirVersion: fhirVersion,
        sourceURL: sourceURL?.absoluteString, data: body,
        source: SampleSource(
          bundleID: ClinicalRecord.downloaderBundleID, device: kind.simulated, details: SourceDetails(name: provider)))
    }
    try control("receiveClinicalRecord") { try $0.receiveClinicalRecords([record]) }
    return id
  }
}
