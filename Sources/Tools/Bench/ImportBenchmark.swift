import FoundationEssentials
import HealthEngine
import HealthExport
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Wire

#if canImport(Glibc)
  import Glibc
#endif

// MARK: - 8. Import of an Apple Health export

/// Imports a synthetic export of `records` records (about 1 GiB at full size, in the real schema) into a
/// standalone phone daemon with the importer in a child process of its own, so its peak memory is the importer's
/// alone. The baseline is reading the same file's bytes, measured in the same run.
func importMetrics(daemon: String, records: Int) throws -> [Metric] {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-import")
  defer { Posix.removeTree(root) }
  let file = root + "/export.xml"
  let bytes = try HealthExportFiles.writeSynthetic(
    SyntheticExport(records: records, days: 3 * 365, end: benchStart, seed: 11), to: file)
  // Baseline: the file's bytes read once, 1 MiB at a time.
  let readStart = now()
  let input = try FileInput(path: file)
  var buffer = [UInt8](repeating: 0, count: 1 << 20)
  while try buffer.withUnsafeMutableBytes({ try input.read(into: $0) }) > 0 {}
  let readSeconds = Double(now() - readStart) / 1e9
  let process = try startDaemon(daemon: daemon, dir: root + "/pair")
  defer {
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }
  let socket = PairLayout(root: root + "/pair").socket(.phone)
  let daemonCPUBefore = cpuSeconds(of: process.pid)
  let setup = try DeviceClient(socketPath: socket, clientName: "bench")
  try setup.setClock(benchStart)
  guard let exe = Posix.executablePath() else { throw PairError.timeout("the bench executable path") }
  let (readEnd, writeEnd) = try Posix.pipe()
  let child = try Posix.spawn(exe, ["--import-child", socket, file], stdout: writeEnd)
  Posix.close(writeEnd)
  var output: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while Posix.waitReadable(readEnd, timeoutMilliseconds: 3_600_000) {
    let r = try chunk.withUnsafeMutableBytes { b in
      try catching { () throws(SystemError) in try Posix.read(readEnd, into: b) }.get()
    }
    guard case .bytes(let n) = r else { break }
    output += chunk[0..<n]
  }
  Posix.close(readEnd)
  _ = try? Posix.wait(child, block: true)
  let fields = String(decoding: output, as: UTF8.self).split(separator: " ").compactMap { Double($0) }
  guard fields.count == 7 else {
    throw PairError.timeout("the importer's report (it printed: \(String(decoding: output, as: UTF8.self)))")
  }
  let (read, added, seconds, peak, importerCPU) = (fields[0], fields[1], fields[2], fields[3], fields[4])
  // The importer's threads: the main one (encoding, sending), and those that had ended when it reported — the
  // parsing thread (the connection's reader thread, still running then, is in neither).
  let (mainCPU, parserCPU) = (fields[5], fields[6])
  let daemonCPU = cpuSeconds(of: process.pid) - daemonCPUBefore
  // On two cores shared by all three, at best half of everything's CPU time per core.
  let shared = (importerCPU + daemonCPU) / 2
  let daemonPeak = Double(Posix.peakResidentBytes(of: process.pid) ?? 0)
  setup.close()
  let rate = read / max(seconds, 1e-9)
  let megabytes = Double(bytes) / 1_048_576
  func ratio(_ v: Double, _ e: Double) -> String { formatNumber((v / e * 100).rounded() / 100) + "×" }
  return [
    Metric(
      name: "8. Import of a synthetic Apple Health export (\(Int(read)) records, \(Int(megabytes)) MB) into a phone "
        + "daemon: records/s (baseline: reading the file's bytes)",
      baseline: "\(formatNumber((megabytes / readSeconds).rounded())) MB/s",
      value: "\(formatNumber(rate.rounded())) records/s", ratio: ratio(seconds, readSeconds) + " the read time",
      target: "≥ 200,000 records/s", met: rate >= 200_000,
      numbers: [
        ("records", read), ("added", added), ("seconds", seconds), ("recordsPerSecond", rate),
        ("fileBytes", Double(bytes)),
        ("readSeconds", readSeconds),
      ], headline: "recordsPerSecond"),
    Metric(
      name: "8a. The importer's peak memory (resident) for that import; the daemon's beside it",
      baseline: "\(formatNumber((daemonPeak / 1_048_576).rounded())) MB daemon",
      value: "\(formatNumber((peak / 1_048_576).rounded())) MB", ratio: "", target: "≤ 300 MB",
      met: peak <= 300 * 1_048_576,
      numbers: [("importerPeakBytes", peak), ("daemonPeakBytes", daemonPeak)]),
    Metric(
      name: "8b. CPU time per record of that import: the importer (parsing, sending) and the daemon (checking, "
        + "journaling, committing), each on its own core; the rate the busier could sustain",
      baseline: "\(us(importerCPU / read * 1e6)) importer",
      value: "\(us(daemonCPU / max(added, 1) * 1e6)) daemon",
      ratio: "\(formatNumber((read / max(importerCPU, daemonCPU, 1e-9)).rounded())) records/s", target: "reported",
      met: nil, numbers: [("importerCPUSeconds", importerCPU), ("daemonCPUSeconds", daemonCPU)]),
    Metric(
      name: "8c. CPU time per record of the importer's two threads (parsing; encoding and sending) and the daemon: "
        + "the rate the busiest could sustain on a core of its own, and on two cores shared by all",
      baseline: "\(us(parserCPU / read * 1e6)) parsing, \(us(mainCPU / read * 1e6)) sending",
      value: "\(formatNumber((read / max(parserCPU, mainCPU, daemonCPU, 1e-9)).rounded())) records/s",
      ratio: "\(formatNumber((read / max(parserCPU, mainCPU, daemonCPU, shared, 1e-9)).rounded())) records/s "
        + "on two cores",
      target: "reported", met: nil,
      numbers: [("importerParsingCPUSeconds", parserCPU), ("importerMainThreadCPUSeconds", mainCPU)]),
  ]
}

/// The importer child of ``importMetrics(daemon:records:)``: imports `file` into the daemon at `socket`, then prints
/// `records-read added seconds peak-resident-bytes cpu-seconds main-thread-cpu-seconds ended-threads-cpu-seconds`.
package func runImportChild(socket: String, file: String) -> Int32 {
  do {
    let client = try DeviceClient(socketPath: socket, clientName: "bench importer", timeout: 600)
    defer { client.close() }
    let report = try HealthExportFiles.importExport(path: file, into: client)
    let peak = Posix.peakResidentBytes(of: Posix.processID) ?? 0
    let pid = Posix.processID
    let total = cpuSeconds(of: pid)
    // Threads still running (this one, the connection's reader); the rest of the total is the parsing thread's,
    // which has ended.
    let live = ((try? Posix.listDirectory("/proc/\(pid)/task")) ?? []).reduce(0.0) {
      $0 + cpuSeconds(statPath: "/proc/\(pid)/task/\($1)/stat")
    }
    let main = cpuSeconds(statPath: "/proc/\(pid)/task/\(pid)/stat")
    Posix.writeStandardOutput(
      "\(report.summary.records) \(report.outcome.addedCount) \(report.seconds) \(peak) \(total) \(main) "
        + "\(max(0, total - live))")
    return 0
  } catch {
    Posix.writeStandardError("bench importer: \(error)\n")
    return 1
  }
}

/// User plus system CPU seconds a process has used (`/proc/<pid>/stat` fields 14 and 15).
func cpuSeconds(of pid: pid_t) -> Double { cpuSeconds(statPath: "/proc/\(pid)/stat") }

/// User plus system CPU seconds from a `stat` file of `/proc` (a process's, or one thread's under `task/`).
func cpuSeconds(statPath: String) -> Double {
  guard let bytes = try? Posix.readFile(statPath) else { return 0 }
  let text = String(decoding: bytes, as: UTF8.self)
  // Fields after the command name, which is in parentheses and may hold spaces.
  guard let close = text.lastIndex(of: ")") else { return 0 }
  let fields = text[text.index(after: close)...].split(separator: " ")
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

// MARK: - 8d, 8e. Import cost in distinct sources and in correlation members

/// An export of `records` step-count records: from one source, or each from a source of its own.
func scalingExport(records: Int, distinctSources: Bool) -> [UInt8] {
  var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
  for i in 0..<records {
    text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(distinctSources ? "App \(i)" : "App")\""
    text += " sourceVersion=\"1.0\" unit=\"count\" startDate=\"2026-01-01 10:00:00 +0000\""
    text += " endDate=\"2026-01-01 10:00:\(10 + i % 50) +0000\" value=\"\(1 + i % 1000)\"/>\n"
  }
  return Array((text + "</HealthData>\n").utf8)
}

/// An export of `members` dietary-water records, all members of food correlations of ``ExportReader/maxChildren``
/// members each (the most one may hold).
func correlationExport(members: Int) -> [UInt8] {
  var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
  var i = 0
  while i < members {
    let n = min(ExportReader.maxChildren, members - i)
    text += " <Correlation type=\"HKCorrelationTypeIdentifierFood\" sourceName=\"App\" sourceVersion=\"1.0\""
    text += " startDate=\"2026-01-01 10:00:00 +0000\" endDate=\"2026-01-01 10:01:00 +0000\">\n"
    for k in 0..<n {
      text += "  <Record type=\"HKQuantityTypeIdentifierDietaryWater\" sourceName=\"App\" sourceVersion=\"1.0\""
      text += " unit=\"mL\" startDate=\"2026-01-01 10:00:00 +0000\" endDate=\"2026-01-01 10:01:00 +0000\""
      text += " value=\"\(1 + (i + k) % 100_000)\"/>\n"
    }
    text += " </Correlation>\n"
    i += n
  }
  return Array((text + "</HealthData>\n").utf8)
}

/// Seconds to read `bytes` with the export reader (the median of three), and the samples it read.
func readSeconds(_ bytes: [UInt8]) throws -> (seconds: Double, samples: Int) {
  var times: [Double] = []
  var samples = 0
  for _ in 0..<3 {
    let start = now()
    var reader = ExportReader(MemoryInput(bytes), file: "bench.xml")
    samples = 0
    while try reader.next() != nil { samples += 1 }
    times.append(Double(now() - start) / 1e9)
  }
  return (median(times), samples)
}

/// Rows 8d and 8e: reading `records` records each from its own source, and `records` correlation members, against
/// `records` records from one source read in the same run: the reader's cost is linear in records whatever the
/// number of sources and members (a linear scan per new source made 40,000 sources take over 300 s). A new source
/// costs a few records' worth of work (its mapping, details and summary entry), hence 8×; a scan per source or per
/// member shows as hundreds.
func importScalingMetrics(records: Int) throws -> [Metric] {
  let baseline = try readSeconds(scalingExport(records: records, distinctSources: false))
  let sources = try readSeconds(scalingExport(records: records, distinctSources: true))
  let members = try readSeconds(correlationExport(members: records))
  func perRecord(_ r: (seconds: Double, samples: Int)) -> String { us(r.seconds / Double(max(r.samples, 1)) * 1e6) }
  let sourceRatio = sources.seconds / max(baseline.seconds, 1e-9)
  let memberRatio = members.seconds / max(baseline.seconds, 1e-9)
  func ratio(_ v: Double) -> String { formatNumber((v * 100).rounded() / 100) + "×" }
  return [
    Metric(
      name: "8d. Reading \(records) records each from a source of its own (baseline: \(records) records from one "
        + "source): time per record",
      baseline: perRecord(baseline), value: perRecord(sources), ratio: ratio(sourceRatio), target: "≤ 8×",
      met: sourceRatio <= 8,
      numbers: [
        ("records", Double(records)), ("baselineSeconds", baseline.seconds), ("seconds", sources.seconds),
        ("ratio", sourceRatio),
      ], headline: "ratio"),
    Metric(
      name: "8e. Reading \(records) records as members of food correlations of \(ExportReader.maxChildren) members "
        + "each (baseline: \(records) top-level records from one source): time per record",
      baseline: perRecord(baseline), value: perRecord(members), ratio: ratio(memberRatio), target: "≤ 4×",
      met: memberRatio <= 4,
      numbers: [("members", Double(members.samples)), ("seconds", members.seconds), ("ratio", memberRatio)],
      headline: "ratio"),
  ]
}
