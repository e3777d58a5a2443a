import HealthModel
import HealthPairClient
import PairProcesses
import Journal
import Posix
import Render

#if canImport(Glibc)
  import Glibc
#endif

/// A phone daemon started on a large store twice: with the journal alone (full replay, the baseline) and with a
/// snapshot of the whole store beside it (what a clean shutdown leaves), each until ready.
func snapshotMetrics(daemon: String, samples: Int) throws -> [Metric] {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-snapshot")
  defer { Posix.removeTree(root) }
  let layout = PairLayout(root: root)
  try Posix.makeDirectory(layout.directory(.phone), mode: 0o700)
  let snapshot = SnapshotFile.path(forJournal: layout.journal(.phone))
  let aside = root + "/snapshot.aside"
  var writeSeconds = 0.0
  var snapshotBytes = 0
  do {
    let device = try writeWaterStore(layout.journal(.phone), samples: samples)
    // What the daemon does at a clean shutdown; the snapshot is put aside for the baseline run.
    let w0 = now()
    snapshotBytes = try device.writeSnapshot()
    writeSeconds = Double(now() - w0) / 1e9
    try Posix.rename(snapshot, to: aside)
  }
  let journalBytes = (try? Posix.readFile(layout.journal(.phone)).count) ?? 0
  func start() throws -> (seconds: Double, residentMiB: Double, log: String) {
    let t0 = now()
    let process = try startDaemon(daemon: daemon, dir: root)
    let seconds = Double(now() - t0) / 1e9
    let rss = Double(Posix.residentBytes(of: process.pid) ?? 0) / 1_048_576
    process.signal(SIGKILL)
    process.waitForExit(timeout: 60)
    let log = (try? Posix.readFile(layout.log(.phone))).map { String(decoding: $0, as: UTF8.self) } ?? ""
    return (seconds, rss, log)
  }
  let replay = try start()
  // The killed daemon may have started (or finished) a snapshot of its own after ready: replace it with ours.
  try Posix.rename(aside, to: snapshot)
  let resumed = try start()
  // The daemons log at warning level: a snapshot that was not used says so.
  let usedSnapshot = !resumed.log.contains("snapshot not used")
  let ratio = resumed.seconds / replay.seconds
  let full = samples >= 10_000_000
  return [
    Metric(
      name: "4c. Recovery of a \(formatNumber(Double(samples)))-sample store to ready from its snapshot "
        + "(\(snapshotBytes / 1_048_576) MiB) vs replaying its journal (\(journalBytes / 1_048_576) MiB)",
      baseline: ms(replay.seconds * 1000), value: ms(resumed.seconds * 1000),
      ratio: formatNumber((ratio * 1000).rounded() / 1000) + "×", target: full ? "≤ 5 s" : "reported",
      met: full ? resumed.seconds <= 5 && usedSnapshot : nil,
      numbers: [
        ("seconds", resumed.seconds), ("replaySeconds", replay.seconds), ("snapshotBytes", Double(snapshotBytes)),
        ("journalBytes", Double(journalBytes)), ("usedSnapshot", usedSnapshot ? 1 : 0),
      ]),
    Metric(
      name: "4d. Daemon resident memory after recovery from the snapshot vs from the journal",
      baseline: "\(formatNumber(replay.residentMiB.rounded())) MiB",
      value: "\(formatNumber(resumed.residentMiB.rounded())) MiB", ratio: "—", target: "reported", met: nil,
      numbers: [("residentMiB", resumed.residentMiB), ("replayResidentMiB", replay.residentMiB)]),
    Metric(
      name: "4e. Writing that snapshot (what a clean shutdown or a due snapshot costs the daemon's loop)",
      baseline: "—", value: ms(writeSeconds * 1000), ratio: "—", target: "reported", met: nil,
      numbers: [("seconds", writeSeconds)]),
  ]
}
