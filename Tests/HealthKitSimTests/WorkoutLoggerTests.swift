import CoreLocation
import Foundation
import HealthKitSim
import HealthPairTesting
import PublishedStyles
import Testing

/// Sources/Examples/PublishedStyles/WorkoutLogger.swift (which imports `HealthKit` and `CoreLocation`), unchanged,
/// against a real pair.
@Suite("Published-style workout code (WorkoutLogger), against real daemons")
struct WorkoutLoggerTests {
  @available(*, deprecated)
  @Test func aRunAndALegacyWalkAreSavedAndReadBack() async throws {
    try await withArticlePair { pair in
      try await pair.watch.use(app: waterID) {
        let logger = WorkoutLogger()
        let asked = Mailbox<Bool>()
        logger.requestAuthorization { success, _ in asked.post(success) }
        try await pair.watch.user.allowAll()
        #expect(try await asked.next() == true)
        let saved = Mailbox<HKWorkout?>()
        logger.saveRun(
          start: t0 - 1_800, end: t0, pausedFrom: t0 - 900, to: t0 - 600, meters: 4_000, kilocalories: 300,
          route: routeFixes(120, from: t0 - 1_800)
        ) { workout, error in
          if let error { Issue.record("saveRun: \(error)") }
          saved.post(workout)
        }
        let run = try #require(try await saved.next() ?? nil)
        #expect(run.duration == 1_500)
        let walked = Mailbox<Bool>()
        logger.saveLegacyWalk(start: t0 - 7_200, end: t0 - 3_600, meters: 2_000) { ok, _ in walked.post(ok) }
        #expect(try await walked.next() == true)
        let runs = Mailbox<[WorkoutLogger.RunSummary]>()
        logger.runs(since: t0 - 86_400) { found, _ in runs.post(found ?? []) }
        #expect(
          try await runs.next() == [
            WorkoutLogger.RunSummary(id: run.uuid, start: t0 - 1_800, duration: 1_500, meters: 4_000, kilocalories: 300)
          ])
        let route = Mailbox<[CLLocation]>()
        logger.route(of: run) { locations, _ in route.post(locations ?? []) }
        #expect(try await route.next().count == 120)
      }
    }
  }
}
