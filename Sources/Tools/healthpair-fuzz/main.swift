// healthpair-fuzz: the fuzz targets as one binary (FuzzTargets.FuzzCommand has the command line).
//
//   healthpair-fuzz <target> --runs <n> [--seed <s>]    seeded mutations and random inputs (any build)
//   healthpair-fuzz <target> --write-corpus <dir>       the valid seed inputs, one file each
//   healthpair-fuzz <target> [libFuzzer options]        coverage-guided, when built with -sanitize=fuzzer -DLIBFUZZER
import CommandLineKit
import FuzzTargets
import HealthModel
import Posix

#if canImport(Glibc)
  import Glibc
#endif

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

  /// The command, with libFuzzer's driver in place of the seeded mutations.
  struct CoverageGuided: ParsableCommand {
    static var configuration: CommandConfiguration { FuzzCommand.configuration }
    let command: FuzzCommand
    init(_ arguments: [String]) throws { command = try FuzzCommand(arguments) }
    func run() throws -> Int32 {
      if command.corpusDirectory != nil { return try command.run() }
      selected = command.target
      // libFuzzer sees argv without the target name and our options.
      var argv: [UnsafeMutablePointer<CChar>?] =
        ([CommandLine.arguments[0]] + command.engineArguments).map { strdup($0) } + [nil]
      var argc = Int32(argv.count - 1)
      return argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var pointer = buffer.baseAddress!
        return LLVMFuzzerRunDriver(&argc, &pointer, fuzzOne)
      }
    }
  }
  let program = CommandProgram(command: CoverageGuided.self, version: HealthPairVersion.current)
#else
  let program = CommandProgram(command: FuzzCommand.self, version: HealthPairVersion.current)
#endif

// exit, not _exit: libFuzzer's at-exit handlers (final statistics) must run.
exit(
  program.main(
    Array(CommandLine.arguments.dropFirst()), standardOutput: Posix.writeStandardOutput,
    standardError: Posix.writeStandardError))
