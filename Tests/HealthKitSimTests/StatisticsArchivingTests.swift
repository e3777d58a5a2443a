import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Catches what the remote session sends, as data.
final class DataCatcher: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
  let received = Mailbox<Data>()

  func workoutSession(
    _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
    from fromState: HKWorkoutSessionState, date: Date
  ) {}

  func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {}

  func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
    for item in data { received.post(item) }
  }
}

/// `HKStatistics` and `HKQuantity` adopt `NSSecureCoding`, as on a device: Apple's multi-device workout sample
/// archives the watch's live statistics, sends them over the mirrored session and unarchives them on the phone.
@Suite("HKStatistics and HKQuantity archived with NSKeyedArchiver")
struct StatisticsArchivingTests {
  @Test func aQuantityArchivesAndUnarchivesAsItself() throws {
    let quantity = HKQuantity(unit: HKUnit.count().unitDivided(by: .minute()), doubleValue: 142)
    let data = try NSKeyedArchiver.archivedData(withRootObject: quantity, requiringSecureCoding: true)
    let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQuantity.self, from: data))
    #expect(back == quantity)
    #expect(back.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) == 142)
  }

  @Test func theWatchsLiveStatisticsReachThePhoneArchivedOverTheMirroredSession() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.phone.installRunners()
      let catcher = DataCatcher()
      let started = Mailbox<HKWorkoutSession>()
      let phoneStore = pair.phone.use(app: runnerID) { () -> HKHealthStore in
        let store = HKHealthStore()
        store.workoutSessionMirroringStartHandler = { session in
          session.delegate = catcher
          started.post(session)
        }
        return store
      }
      try await pair.watch.use(app: runnerID) {
        let store = HKHealthStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: outdoorRun())
        let builder = session.associatedWorkoutBuilder()
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: outdoorRun())
        let recorder = SessionRecorder()
        session.delegate = recorder
        builder.delegate = recorder
        try await session.startMirroringToCompanionDevice()
        _ = try await started.next()
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        #expect(try await recorder.next(1) == ["state notStarted->running"])
        try pair.watch.advanceClock(by: 300)
        #expect(try await recorder.next(1) == ["data"])
        let types: [HKQuantityType] = [heartRateType, HKQuantityType(.activeEnergyBurned)]
        let statistics = types.compactMap { builder.statistics(for: $0) }
        #expect(statistics.count == 2)
        let archived = try NSKeyedArchiver.archivedData(withRootObject: statistics, requiringSecureCoding: true)
        try await session.sendToRemoteWorkoutSession(data: archived)

        let data = try await catcher.received.next()
        let decoded = try #require(
          try NSKeyedUnarchiver.unarchivedArrayOfObjects(ofClass: HKStatistics.self, from: data))
        #expect(decoded.map(\.quantityType) == statistics.map(\.quantityType))
        let bpm = HKUnit.count().unitDivided(by: .minute())
        #expect(
          decoded[0].averageQuantity()?.doubleValue(for: bpm) == statistics[0].averageQuantity()?.doubleValue(for: bpm))
        #expect(decoded[0].mostRecentQuantity() == statistics[0].mostRecentQuantity())
        #expect(decoded[0].mostRecentQuantityDateInterval() == statistics[0].mostRecentQuantityDateInterval())
        #expect(decoded[1].sumQuantity() == statistics[1].sumQuantity())
        #expect(decoded[1].sumQuantity() != nil && decoded[1].averageQuantity() == nil)
        #expect(
          decoded.map(\.startDate) == statistics.map(\.startDate) && decoded.map(\.endDate) == statistics.map(\.endDate)
        )
      }
      withExtendedLifetime(phoneStore) {}
    }
  }
}
