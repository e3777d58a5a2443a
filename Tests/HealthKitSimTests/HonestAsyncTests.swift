import Foundation
import HealthKitSim
import PairProcesses
import Testing

@testable import HealthPairTesting

#if canImport(Glibc)
  import Glibc
#endif

@Suite("HealthKitSim: async calls suspend, never block a pool thread")
struct HonestAsyncTests {
  /// More async saves than Swift's cooperative pool has threads await a phone whose daemon is stopped (SIGSTOP: it
  /// holds every reply). Each save suspends its task, so the test's own task still runs and an async save on the
  /// watch completes while every phone save is pending. Had a save blocked its thread until its answer, the pool
  /// would be full: the phone saves would fail at their 30 s deadline before the watch save could even start.
  @Test func asyncCallsAwaitingHeldRepliesLeaveThePoolFree() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      for device in [pair.phone, pair.watch] {
        try device.install(app: waterID, name: "Water", writeUsage: "Water logs what you drink.")
        try await device.authorize(waterID, share: [waterType])
      }
      let phone = try #require(pair.phone.pair.process(.phone))
      let calls = max(8, 2 * ProcessInfo.processInfo.activeProcessorCount + 2)
      let sent = Mailbox<Int>()
      let finished = Mailbox<Int>()
      phone.signal(SIGSTOP)
      var resumed = false
      defer { if !resumed { phone.signal(SIGCONT) } }
      try await pair.phone.use(app: waterID) {
        try await withThrowingTaskGroup(of: Void.self) { group in
          for i in 0..<calls {
            group.addTask {
              sent.post(i)
              try await HKHealthStore().save(water(Double(100 + i)))
              finished.post(i)
            }
          }
          for _ in 0..<calls { _ = try await sent.next(timeout: 20) }
          try await pair.watch.use(app: waterID) { try await HKHealthStore().save(water(5)) }
          #expect(finished.all.isEmpty, "the phone held every reply while the watch answered")
          resumed = true
          phone.signal(SIGCONT)
          try await group.waitForAll()
        }
      }
      #expect(finished.all.count == calls)
      let saved = try pair.phone.storedSamples(of: waterType).compactMap { $0 as? HKQuantitySample }
      #expect(saved.filter { $0.quantity.doubleValue(for: .literUnit(with: .milli)) >= 100 }.count == calls)
    }
  }
}
