import Dispatch
import Synchronization

/// The totals of many simulated seeds, run on several threads (each seed is independent and deterministic, so the
/// totals do not depend on the thread count).
package struct SimulationSummary: Sendable {
  /// Every seed's report, in seed order.
  package var reports: [SimulationReport]

  /// The reports that broke an invariant.
  package var failures: [SimulationReport] { reports.filter { $0.failure != nil } }

  /// Runs seeds `first…first+count-1` on `jobs` threads.
  package static func run(first: UInt64, count: Int, options: SimulationOptions, jobs: Int) -> SimulationSummary {
    let next = Atomic<Int>(0)
    let results = Mutex<[SimulationReport?]>(Array(repeating: nil, count: count))
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { _ in
      while true {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < count else { return }
        let report = PairSimulator.run(seed: first + UInt64(index), options: options)
        results.withLock { $0[index] = report }
      }
    }
    return SimulationSummary(reports: results.withLock { $0.compactMap { $0 } })
  }

  /// A table: one row of totals (seeds, steps, saves, deletes, crashes, torn tails, resets, partitions, messages
  /// delivered and lost), with a header.
  package var rows: [[String]] {
    var total = SimulationReport(seed: 0)
    for r in reports {
      total.steps += r.steps
      total.saves += r.saves
      total.deletes += r.deletes
      total.crashes += r.crashes
      total.tornTails += r.tornTails
      total.connectionResets += r.connectionResets
      total.partitions += r.partitions
      total.delivered += r.delivered
      total.lost += r.lost
    }
    return [
      [
        "seeds", "steps", "saves", "deletes", "crashes", "torn tails", "resets", "partitions", "delivered", "lost",
        "failed",
      ],
      [
        "\(reports.count)", "\(total.steps)", "\(total.saves)", "\(total.deletes)", "\(total.crashes)",
        "\(total.tornTails)", "\(total.connectionResets)", "\(total.partitions)", "\(total.delivered)", "\(total.lost)",
        "\(failures.count)",
      ],
    ]
  }
}
