import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// The medications family's operations (docs/protocol.md, opcodes 144–147): one named factory per request, each the
// request's row in `RequestTable+Objects.swift` with its fields labelled.

extension DeviceOperation where Value == Void {
  /// The user adds medications in the iPhone's Health app (the user's world; fails on the watch).
  package static func addMedications(_ medications: [Medication]) -> Self {
    Self(RequestTable.addMedications, medications)
  }
  /// The user logs medication doses on the device (the user's world).
  package static func logMedicationDoses(_ doses: [MedicationDoseEvent]) -> Self {
    Self(RequestTable.logMedicationDoses, doses)
  }
}

extension DeviceOperation where Value == [Medication] {
  /// `HKUserAnnotatedMedicationQuery`: the medications the app may read.
  package static func medicationQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.medicationQuery, bundleID, query)
  }
}

extension DeviceOperation where Value == [MedicationDoseEvent] {
  /// `HKSampleQuery` of medication dose events: the doses of the medications the app may read.
  package static func medicationDoseQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.medicationDoseQuery, bundleID, query)
  }
}

extension DeviceClient {
  /// The user adds medications (the iPhone only).
  package func addMedications(_ medications: [Medication]) throws(ClientError) {
    try perform(.addMedications(medications))
  }
  /// The user logs medication doses.
  package func logMedicationDoses(_ doses: [MedicationDoseEvent]) throws(ClientError) {
    try perform(.logMedicationDoses(doses))
  }
  /// The medications the app may read.
  package func medicationQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [Medication] {
    try perform(.medicationQuery(bundleID, query))
  }
  /// The dose events the app may read.
  package func medicationDoseQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError)
    -> [MedicationDoseEvent]
  {
    try perform(.medicationDoseQuery(bundleID, query))
  }
}
