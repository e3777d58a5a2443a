#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  @Test func aCompanionAppReadsOnlyThePrescriptionTheUserPicks() async throws {
    let now = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: now)) { pair in
      try pair.phone.install(app: "com.example.optician", writeUsage: "Saves your prescriptions.")
      try pair.phone.install(app: "com.example.frames", readUsage: "Orders your glasses.")
      let care = EyeCare()
      let saved = try await pair.phone.use(app: "com.example.optician") {
        async let asked: Void = care.requestSaving()
        try await pair.phone.user.allowAll()
        try await asked
        let old = try await care.saveGlasses(
          right: EyeCorrection(sphere: -1.5), left: EyeCorrection(sphere: -1.25), issued: now - 400 * 86_400)
        let new = try await care.saveGlasses(
          right: EyeCorrection(sphere: -1.75, cylinder: -0.5, axis: 80), left: EyeCorrection(sphere: -1.5),
          issued: now - 86_400)
        #expect(try await care.glasses().count == 2, "the saving app reads its own")
        return [old, new]
      }
      try await pair.phone.use(app: "com.example.frames") {
        #expect(try await care.glasses().isEmpty)
        async let asked: Void = care.requestReading()
        let sheet = try await pair.phone.user.waitForSheet(app: "com.example.frames")
        #expect(sheet.objects == saved)
        try await pair.phone.user.choose(objects: [saved[1]])
        try await asked
        let readable = try await care.glasses()
        #expect(readable.map(\.id) == [saved[1]])
        #expect(readable.first?.right == EyeCorrection(sphere: -1.75, cylinder: -0.5, axis: 80))
      }
    }
  }
#endif
