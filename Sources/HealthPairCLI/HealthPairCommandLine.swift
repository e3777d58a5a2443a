import HealthModel
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
      ChaosCommand.self, SimulateCommand.self, LoadCommand.self, DemoCommand.self,
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

  /// Runs `arguments` (without the program name) and returns the exit status.
  package static func main(_ arguments: [String]) -> Int32 {
    program.main(arguments, standardOutput: out, standardError: err)
  }
}
