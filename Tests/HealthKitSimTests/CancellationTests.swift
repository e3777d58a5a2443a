import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// A cancelled store call reports what happened: cancelled before its request is sent, it throws
/// `CancellationError` and nothing happened; once sent, it completes and reports the real outcome.
@Suite("Cancelled saves and deletes report their real outcome, against real daemons")
struct CancellationTests {
  @Test func aSaveCancelledBeforeItStartsThrowsAndSavesNothing() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      let sample = water(250)
      let result = await pair.phone.use(app: waterID) {
        await Task {
          withUnsafeCurrentTask { $0?.cancel() }
          try await HKHealthStore().save(sample)
        }.result
      }
      #expect(throws: CancellationError.self) { try result.get() }
      #expect(try pair.phone.storedSamples().isEmpty, "a save that reported cancellation must not have happened")
    }
  }

  @Test func aDeleteCancelledBeforeItStartsThrowsAndDeletesNothing() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      let sample = water(250)
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(sample) }
      let result = await pair.phone.use(app: waterID) {
        await Task {
          withUnsafeCurrentTask { $0?.cancel() }
          try await HKHealthStore().delete(sample)
        }.result
      }
      #expect(throws: CancellationError.self) { try result.get() }
      #expect(try pair.phone.storedSamples().map(\.uuid) == [sample.uuid], "the delete did not happen")
    }
  }

  @Test func aSaveCancelledWhileRunningReportsWhetherItHappened() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      var reportedSaved: Set<UUID> = []
      for _ in 0..<20 {
        let sample = water(250)
        let result = await pair.phone.use(app: waterID) {
          let task = Task { try await HKHealthStore().save(sample) }
          task.cancel()
          return await task.result
        }
        switch result {
        case .success: reportedSaved.insert(sample.uuid)
        case .failure(let error): #expect(error is CancellationError, "\(error)")
        }
      }
      #expect(Set(try pair.phone.storedSamples().map(\.uuid)) == reportedSaved, "stored exactly what reported success")
    }
  }
}
