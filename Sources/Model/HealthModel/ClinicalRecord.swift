import FoundationEssentials

/// A health record a provider sent to the iPhone (`HKClinicalRecord` with its `HKFHIRResource`): a FHIR resource's
/// JSON, filed under one clinical type. Only the provider's download writes them — never an app.
package struct ClinicalRecord: Hashable, Sendable {
  /// The record's identifier.
  package var uuid: UUID
  /// The clinical type (`allergyRecord`, `labResultRecord`, …).
  package var type: SampleType
  /// When the record was received (start and end).
  package var date: Date
  /// The name the Health app shows (`displayName`).
  package var displayName: String
  /// The FHIR resource type (`Observation`, `AllergyIntolerance`, …; `HKFHIRResourceType`'s raw values).
  package var resourceType: String
  /// The resource's identifier at the provider.
  package var identifier: String
  /// The FHIR version, `major.minor.patch` (`4.0.1` for R4, `1.0.2` for DSTU2).
  package var fhirVersion: String
  /// Where the provider serves the resource.
  package var sourceURL: String?
  /// The resource's JSON.
  package var data: [UInt8]
  /// The provider (the source's name) on the device that received it.
  package var source: SampleSource

  /// Creates a record.
  package init(
    uuid: UUID, type: SampleType, date: Date, displayName: String, resourceType: String, identifier: String,
    fhirVersion: String, sourceURL: String?, data: [UInt8], source: SampleSource
  ) {
    self.uuid = uuid
    self.type = type
    self.date = date
    self.displayName = displayName
    self.resourceType = resourceType
    self.identifier = identifier
    self.fhirVersion = fhirVersion
    self.sourceURL = sourceURL
    self.data = data
    self.source = source
  }

  /// The end of the record: its date.
  package var end: Date { date }

  /// The largest resource a record holds, bytes.
  package static let maxData = 1 << 20

  /// A minimal FHIR resource of `resourceType` with `id` whose `code.text` is `displayName` (the JSON a scenario or
  /// the harness sends when no resource is given).
  package static func minimalResource(_ resourceType: String, id: String, displayName: String) -> [UInt8] {
    func quoted(_ text: String) -> String {
      let hex = Array("0123456789abcdef")
      var out = "\""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20:
          out += "\\u00" + String(hex[Int(scalar.value >> 4)]) + String(hex[Int(scalar.value & 15)])
        default: out.unicodeScalars.append(scalar)
        }
      }
      return out + "\""
    }
    let text =
      "{\"resourceType\":\(quoted(resourceType)),\"id\":\(quoted(id)),\"code\":{\"text\":\(quoted(displayName))}}"
    return Array(text.utf8)
  }

  /// The bundle identifier of every record's source: the Health app's, which downloads them.
  package static let downloaderBundleID = "com.apple.health.records"

  /// The FHIR resource types HealthKit files records under (`HKFHIRResourceType`).
  package static let resourceTypes = [
    "AllergyIntolerance", "Condition", "Coverage", "DiagnosticReport", "DocumentReference", "ExplanationOfBenefit",
    "Immunization", "MedicationDispense", "MedicationOrder", "MedicationRequest", "MedicationStatement",
    "Observation", "Procedure",
  ]

  /// Checks a record a journal, the link or a scenario holds: a clinical type, a known resource type, a version
  /// `major.minor.patch`, a display name and identifier of at most 1,024 bytes, and 1 byte to 1 MiB of data that
  /// opens as a JSON object.
  /// - Throws: a simulator error naming what is wrong.
  package func validate() throws(HealthError) {
    try checkObjectDates(date, date, "HKClinicalRecord")
    guard type.descriptor.objectKind == .clinicalRecord else {
      throw .simulator("\(type.identifier) is not a clinical type")
    }
    guard Self.resourceTypes.contains(resourceType) else {
      throw .simulator("unknown FHIR resource type '\(resourceType)' (\(Self.resourceTypes.joined(separator: ", ")))")
    }
    let parts = fhirVersion.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil }) else {
      throw .simulator("FHIR version '\(fhirVersion)' is not major.minor.patch")
    }
    guard !displayName.isEmpty, displayName.utf8.count <= 1024, identifier.utf8.count <= 1024,
      (sourceURL?.utf8.count ?? 0) <= 2048
    else { throw .simulator("a record's display name must be 1 to 1,024 bytes, its identifier at most 1,024") }
    guard !data.isEmpty, data.count <= Self.maxData else {
      throw .simulator("a record's FHIR data must be 1 byte to 1 MiB, not \(data.count)")
    }
    guard data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else {
      throw .simulator("a record's FHIR data must be a JSON object")
    }
  }
}
