import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Medications and their dose events as iOS 26's Medications API reads them, against a real pair (behavior.md Z).
@Suite("Medications, against real daemons")
struct MedicationTests {
  static let tracker = "com.example.medtracker"
  static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
  static let rxNorm = "http://www.nlm.nih.gov/research/umls/rxnorm"

  @Test func theTypesAreReadPerMedicationAndHaveApplesIdentifiers() {
    let medications = HKObjectType.userAnnotatedMedicationType()
    #expect(medications.identifier == "HKDataTypeUserAnnotatedMedicationConcept")
    #expect(medications.requiresPerObjectAuthorization())
    let doses = HKObjectType.medicationDoseEventType()
    #expect(doses.identifier == HKMedicationDoseEventTypeIdentifierMedicationDoseEvent)
    #expect(!doses.requiresPerObjectAuthorization())
    #expect(HKMedicationDoseEvent.LogStatus.taken.rawValue == 4)
    #expect(HKMedicationDoseEvent.ScheduleType.schedule.rawValue == 2)
    #expect(HKMedicationGeneralForm.injection.rawValue == "injection")
  }

  @Test func theUserChoosesMedicationsAndTheAppReadsThemAndTheirDoses() async throws {
    try await withHealthPair(HealthPairOptions(clock: Self.t0)) { pair in
      let phone = pair.phone
      try phone.install(app: Self.tracker, readUsage: "Tracks your medications.")
      let lisinopril = try phone.addMedication(
        "Lisinopril 10 mg", concept: "rx-314076", nickname: "BP pill", hasSchedule: true,
        codings: [HKClinicalCoding(system: Self.rxNorm, version: nil, code: "314076")])
      let ibuprofen = try phone.addMedication("Ibuprofen 200 mg", form: .capsule)
      try phone.logMedicationDose(lisinopril, date: Self.t0 - 600, scheduledDate: Self.t0 - 600, scheduledDose: 1)
      try phone.logMedicationDose(ibuprofen, status: .taken, date: Self.t0 - 300)
      try phone.logMedicationDose(
        lisinopril, status: .skipped, date: Self.t0 - 60, scheduledDate: Self.t0.addingTimeInterval(86_400))
      try await phone.use(app: Self.tracker) {
        let store = HKHealthStore()
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store).isEmpty, "nothing is read yet")
        async let asked: Void = store.requestPerObjectReadAuthorization(
          for: .userAnnotatedMedicationType(), predicate: nil)
        let sheet = try await phone.user.waitForSheet(app: Self.tracker)
        #expect(sheet.objects == SimulatedUser.objects([lisinopril, ibuprofen]))
        try await phone.user.choose(medications: [lisinopril])
        try await asked
        let medications = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store)
        #expect(medications.count == 1)
        let first = try #require(medications.first)
        #expect(first.nickname == "BP pill" && first.hasSchedule && !first.isArchived)
        #expect(first.medication.identifier == lisinopril && first.medication.displayText == "Lisinopril 10 mg")
        #expect(first.medication.relatedCodings.map(\.code) == ["314076"])
        let doses = try await HKSampleQueryDescriptor(
          predicates: [.sample(type: .medicationDoseEventType())],
          sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store).compactMap { $0 as? HKMedicationDoseEvent }
        #expect(doses.map(\.logStatus) == [.taken, .skipped], "the ibuprofen dose is not readable")
        #expect(doses.first?.doseQuantity == 1 && doses.first?.scheduleType == .schedule)
        #expect(doses.first?.medicationConceptIdentifier == lisinopril)
        let taken = NSCompoundPredicate(andPredicateWithSubpredicates: [
          HKQuery.predicateForMedicationDoseEvent(medicationConceptIdentifier: lisinopril),
          HKQuery.predicateForMedicationDoseEvent(status: .taken),
        ])
        let onlyTaken = try await HKSampleQueryDescriptor(
          predicates: [.sample(type: .medicationDoseEventType(), predicate: taken)], sortDescriptors: []
        ).result(for: store)
        #expect(onlyTaken.count == 1)
        let archived = NSPredicate(format: "%K == YES", HKUserAnnotatedMedicationPredicateKeyPathIsArchived)
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor(predicate: archived).result(for: store).isEmpty)
        let active = NSPredicate(format: "%K == NO", HKUserAnnotatedMedicationPredicateKeyPathIsArchived)
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor(predicate: active).result(for: store).count == 1)
        let unscheduled = HKQuery.predicateForUserAnnotatedMedications(hasSchedule: false)
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor(predicate: unscheduled).result(for: store).isEmpty)
      }
      // The watch gets the medications and logs a dose the iPhone then sees.
      try await pair.waitForSync()
      let fromWatch = try pair.watch.logMedicationDose(lisinopril, status: .taken)
      try await pair.waitForSync()
      try await phone.use(app: Self.tracker) {
        let doses = try await HKSampleQueryDescriptor(
          predicates: [.sample(type: .medicationDoseEventType())], sortDescriptors: []
        ).result(for: HKHealthStore())
        #expect(doses.contains { $0.uuid == fromWatch })
      }
    }
  }

  @Test func requestingMedicationsAsATypeWouldTerminateAndAppsCannotWriteThem() async throws {
    try await withHealthPair(HealthPairOptions(clock: Self.t0)) { pair in
      let phone = pair.phone
      try phone.install(app: Self.tracker, readUsage: "Tracks your medications.")
      try await phone.use(app: Self.tracker) {
        await #expect(throws: HKSimulatedTermination.self) {
          try await HKHealthStore().requestAuthorization(toShare: [], read: [.userAnnotatedMedicationType()])
        }
        await #expect(throws: HKSimulatedTermination.self) {
          try await HKHealthStore().requestPerObjectReadAuthorization(for: .medicationDoseEventType(), predicate: nil)
        }
      }
      #expect(throws: HealthPairTestingError.self) { try pair.watch.addMedication("Metformin") }
    }
  }
}
