import HealthModel

/// The counts and findings of one campaign.
package struct CampaignReport: Sendable {
  /// The seed.
  package var seed: UInt64
  /// Steps run.
  package var steps = 0
  /// SIGKILLs sent.
  package var kills = 0
  /// Journals cut by `loseTail` (with at least one record dropped).
  package var tailCuts = 0
  /// Link disconnections.
  package var partitions = 0
  /// Holds of delivery.
  package var holds = 0
  /// Samples whose save was acknowledged.
  package var acknowledgedSamples = 0
  /// Samples whose save was not acknowledged (in flight at a kill, rejected).
  package var unacknowledgedSamples = 0
  /// Samples whose deletion was acknowledged (each counted once).
  package var acknowledgedDeletes = 0
  /// Samples whose deletion the daemon refused (nothing deleted; they stay under every check).
  package var rejectedDeletes = 0
  /// Samples whose deletion got no answer (in flight at a kill): either outcome is accepted.
  package var uncertainDeletes = 0
  /// Samples stored on the phone at the end.
  package var storedSamples = 0
  /// Acknowledged samples missing on a device (must be 0).
  package var losses = 0
  /// The first invariant violation or unexpected failure, with the step it followed.
  package var failure: String?
  /// The kept pair directory of a failed campaign (with `keepFailed`).
  package var keptDirectory: String?

  /// Creates an empty report.
  package init(seed: UInt64) { self.seed = seed }

  /// Whether the campaign found nothing wrong.
  package var passed: Bool { failure == nil && losses == 0 }

  /// The column names of `cells`.
  package static let columns = [
    "steps", "kills", "tail cuts", "partitions", "holds", "acked samples", "unacked", "acked deletes",
    "refused deletes", "unanswered deletes", "stored", "losses",
  ]
  /// The counts as table cells, in `columns` order.
  package var cells: [String] {
    [
      steps, kills, tailCuts, partitions, holds, acknowledgedSamples, unacknowledgedSamples, acknowledgedDeletes,
      rejectedDeletes, uncertainDeletes, storedSamples, losses,
    ]
    .map { String($0) }
  }

  /// Adds another campaign's counts (for totals).
  package mutating func add(_ other: CampaignReport) {
    steps += other.steps
    kills += other.kills
    tailCuts += other.tailCuts
    partitions += other.partitions
    holds += other.holds
    acknowledgedSamples += other.acknowledgedSamples
    unacknowledgedSamples += other.unacknowledgedSamples
    acknowledgedDeletes += other.acknowledgedDeletes
    rejectedDeletes += other.rejectedDeletes
    uncertainDeletes += other.uncertainDeletes
    storedSamples += other.storedSamples
    losses += other.losses
  }
  /// The command that replays it.
  package func reproduce(steps total: Int) -> String { "healthpair chaos --seed \(seed) --steps \(total)" }
}
