import HealthModel
import HealthPairClient
import PairProcesses
import Posix

/// The `healthpair` program: its subcommands, in help order. Help, dispatch and error reporting are
/// CommandLineKit's ``CommandProgram``, shared with the other executables.
///
/// To add a command: write a `ParsableCommand` (a `configuration`, `init(_ arguments:)` parsing through
/// `Arguments`, `run()`), list it here, and add its help to Tests/CLITests/Golden (docs/architecture.md).
package enum HealthPairCommandLine {
  /// The version `--version` prints (``HealthPairVersion/current``).
  package static var version: String { HealthPairVersion.current }

  /// Every subcommand, in help order.
  package static var commands: [any ParsableCommand.Type] {
    [
      RunCommand.self, UpCommand.self, DownCommand.self, RestartCommand.self, StatusCommand.self, CtlCommand.self,
      ImportCommand.self, ExportCommand.self, ChaosCommand.self, SimulateCommand.self, LoadCommand.self,
      DemoCommand.self,
    ]
  }

  /// The program: `healthpair <command> [options]`.
  package static var program: CommandProgram {
    CommandProgram(
      name: "healthpair", abstract: "HealthPair — a simulated iPhone + Apple Watch HealthKit pair for Linux CI.",
      version: version, subcommands: commands)
  }

  /// The top-level help text.
  package static var help: String { program.help }

  /// Runs `arguments` (without the program name) and returns the exit status. SIGINT and SIGTERM interrupt any
  /// command (``Interruption``): its pairs are stopped and the directories it made removed, then it prints
  /// `interrupted by SIGINT` and exits 130 (143 for SIGTERM) — `run` after writing its partial reports.
  /// A signal the process was started ignoring (a background job of a non-interactive shell ignores SIGINT) stays
  /// ignored.
  package static func main(_ arguments: [String]) -> Int32 {
    Interruption.install(ending: .exitStatus, onlyIfDefault: true)
    // An error a command meets once interrupted (its pairs stopped under it) is the interruption's doing: the
    // interrupted line reports it, not the error.
    let status = program.main(arguments, standardOutput: out) { text in if !Interruption.isInterrupted { err(text) } }
    Interruption.endIfInterrupted()
    return status
  }
}
