import Dispatch
import FoundationEssentials
import HealthPairClient
import PairProcesses
import Posix
import ScenarioLanguage
import Synchronization

/// Finds, parses and runs scenario files.
package enum Suite {
  /// What loading the paths produced.
  package struct Loaded: Sendable {
    /// The parsed scenarios, in path order.
    package var scenarios: [Scenario]
    /// Every parse error, in file and line order.
    package var diagnostics: [Diagnostic]
    /// Paths that could not be read.
    package var unreadable: [String]
  }

  /// Which files of a suite to run: a text their path or `scenario:` title contains, and a shard.
  package struct Selection: Sendable {
    /// Case-insensitive text the file's path or its `scenario:` line must contain (nil: every file).
    package var filter: String?
    /// Shard `index` (1-based) of `count`: the files, in path order, whose position modulo `count` is `index - 1`.
    package var shard: (index: Int, count: Int)?

    /// Creates a selection.
    package init(filter: String? = nil, shard: (index: Int, count: Int)? = nil) {
      self.filter = filter
      self.shard = shard
    }

    /// Whether a file (its path and raw bytes) passes the filter. Only the `scenario:` line is looked at, so a file
    /// outside the filter is never parsed and cannot block the run.
    func matches(_ file: String, _ bytes: [UInt8]) -> Bool {
      guard let filter, !filter.isEmpty else { return true }
      let needle = filter.lowercased()
      if file.lowercased().contains(needle) { return true }
      let text = String(decoding: bytes, as: UTF8.self)
      for line in text.split(whereSeparator: \.isNewline) {
        let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\u{FEFF}" }
        if trimmed.lowercased().hasPrefix("scenario:") { return trimmed.lowercased().contains(needle) }
      }
      return false
    }
  }

  /// Expands `paths` (files and directories, searched recursively for `*.scenario`) and parses every file.
  package static func load(_ paths: [String]) -> Loaded { load(paths, selecting: Selection()) }

  /// Expands `paths`, keeps the files `selection` picks — the filter first, then the shard of what is left — and
  /// parses only those.
  package static func load(_ paths: [String], selecting selection: Selection) -> Loaded {
    var files: [String] = []
    var unreadable: [String] = []
    for path in paths {
      let clean = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
      if Posix.directoryExists(clean) {
        files += scenarioFiles(in: clean)
      } else if Posix.exists(clean) {
        files.append(clean)
      } else {
        unreadable.append("\(clean): no such file or directory")
      }
    }
    var loaded = Loaded(scenarios: [], diagnostics: [], unreadable: unreadable)
    var selected: [(file: String, bytes: [UInt8])] = []
    for file in files {
      guard let bytes = try? Posix.readFile(file) else {
        loaded.unreadable.append("\(file): cannot be read")
        continue
      }
      if selection.matches(file, bytes) { selected.append((file, bytes)) }
    }
    if let shard = selection.shard {
      selected = selected.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }
    for (file, bytes) in selected {
      switch ScenarioParser.parseAll(bytes: bytes, file: file, loader: .fileSystem) {
      case .success(let scenarios): loaded.scenarios += scenarios
      case .failure(let diagnostics): loaded.diagnostics += diagnostics.items
      }
    }
    return loaded
  }

  private static func scenarioFiles(in directory: String) -> [String] {
    var result: [String] = []
    for name in (try? Posix.listDirectory(directory)) ?? [] where !name.hasPrefix(".") {
      let path = directory + "/" + name
      if Posix.directoryExists(path) {
        result += scenarioFiles(in: path)
      } else if name.hasSuffix(".scenario") {
        result.append(path)
      }
    }
    return result.sorted()
  }

  /// Keeps the scenarios whose file path or title contains `filter` (case-insensitive).
  package static func filter(_ scenarios: [Scenario], _ filter: String?) -> [Scenario] {
    guard let filter, !filter.isEmpty else { return scenarios }
    let needle = filter.lowercased()
    return scenarios.filter { $0.file.lowercased().contains(needle) || $0.title.lowercased().contains(needle) }
  }

  /// The name of a scenario's directory under `--keep-failed`: its file name without `.scenario`.
  package static func keepName(_ file: String) -> String {
    let base = file.split(separator: "/").last.map(String.init) ?? file
    return base.hasSuffix(".scenario") ? String(base.dropLast(".scenario".count)) : base
  }

  /// ``keepName(_:)`` of each scenario, prefixed with its topic (`topic-name`) where file names repeat, and
  /// numbered where even that repeats: one directory per scenario.
  package static func keepNames(_ scenarios: [Scenario]) -> [String] {
    let bases = scenarios.map { keepName($0.file) }
    var counts: [String: Int] = [:]
    for base in bases { counts[base, default: 0] += 1 }
    var used: Set<String> = []
    return zip(scenarios, bases).map { scenario, base in
      var name = counts[base]! > 1 ? "\(scenario.group)-\(base)" : base
      var n = 2
      while used.contains(name) {
        name = (counts[base]! > 1 ? "\(scenario.group)-\(base)" : base) + "-\(n)"
        n += 1
      }
      used.insert(name)
      return name
    }
  }

  /// Runs scenarios on `jobs` worker threads; `progress` is called (from a worker) after each one. Results come
  /// back in the input order. After an interruption (``Interruption``) the scenario in progress ends
  /// `interrupted` as soon as its pair is stopped, and the rest are reported `interrupted` without running.
  package static func run(
    _ scenarios: [Scenario], seed: UInt64, jobs: Int, runner: ScenarioRunner,
    progress: @escaping @Sendable (_ done: Int, _ failed: Int, _ total: Int) -> Void = { _, _, _ in }
  ) -> [ScenarioResult] {
    let total = scenarios.count
    let names = keepNames(scenarios)
    let results = Mutex<[Int: ScenarioResult]>([:])
    let next = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)
    let workers = max(1, min(jobs, total))
    // Used pairs are discarded on the pool's retiring thread while the next scenario runs; `drain` below waits for
    // them, so none outlives the run.
    let runner = {
      var background = runner
      background.retiresInBackground = true
      return background
    }()
    // Pairs are prepared ahead for the scenarios still to run, and none is left waiting at the end.
    PreparedPairs.shared.expect(total)
    defer {
      PreparedPairs.shared.expect(nil)
      PreparedPairs.shared.drain()
    }
    for _ in 0..<workers {
      Posix.startThread {
        while true {
          let index = next.add(1, ordering: .relaxed).oldValue
          guard index < total else { break }
          // Once interrupted, the scenarios not started are reported as such, not run.
          let result =
            Interruption.isInterrupted
            ? ScenarioResult.notRun(scenarios[index], seed: seed)
            : runner.run(scenarios[index], seed: seed, keepName: names[index])
          let (count, failed) = results.withLock { r -> (Int, Int) in
            r[index] = result
            return (r.count, r.values.filter(\.failed).count)
          }
          progress(count, failed, total)
        }
        done.signal()
      }
    }
    for _ in 0..<workers { done.wait() }
    return results.withLock { r in (0..<total).map { r[$0]! } }
  }
}
