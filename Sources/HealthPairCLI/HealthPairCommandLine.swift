import HealthModel
import Posix

/// The `healthpair` program: dispatches to a subcommand and turns errors into messages and exit statuses.
package enum HealthPairCommandLine {
  /// The version `--version` prints (``HealthPairVersion/current``).
  package static var version: String { HealthPairVersion.current }

  /// Every subcommand, in help order.
  package static let commands: [CommandConfiguration] = [
    RunCommand.configuration, UpCommand.configuration, DownCommand.configuration, RestartCommand.configuration,
    StatusCommand.configuration, CtlCommand.configuration,
    ChaosCommand.configuration, SimulateCommand.configuration, LoadCommand.configuration, DemoCommand.configuration,
  ]

  /// The top-level help text.
  package static var help: String {
    var text = "OVERVIEW: HealthPair — a simulated iPhone + Apple Watch HealthKit pair for Linux CI.\n\n"
    text += "USAGE: healthpair <command> [options]\n\nCOMMANDS:\n"
    for c in commands { text += "  " + c.name.padding(12) + c.abstract + "\n" }
    text += "\n  See 'healthpair <command> --help' for a command's options.\n"
    return text
  }

  /// Runs `arguments` (without the program name) and returns the exit status.
  package static func main(_ arguments: [String]) -> Int32 {
    guard let name = arguments.first else {
      err(help)
      return 64
    }
    if name == "--help" || name == "-h" || name == "help" {
      out(help)
      return 0
    }
    if name == "--version" {
      out("healthpair \(version)\n")
      return 0
    }
    let rest = Array(arguments.dropFirst())
    do {
      switch name {
      case "demo": return try DemoCommand(rest).run()
      case "run": return try RunCommand(rest).run()
      case "up": return try UpCommand(rest).run()
      case "down": return try DownCommand(rest).run()
      case "restart": return try RestartCommand(rest).run()
      case "status": return try StatusCommand(rest).run()
      case "ctl": return try CtlCommand(rest).run()
      case "chaos": return try ChaosCommand(rest).run()
      case "simulate": return try SimulateCommand(rest).run()
      case "load": return try LoadCommand(rest).run()
      default:
        let known = commands.map(\.name)
        let suggestion = suggest(name, from: known).map { " (did you mean '\($0)'?)" } ?? ""
        err("error: unknown command '\(name)'\(suggestion)\n\n" + help)
        return 64
      }
    } catch let exit as CleanExit {
      out(exit.text)
      return 0
    } catch let usage as UsageError {
      err(usage.description)
      return usage.exitCode
    } catch {
      err("error: \(error)\n")
      return 1
    }
  }
}

extension String {
  /// The string padded with spaces to `width`.
  package func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
