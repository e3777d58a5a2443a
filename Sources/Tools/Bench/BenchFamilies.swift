import Posix

/// What a benchmark family is given to run: the daemon binary, the sizes, the scenario directory to time (if any)
/// and where growth charts go (if anywhere).
struct BenchRun: Sendable {
  /// The healthpaird binary every pair and daemon is started from.
  var daemon: String
  /// How big each benchmark is.
  var sizes: BenchSizes
  /// The scenario directory the suite rows time (`--scenarios`), if any.
  var suite: String?
  /// Where the growth charts go (`--charts`), if anywhere.
  var charts: String?
}

/// A family of benchmark rows: the `--only` groups that select it, the progress line it prints, and how it
/// measures its rows. Adding a family is its own file (a function returning its ``Metric``s) and one entry in
/// ``all``; `--only` accepts its groups from then on (``BenchCommand/groups`` is ``names``).
struct BenchFamily: Sendable {
  /// The `--only` names that select this family: its own, then any group that holds several (`userpath` holds
  /// `calls`, `pairs` and `suite`; `import` holds `importshape`).
  let groups: [String]
  /// The progress line printed (to standard error, after `bench: `) before it runs.
  let note: @Sendable (BenchSizes) -> String
  /// Runs it: its rows, in table order.
  let measure: @Sendable (BenchRun) throws -> [Metric]

  /// Every family, in the order they run (the table's rows follow this order).
  static let all: [BenchFamily] = [
    BenchFamily(
      groups: ["roundtrip"], note: { _ in "save round trip vs raw socket echo" },
      measure: { run in try roundTripMetric(daemon: run.daemon, count: run.sizes.roundTrips) }),
    BenchFamily(
      groups: ["throughput"], note: { _ in "batched save throughput" },
      measure: { run in [try throughputMetric(daemon: run.daemon, samples: run.sizes.throughputSamples)] }),
    BenchFamily(
      groups: ["sync"], note: { _ in "sync watch → phone" },
      measure: { run in [try syncMetric(daemon: run.daemon, samples: run.sizes.syncSamples)] }),
    BenchFamily(
      groups: ["start"], note: { _ in "daemon start" },
      measure: { run in [try startMetric(daemon: run.daemon, starts: run.sizes.starts)] }),
    BenchFamily(
      groups: ["bigstore"], note: { "recovery, queries and memory over \($0.bigStore) samples" },
      measure: { run in try bigStoreMetrics(daemon: run.daemon, samples: run.sizes.bigStore, runs: run.sizes.queryRuns)
      }),
    BenchFamily(
      groups: ["bigstore"], note: { "de-duplicated statistics over \($0.dedupStore) samples from both devices" },
      measure: { run in [try dedupMetric(daemon: run.daemon, samples: run.sizes.dedupStore, runs: run.sizes.queryRuns)]
      }),
    BenchFamily(
      groups: ["snapshot"], note: { "recovery from a snapshot vs the journal over \($0.snapshotStore) samples" },
      measure: { run in try snapshotMetrics(daemon: run.daemon, samples: run.sizes.snapshotStore) }),
    BenchFamily(
      groups: ["scale"], note: { "a year of watch data: the store's costs from 1,000 to \($0.scaleStore) samples" },
      measure: { run in
        try scaleMetrics(
          daemon: run.daemon, largest: run.sizes.scaleStore, runs: run.sizes.queryRuns, charts: run.charts)
      }),
    BenchFamily(
      groups: ["clients"], note: { _ in "save round trip with 1…64 concurrent clients" },
      measure: { run in [try clientsMetric(daemon: run.daemon, rounds: run.sizes.roundTrips / 10, charts: run.charts)] }
    ),
    BenchFamily(
      groups: ["import"], note: { "import of a synthetic Apple Health export of \($0.importRecords) records" },
      measure: { run in try importMetrics(daemon: run.daemon, records: run.sizes.importRecords) }),
    BenchFamily(
      groups: ["importshape", "import"],
      note: { "import cost in distinct sources and correlation members, \($0.importScalingRecords) records" },
      measure: { run in try importScalingMetrics(records: run.sizes.importScalingRecords) }),
    BenchFamily(
      groups: ["calls", "userpath"], note: { _ in "HealthKitSim calls vs DeviceClient and raw echoes" },
      measure: { run in try healthKitSimCallMetrics(daemon: run.daemon, calls: run.sizes.userPath.calls) }),
    BenchFamily(
      groups: ["pairs", "userpath"], note: { _ in "pair start-up as a test sees it" },
      measure: { run in
        try pairStartMetrics(daemon: run.daemon, pairs: run.sizes.userPath.pairs, starts: run.sizes.userPath.starts)
      }),
    BenchFamily(
      groups: ["suite", "userpath"], note: { _ in "scenario suites" },
      measure: { run in
        try suiteMetrics(
          daemon: run.daemon, suite: run.suite, counts: run.sizes.userPath.generatedCounts, charts: run.charts)
      }),
    BenchFamily(
      groups: ["scenarios"], note: { _ in "scenario runner" },
      measure: { run in try scenarioMetrics(daemon: run.daemon, runs: run.sizes.scenarioRuns, suite: run.suite) }),
    BenchFamily(
      groups: ["workoutsync", "workouts"],
      note: { "a \($0.workoutSeconds)-second watch workout with its samples and route, watch → phone" },
      measure: { run in
        [try workoutSyncMetric(daemon: run.daemon, seconds: run.sizes.workoutSeconds, runs: run.sizes.workoutRuns)]
      }),
    BenchFamily(
      groups: ["workoutquery", "workouts"], note: { "sample queries of \($0.workoutDays) daily workouts" },
      measure: { run in
        try workoutQueryMetrics(daemon: run.daemon, days: run.sizes.workoutDays, runs: run.sizes.queryRuns)
      }
    ),
    BenchFamily(
      groups: ["livesession", "workouts"],
      note: { "a \($0.workoutSeconds)-second live workout session on the watch, saved and synced" },
      measure: { run in
        [try liveSessionMetric(daemon: run.daemon, seconds: run.sizes.workoutSeconds, runs: run.sizes.workoutRuns)]
      }),
    BenchFamily(
      groups: ["mirroring", "workouts"],
      note: { "\(max(1, $0.roundTrips / 4)) message round trips over a mirrored workout session" },
      measure: { run in [try mirroredMessageMetric(daemon: run.daemon, count: max(1, run.sizes.roundTrips / 4))] }),
  ]

  /// Every `--only` name, in the order it first appears in ``all``.
  static let names: [String] = all.flatMap(\.groups).reduce(into: []) { names, name in
    if !names.contains(name) { names.append(name) }
  }

  /// The families `only` selects, in table order: every family when `only` is empty, else each with a group in it
  /// (pinned by BenchFamiliesTests).
  static func selected(by only: Set<String>) -> [BenchFamily] {
    all.filter { only.isEmpty || !only.isDisjoint(with: $0.groups) }
  }
}

/// Runs the benchmark families `only` selects (every one when empty) against the daemon binary at `daemon` and
/// returns their metrics, printing progress to standard error.
package func runBenchmarks(
  daemon: String, sizes: BenchSizes, scenarios: String?, only: Set<String> = [], charts: String? = nil
) throws -> [Metric] {
  let run = BenchRun(daemon: daemon, sizes: sizes, suite: scenarios, charts: charts)
  var metrics: [Metric] = []
  for family in BenchFamily.selected(by: only) {
    Posix.writeStandardError("bench: \(family.note(sizes))\n")
    metrics += try family.measure(run)
  }
  return metrics
}

/// The user-path rows of `parts` (`calls`: 9a–9f, `pairs`: 10a–10c, `suite`: 11a–11b; all by default).
package func userPathMetrics(
  daemon: String, sizes: UserPathSizes, suite: String?, charts: String? = nil,
  parts: Set<String> = ["calls", "pairs", "suite"]
) throws -> [Metric] {
  let parts = parts.intersection(["calls", "pairs", "suite"])
  guard !parts.isEmpty else { return [] }
  var all = BenchSizes()
  all.userPath = sizes
  return try runBenchmarks(daemon: daemon, sizes: all, scenarios: suite, only: parts, charts: charts)
}
