import CommandLineKit
import HealthModel
import Posix

/// `healthpair-fuzz`'s command line: the fuzz targets as one binary.
///
/// Built with `-sanitize=fuzzer -DLIBFUZZER` (`make fuzz`), whatever follows the target that is not one of its
/// options goes to libFuzzer (`-max_total_time=60`, corpus directories); the executable runs libFuzzer's driver
/// itself. In any other build the target runs on seeded mutations of its seed inputs.
package struct FuzzCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    program: "healthpair-fuzz",
    abstract: "Run a fuzz target: seeded mutations in any build, coverage-guided under libFuzzer (make fuzz).",
    usage: "<target> [--runs <n>] [--seed <s>] [--write-corpus <dir>] [libFuzzer options]",
    discussion: """
      TARGETS: \(FuzzTargets.names.joined(separator: ", ")).

      OPTIONS:
        --runs <n>           Seeded mode: how many inputs (default 10000). A quarter are random bytes, the rest
                             mutations of the target's valid seed inputs.
        --seed <s>           Seeded mode: the mutator's seed (default 1). The same seed gives the same inputs.
        --write-corpus <dir> Write the target's valid seed inputs into <dir>, one file each, and exit.

      Built with -sanitize=fuzzer -DLIBFUZZER (make fuzz), the arguments after the target that are not these
      options are libFuzzer's (-max_total_time=60, corpus directories) and the target runs coverage-guided.
      Seed inputs include the scenario files under ./Scenarios when run from the repository.
      EXIT STATUS: 0 no crash, 64 usage; a crash ends the process (libFuzzer keeps the input).
      """)

  /// The target's name (one of ``FuzzTargets/names``).
  package var target: String
  /// `--write-corpus`: where to write the seed inputs instead of fuzzing.
  package var corpusDirectory: String?
  /// Seeded mode: how many inputs.
  package var runs = 10_000
  /// Seeded mode: the mutator's seed.
  package var seed: UInt64 = 1
  /// libFuzzer's arguments (only in a `-DLIBFUZZER` build; empty otherwise).
  package var engineArguments: [String] = []

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    corpusDirectory = try args.option("write-corpus")
    runs = try args.intOption("runs", range: 0...Int.max) ?? runs
    if let text = try args.option("seed") {
      guard let value = UInt64(text) else {
        throw args.error("invalid value '\(text)' for '--seed': expected a non-negative integer")
      }
      seed = value
    }
    let name = try args.required("target (\(FuzzTargets.names.joined(separator: ", ")))")
    guard FuzzTargets.names.contains(name) else {
      let suggestion = suggest(name, from: FuzzTargets.names).map { " (did you mean '\($0)'?)" } ?? ""
      throw args.error(
        "unknown target '\(name)'\(suggestion): expected \(FuzzTargets.names.joined(separator: ", "))")
    }
    target = name
    #if LIBFUZZER
      engineArguments = try args.rest()
    #else
      try args.finish()
    #endif
  }

  /// Writes the corpus, or runs the seeded mutations and reports.
  package func run() throws -> Int32 {
    if let corpusDirectory {
      try Posix.makeDirectory(corpusDirectory, mode: 0o755)
      for (i, seed) in FuzzTargets.seeds(target, scenarioFiles: Self.scenarioFiles()).enumerated() {
        try Posix.writeFileAtomically("\(corpusDirectory)/seed-\(i)", seed, mode: 0o644)
      }
      return 0
    }
    var mutator = Mutator(seed: seed)
    let seeds = FuzzTargets.seeds(target, scenarioFiles: Self.scenarioFiles())
    for run in 0..<runs {
      FuzzTargets.run(target, run % 4 == 0 ? mutator.random(maxLength: 512) : mutator.mutate(seeds))
    }
    Posix.writeStandardOutput("\(target): \(runs) inputs, no crash (seed \(seed))\n")
    return 0
  }

  /// The texts of `Scenarios/*/*.scenario` under the current directory (none elsewhere).
  package static func scenarioFiles() -> [String] {
    guard let names = try? Posix.listDirectory("Scenarios") else { return [] }
    var texts: [String] = []
    for group in names.sorted() where Posix.directoryExists("Scenarios/" + group) {
      for file in ((try? Posix.listDirectory("Scenarios/" + group)) ?? []).sorted() where file.hasSuffix(".scenario") {
        if let bytes = try? Posix.readFile("Scenarios/\(group)/\(file)") {
          texts.append(String(decoding: bytes, as: UTF8.self))
        }
      }
    }
    return texts
  }
}
