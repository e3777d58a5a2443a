
/// Sizes of a benchmark run; `smoke` makes everything tiny (for the test suite).
package struct BenchSizes: Sendable {
  /// Round trips timed for latency.
  package var roundTrips = 20_000
  /// Samples saved for throughput.
  package var throughputSamples = 400_000
  /// Samples synced watch → phone.
  package var syncSamples = 100_000
  /// Daemon starts timed.
  package var starts = 40
  /// Samples in the recovery / query / memory journal.
  package var bigStore = 1_000_000
  /// Samples in the store recovered from a snapshot.
  package var snapshotStore = 10_000_000
  /// The largest store of the scale ladder (a year of watch data; 1,000, 10,000, … up to it).
  package var scaleStore = 10_000_000
  /// Samples of the phone-and-watch store whose statistics are de-duplicated (half from each device).
  package var dedupStore = 100_000
  /// Scenario repetitions.
  package var scenarioRuns = 20
  /// Query repetitions.
  package var queryRuns = 30
  /// Records in the synthetic export the import benchmark loads (about 1 GiB).
  package var importRecords = 2_300_000
  /// Records in each export of the import-scaling rows (8d, 8e): distinct sources, correlation members.
  package var importScalingRecords = 100_000
  /// Sizes of the user-path rows (HealthKitSim calls, pair start-up, suites).
  package var userPath = UserPathSizes()
  /// Seconds of the synced watch workout (row 12): heart rate every second, a fix every second.
  package var workoutSeconds = 10_800
  /// Timed runs of row 12 (each one workout and one baseline, alternating).
  package var workoutRuns = 5
  /// Daily workouts in the queried store (rows 13a, 13b).
  package var workoutDays = 365
  /// Creates the full-size configuration.
  package init() {}
  /// A tiny configuration that only checks the machinery.
  package static var smoke: BenchSizes {
    var s = BenchSizes()
    s.roundTrips = 200
    s.throughputSamples = 2000
    s.syncSamples = 1000
    s.starts = 3
    s.bigStore = 5000
    s.snapshotStore = 5000
    s.scaleStore = 2000
    s.dedupStore = 2000
    s.scenarioRuns = 2
    s.queryRuns = 3
    s.importRecords = 2000
    s.importScalingRecords = 2000
    s.userPath = .smoke
    s.workoutSeconds = 120
    s.workoutRuns = 1
    s.workoutDays = 7
    return s
  }
}

/// Sizes of the user-path benchmarks (`--only userpath`).
package struct UserPathSizes: Sendable {
  /// Calls timed per figure (HealthKitSim save and query, DeviceClient, echoes).
  package var calls = 4_000
  /// Empty `withHealthPair` bodies and runner pairs timed.
  package var pairs = 40
  /// Daemon and `/bin/true` starts timed.
  package var starts = 40
  /// The generated suites' sizes (the suite-time-against-count series).
  package var generatedCounts = [10, 100, 1_000]
  /// Creates the full-size configuration.
  package init() {}
  /// Tiny sizes: checks the machinery only.
  package static var smoke: UserPathSizes {
    var s = UserPathSizes()
    s.calls = 100
    s.pairs = 2
    s.starts = 3
    s.generatedCounts = [4]
    return s
  }
}
