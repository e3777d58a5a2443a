import FoundationEssentials
import Testing

@testable import Chaos
@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient

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
  func shortCampaign(seed: UInt64) {
    let report = Campaign(seed: seed, steps: 200).run()
    #expect(report.passed, "\(report.failure ?? "") — reproduce: \(report.reproduce(steps: 200))")
    #expect(report.losses == 0)
    #expect(report.kills > 0, "the schedule must kill daemons")
    #expect(report.acknowledgedSamples > 0)
    #expect(report.storedSamples >= report.acknowledgedSamples - report.acknowledgedDeletes)
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
    let ticket = try run.pair.watch.beginAuthorization(Campaign.churn.bundleID, share: [Campaign.churnType[.phone]!], read: [])
    _ = try ticket.waitFirst(timeout: 10)
    try run.pair.watch.answerPrompt(.allowAll)
    #expect(throws: ChaosFailure.self) { try run.healAndCheck(&report) }
  }
}

@Suite("Load")
struct LoadTests {
  @Test func thirtyTwoClientsOnBothDevicesLoseNothing() {
    let report = LoadTest(clients: 32, seconds: 2, seed: 11).run()
    #expect(report.passed, "\(report.failures.joined(separator: "; ")) — reproduce: healthpair load --seconds 2 --seed 11")
    #expect(report.lostAcknowledgements == 0)
    #expect(report.errors.isEmpty)
    // Every kind of request ran, and the stores hold exactly what was saved minus what was deleted.
    for kind in ["save", "sampleQuery", "statisticsCollection", "delete"] { #expect((report.operations[kind] ?? 0) > 0, "\(kind)") }
    #expect(report.storedSamples == report.savedSamples - report.deletedSamples)
    // Memory stays bounded: far below what an unbounded buffer or leak would reach in this run.
    #expect(report.peakResidentMiB.count == 2)
    #expect(report.peakResidentMiB.allSatisfy { $0 > 0 && $0 < 512 })
  }
}
