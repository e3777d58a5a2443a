#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  @Test func theAppListsOnlyTheMedicationsTheUserPicksAndTheirTakenDoses() async throws {
    let now = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: now)) { pair in
      try pair.phone.install(app: "com.example.medlog", readUsage: "Shows your doses.")
      let levo = try pair.phone.addMedication("Levothyroxine 50 mcg", nickname: "Thyroid", hasSchedule: true)
      let ibu = try pair.phone.addMedication("Ibuprofen 200 mg", form: .capsule)
      try pair.phone.logMedicationDose(levo, date: now - 7_200, scheduledDate: now - 7_200)
      try pair.phone.logMedicationDose(levo, status: .skipped, date: now - 3_600, scheduledDate: now - 3_600)
      try pair.phone.logMedicationDose(ibu, date: now - 1_800)
      let log = MedicationLog()
      try await pair.phone.use(app: "com.example.medlog") {
        #expect(try await log.activeMedications().isEmpty, "nothing is readable before the user picks")
        async let asked: Void = log.requestAccess()
        let sheet = try await pair.phone.user.waitForSheet(app: "com.example.medlog")
        #expect(sheet.objects == SimulatedUser.objects([levo, ibu]))
        try await pair.phone.user.choose(medications: [levo])
        try await asked
        let rows = try await log.activeMedications()
        #expect(rows.map(\.concept) == [levo] && rows.map(\.title) == ["Thyroid"] && rows.allSatisfy(\.scheduled))
        let taken = try await log.takenDoses(of: levo, since: now - 86_400)
        #expect(taken.map(\.logStatus) == [.taken])
        #expect(taken.first?.scheduleType == .schedule && taken.first?.doseQuantity == 1)
        #expect(try await log.takenDoses(of: ibu, since: now - 86_400).isEmpty, "ibuprofen was not picked")
      }
    }
  }
#endif
