import FoundationEssentials
import Testing

@testable import Chaos
@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import Posix

@Suite("Fault campaigns")
struct ChaosTests {
  @Test func theSameSeedGivesTheSameSchedule() {
    let a = Campaign(seed: 7, steps: 500).schedule()
    #expect(a == Campaign(seed: 7, steps: 500).schedule())
    #expect(a != Campaign(seed: 8, steps: 500).schedule())
    #expect(a.contains { if case .kill = $0 { true } else { false } })
    #expect(a.contains { if case .link(up: false) = $0 { true } else { false } })
    #expect(a.contains { if case .hold(_, true) = $0 { true } else { false } })
  }

  @Test("Short campaigns lose nothing", arguments: [1 as UInt64, 2, 3])
  func shortCampaign(seed: UInt64) async throws {
    let report = try await Posix.onOwnThread { Campaign(seed: seed, steps: 200).run() }
    #expect(report.passed, "\(report.failure ?? "") — reproduce: \(report.reproduce(steps: 200))")
    #expect(report.losses == 0)
    #expect(report.kills > 0, "the schedule must kill daemons")
    #expect(report.acknowledgedSamples > 0)
    // Stored: every acknowledged save, less what was deleted or may have been; in-flight saves may add more.
    #expect(report.storedSamples >= report.acknowledgedSamples - report.acknowledgedDeletes - report.uncertainDeletes)
  }

  @Test func theCheckerCatchesALostSample() throws {
    var run = try CampaignRun(seed: 1, daemon: nil)
    defer { run.pair.shutdown() }
    var report = CampaignReport(seed: 1)
    try run.perform(.save(.phone, app: 0, batches: 1, count: 3), &report)
    // Claim a sample was acknowledged that no daemon ever saw.
    run.saved[0, default: []].append((UUID(), .watch))
    try run.healAndCheck(&report)
    #expect(report.losses == 1)
    #expect(report.failure?.contains("missing") == true)
  }

  @Test func theCheckerCatchesAuthorizationThatCrossed() throws {
    var run = try CampaignRun(seed: 1, daemon: nil)
    defer { run.pair.shutdown() }
    var report = CampaignReport(seed: 1)
    // Decide the phone's churn type on the watch: what a crossing would look like.
    let ticket = try run.pair.watch.beginAuthorization(
      Campaign.churn.bundleID, share: [Campaign.churnType[.phone]!], read: [])
    _ = try ticket.waitFirst(timeout: 10)
    try run.pair.watch.answerPrompt(.allowAll)
    let failure = #expect(throws: ChaosFailure.self) { try run.healAndCheck(&report) }
    #expect(
      failure?.description
        == "the watch has a decision for \(Campaign.churnType[.phone]!.name), which only the phone requested")
  }

  @Test func theCheckerCatchesADeletionThatDidNotHold() throws {
    var run = try CampaignRun(seed: 2, daemon: nil)
    defer { run.pair.shutdown() }
    var report = CampaignReport(seed: 2)
    try run.perform(.save(.watch, app: 1, batches: 1, count: 2), &report)
    run.collect(wait: true, &report)
    // Claim a stored sample's deletion was acknowledged.
    let stored = try #require(run.saved[1]?.first?.0)
    run.deleted.insert(stored)
    #expect { try run.healAndCheck(&report) } throws: { "\($0)".contains("acknowledged deletion") }
  }

  @Test func theCheckerCatchesADaemonThatDiedUnasked() throws {
    var run = try CampaignRun(seed: 3, daemon: nil)
    defer { run.pair.shutdown() }
    var report = CampaignReport(seed: 3)
    try run.perform(.save(.phone, app: 0, batches: 1, count: 2), &report)
    run.pair.kill(.watch)  // not through the schedule: nobody restarts it
    #expect { try run.healAndCheck(&report) } throws: { error in
      "\(error)".hasPrefix("the watch daemon died unexpectedly (")
    }
    #expect(run.unexpectedDeath()?.0 == .watch)
  }

  @Test func aRefusedDeleteLeavesItsSamplesUnderCheck() throws {
    var run = try CampaignRun(seed: 4, daemon: nil)
    defer { run.pair.shutdown() }
    var report = CampaignReport(seed: 4)
    try run.pair.phone.link(.disconnect)
    try run.perform(.save(.watch, app: 0, batches: 1, count: 1), &report)
    run.collect(wait: true, &report)
    // Deleting on the phone a sample that has not reached it is refused: nothing was deleted.
    try run.perform(.delete(.phone, app: 0, count: 1), &report)
    run.collect(wait: true, &report)
    #expect(report.rejectedDeletes == 1)
    #expect(run.uncertain.isEmpty)
    try run.pair.phone.link(.connect)
    try run.healAndCheck(&report)
    #expect(report.passed, "\(report.failure ?? "")")
  }
}

@Suite("Load")
struct LoadTests {
  @Test func thirtyTwoClientsOnBothDevicesLoseNothing() async throws {
    let report = try await Posix.onOwnThread { LoadTest(clients: 32, seconds: 2, seed: 11).run() }
    #expect(
      report.passed, "\(report.failures.joined(separator: "; ")) — reproduce: healthpair load --seconds 2 --seed 11")
    #expect(report.lostAcknowledgements == 0)
    #expect(report.errors.isEmpty)
    // Every kind of request ran, and the stores hold exactly what was saved minus what was deleted.
    for kind in ["save", "sampleQuery", "statisticsCollection", "delete"] {
      #expect((report.operations[kind] ?? 0) > 0, "\(kind)")
    }
    #expect(report.storedSamples == report.savedSamples - report.deletedSamples)
    // Both daemons' peak memory is measured and reported (judged at full size by `make load` and the benchmarks,
    // not here: a threshold on a busy machine's resident memory says nothing about behaviour).
    #expect(report.peakResidentMiB.count == 2 && report.peakResidentMiB.allSatisfy { $0 > 0 })
  }
}
