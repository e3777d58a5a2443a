// healthpair-fuzz: the fuzz targets as one binary.
//
//   healthpair-fuzz <target> --runs <n> [--seed <s>]    seeded mutations and random inputs (any build)
//   healthpair-fuzz <target> --write-corpus <dir>       the valid seed inputs, one file each
//   healthpair-fuzz <target> [libFuzzer options]        coverage-guided, when built with -sanitize=fuzzer -DLIBFUZZER
//
// Targets: frames, messages, journal, snapshot, scenario.
import FuzzTargets
import Posix

#if canImport(Glibc)
  import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
guard let target = arguments.first, FuzzTargets.names.contains(target) else {
  Posix.writeStandardError(
    "usage: healthpair-fuzz <\(FuzzTargets.names.joined(separator: "|"))> [--runs <n>] [--seed <s>] [--write-corpus <dir>] [libFuzzer options]\n"
  )
  exit(64)
}
arguments.removeFirst()

func scenarioFiles() -> [String] {
  guard let names = try? Posix.listDirectory("Scenarios") else { return [] }
  var texts: [String] = []
  for group in names where Posix.directoryExists("Scenarios/" + group) {
    for file in (try? Posix.listDirectory("Scenarios/" + group)) ?? [] where file.hasSuffix(".scenario") {
      if let bytes = try? Posix.readFile("Scenarios/\(group)/\(file)") {
        texts.append(String(decoding: bytes, as: UTF8.self))
      }
    }
  }
  return texts
}

if let index = arguments.firstIndex(of: "--write-corpus"), index + 1 < arguments.count {
  let dir = arguments[index + 1]
  try Posix.makeDirectory(dir, mode: 0o755)
  for (i, seed) in FuzzTargets.seeds(target, scenarioFiles: scenarioFiles()).enumerated() {
    try Posix.writeFileAtomically("\(dir)/seed-\(i)", seed, mode: 0o644)
  }
  exit(0)
}

#if LIBFUZZER
  @_silgen_name("LLVMFuzzerRunDriver")
  func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  nonisolated(unsafe) var selected = "frames"  // Written once before libFuzzer starts; read by its single thread.

  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.run(selected, size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
  }

  selected = target
  // libFuzzer sees argv without the target name.
  var argv: [UnsafeMutablePointer<CChar>?] = ([CommandLine.arguments[0]] + arguments).map { strdup($0) } + [nil]
  var argc = Int32(argv.count - 1)
  let status = argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
    var pointer = buffer.baseAddress!
    return LLVMFuzzerRunDriver(&argc, &pointer, fuzzOne)
  }
  exit(status)
#else
  var runs = 10_000
  var seed: UInt64 = 1
  var i = 0
  while i < arguments.count {
    if arguments[i] == "--runs", i + 1 < arguments.count, let n = Int(arguments[i + 1]) {
      runs = n
      i += 1
    } else if arguments[i] == "--seed", i + 1 < arguments.count, let s = UInt64(arguments[i + 1]) {
      seed = s
      i += 1
    }
    i += 1
  }
  var mutator = Mutator(seed: seed)
  let seeds = FuzzTargets.seeds(target, scenarioFiles: scenarioFiles())
  for run in 0..<runs {
    FuzzTargets.run(target, run % 4 == 0 ? mutator.random(maxLength: 512) : mutator.mutate(seeds))
  }
  Posix.writeStandardOutput("\(target): \(runs) inputs, no crash (seed \(seed))\n")
#endif
