#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  @Test func checkInsSavedOnThePhoneShowTheirRiskOnTheWatch() async throws {
    let now = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: now)) { pair in
      let app = "com.example.checkins"
      let checkIns = CheckIns()
      for device in [pair.phone, pair.watch] {
        try device.install(app: app, writeUsage: "Saves your check-ins.", readUsage: "Shows your risk.")
        try await device.use(app: app) {
          async let asked: Void = checkIns.requestAccess()
          try await device.user.allowAll()
          try await asked
        }
      }
      let scores = try await pair.phone.use(app: app) {
        [
          try await checkIns.saveAnxietyCheckIn([1, 1, 1, 0, 0, 0, 0], at: now - 7 * 86_400),
          try await checkIns.saveAnxietyCheckIn([2, 2, 2, 1, 1, 1, 1], at: now - 3_600),
          try await checkIns.saveMoodCheckIn([3, 3, 3, 3, 3, 1, 1, 1], ninth: nil, at: now - 600),
        ]
      }
      #expect(scores == [3, 10, 18])
      try await pair.waitForSync()
      let risks = try await pair.watch.use(app: app) {
        (try await checkIns.latestAnxietyRisk(), try await checkIns.latestMoodRisk())
      }
      #expect(risks.0 == .moderate)
      #expect(risks.1 == .moderatelySevere)
    }
  }
#endif
