#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  @Test func aRecordingMadeOnTheWatchIsListedAndPlottedOnThePhone() async throws {
    let start = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: start)) { pair in
      try pair.phone.install(app: "com.example.rhythm", readUsage: "Shows your ECGs.")
      let fib = try pair.watch.recordElectrocardiogram(.atrialFibrillation, start: start - 600)
      try pair.watch.recordElectrocardiogram(.sinusRhythm, averageHeartRate: 58, start: start - 60)
      try await pair.waitForSync()
      try await pair.phone.use(app: "com.example.rhythm") {
        let rhythm = HeartRhythm()
        async let asked: Void = rhythm.requestAccess()
        try await pair.phone.user.allowAll()
        try await asked
        let strips = try await rhythm.strips(since: start - 3_600)
        #expect(strips.map(\.classification) == [.sinusRhythm, .atrialFibrillation])
        #expect(strips.first?.bpm == 58)
        #expect(strips.allSatisfy { $0.count == 15_360 })
        let volts = try await rhythm.volts(of: fib)
        #expect(volts.count == 15_360)
        #expect(volts.contains { $0 > 0.0005 }, "R peaks of several hundred microvolts")
      }
    }
  }

  @Test func aReaderTheUserDeniedListsNothing() async throws {
    let start = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: start)) { pair in
      try pair.watch.install(app: "com.example.rhythm", readUsage: "Shows your ECGs.")
      try pair.watch.recordElectrocardiogram(.sinusRhythm, start: start - 60)
      try await pair.watch.use(app: "com.example.rhythm") {
        let rhythm = HeartRhythm()
        async let asked: Void = rhythm.requestAccess()
        try await pair.watch.user.dontAllow()
        try await asked
        #expect(try await rhythm.strips(since: start - 3_600).isEmpty)
      }
    }
  }
#endif
