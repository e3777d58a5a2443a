import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient

extension HealthDevice {
  /// The user adds a medication in the iPhone's Health app (apps cannot: the type is read-only). It syncs to the
  /// watch; apps read it only once the user turns it on for them on a per-object sheet (behavior.md section Z).
  /// - Parameters:
  ///   - displayText: the name the Health app shows.
  ///   - concept: the concept's identifier (default: `displayText` lowercased): what dose events name.
  ///   - codings: codes in external terminologies (RxNorm: `HKClinicalCoding(system:version:code:)`).
  /// - Returns: the medication's concept identifier.
  /// - Throws: ``HealthPairTestingError``: on the watch, on a locked iPhone, for a concept added already or an
  ///   invalid medication.
  @discardableResult
  public func addMedication(
    _ displayText: String, concept: String? = nil, form: HKMedicationGeneralForm = .tablet, nickname: String? = nil,
    hasSchedule: Bool = false, isArchived: Bool = false, codings: [HKClinicalCoding] = []
  ) throws(HealthPairTestingError) -> HKHealthConceptIdentifier {
    let conceptID = concept ?? displayText.lowercased()
    try control("addMedication") { client in
      let medication = Medication(
        conceptID: conceptID, displayText: displayText, generalForm: form.rawValue,
        codings: codings.map { ClinicalCoding(system: $0.system, version: $0.version, code: $0.code) },
        nickname: nickname, isArchived: isArchived, hasSchedule: hasSchedule, added: try client.dump().device.now,
        source: SampleSource(bundleID: DeviceState.medicationsAppBundleID, device: .phone))
      try client.addMedications([medication])
    }
    return HKHealthConceptIdentifier(conceptID)
  }

  /// The user logs a dose of `medication` on this device (the iPhone's Health app or the watch's Medications app),
  /// at the device's time unless `date` is given; scheduled at `scheduledDate` when given, else as needed. It syncs
  /// to the other device; apps that may read the medication read it (behavior.md section Z).
  /// - Returns: the dose event's identifier.
  /// - Throws: ``HealthPairTestingError``: on a locked device, for a medication not on this device, or an invalid
  ///   event.
  @discardableResult
  public func logMedicationDose(
    _ medication: HKHealthConceptIdentifier, status: HKMedicationDoseEvent.LogStatus = .taken, date: Date? = nil,
    scheduledDate: Date? = nil, scheduledDose: Double? = nil, dose: Double? = nil, id: UUID = UUID()
  ) throws(HealthPairTestingError) -> UUID {
    try control("logMedicationDose") { client in
      let event = MedicationDoseEvent(
        uuid: id, conceptID: medication.underlying, date: try date ?? client.dump().device.now,
        status: DoseLogStatus(rawValue: status.rawValue) ?? .taken, scheduledDate: scheduledDate,
        scheduledDose: scheduledDose, dose: dose,
        source: SampleSource(bundleID: DeviceState.medicationsAppBundleID, device: kind.simulated))
      try client.logMedicationDoses([event])
    }
    return id
  }
}
