import HealthModel

/// A command: what it says about itself, how it reads its arguments, what it does.
///
/// `init` parses (through ``Arguments``, which throws ``CleanExit`` for `--help` and ``UsageError`` for mistakes);
/// `run` does the work and returns the exit status. Anything else `run` throws is reported as `error: …`, status 1.
package protocol ParsableCommand {
  /// The command's name, abstract, usage and discussion.
  static var configuration: CommandConfiguration { get }
  /// Parses `arguments` (without the program's and the command's names).
  init(_ arguments: [String]) throws
  /// Runs the command; returns the exit status.
  func run() throws -> Int32
}

/// An executable's command line: either one command (`healthpaird`) or a program with subcommands (`healthpair
/// up`, `healthpair run`). It answers `--help` and `--version`, dispatches, and turns errors into messages and exit
/// statuses — the same way for every executable. It writes only through the two functions it is given.
package struct CommandProgram {
  /// What the program is.
  private enum Shape {
    case single(any ParsableCommand.Type)
    case group(abstract: String, [any ParsableCommand.Type])
  }

  /// The executable's name.
  package let name: String
  /// The version `--version` prints after the name.
  package let version: String?
  private let shape: Shape

  /// A program that is one command (its configuration's `program` names the executable).
  package init(command: any ParsableCommand.Type, version: String? = nil) {
    name = command.configuration.program
    self.version = version
    shape = .single(command)
  }

  /// A program with subcommands, listed in help in the order given.
  package init(name: String, abstract: String, version: String? = nil, subcommands: [any ParsableCommand.Type]) {
    self.name = name
    self.version = version
    shape = .group(abstract: abstract, subcommands)
  }

  /// The subcommands (empty for a program that is one command).
  package var subcommands: [any ParsableCommand.Type] {
    if case .group(_, let commands) = shape { return commands }
    return []
  }

  /// The program's own help: its command's, or the list of subcommands.
  package var help: String {
    switch shape {
    case .single(let command): return command.configuration.help
    case .group(let abstract, let commands):
      var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(name) <command> [options]\n\nCOMMANDS:\n"
      for c in commands { text += "  " + c.configuration.name.padding(12) + c.configuration.abstract + "\n" }
      text += "\n  See '\(name) <command> --help' for a command's options.\n"
      return text
    }
  }

  /// Runs the program with `arguments` (without the program's name) and returns its exit status: 0 for help and
  /// version, 64 for a usage error, 1 for any other error a command throws, else what the command returns.
  package func main(
    _ arguments: [String], standardOutput: (String) -> Void, standardError: (String) -> Void
  ) -> Int32 {
    if version != nil, arguments.first == "--version" {
      standardOutput("\(name) \(version ?? "")\n")
      return 0
    }
    let commands: [any ParsableCommand.Type]
    switch shape {
    case .single(let command): return Self.run(command, arguments, standardOutput, standardError)
    case .group(_, let list): commands = list
    }
    var arguments = arguments
    if arguments.first == "help", arguments.count > 1 {
      // `help <command>` is `<command> --help`.
      arguments = [arguments[1], "--help"]
    }
    guard let first = arguments.first else {
      standardError(help)
      return 64
    }
    if first == "--help" || first == "-h" || first == "help" {
      standardOutput(help)
      return 0
    }
    guard let command = commands.first(where: { $0.configuration.name == first }) else {
      let suggestion = suggest(first, from: commands.map { $0.configuration.name }).map { " (did you mean '\($0)'?)" }
      standardError("error: unknown command '\(first)'\(suggestion ?? "")\n\n" + help)
      return 64
    }
    return Self.run(command, Array(arguments.dropFirst()), standardOutput, standardError)
  }

  private static func run(
    _ command: any ParsableCommand.Type, _ arguments: [String], _ standardOutput: (String) -> Void,
    _ standardError: (String) -> Void
  ) -> Int32 {
    do {
      return try command.init(arguments).run()
    } catch let exit as CleanExit {
      standardOutput(exit.text)
      return 0
    } catch let usage as UsageError {
      standardError(usage.description)
      return usage.exitCode
    } catch {
      standardError("error: \(error)\n")
      return 1
    }
  }

}
