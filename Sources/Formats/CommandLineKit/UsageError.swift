/// Where in a command's arguments a usage error was found.
package struct ArgumentLocation: Sendable, Hashable {
  /// The command's arguments (without the program's and the subcommand's names).
  package var arguments: [String]
  /// The index of the argument at fault; `arguments.count` for "after the last one" (something is missing).
  package var index: Int

  /// Creates a location.
  package init(arguments: [String], index: Int) {
    self.arguments = arguments
    self.index = min(max(0, index), arguments.count)
  }

  /// The command line as typed, shell-quoted where needed, and a caret line under the argument at fault:
  ///
  /// ```
  ///   healthpair up --bogus
  ///                 ^~~~~~~
  /// ```
  package func rendered(invocation: String) -> String {
    var line = "  " + invocation
    var column = line.count + 1
    var width = 1
    for (i, argument) in arguments.enumerated() {
      let shown = Self.quoted(argument)
      if i == index {
        column = line.count + 1
        width = max(1, shown.count)
      }
      line += " " + shown
    }
    if index == arguments.count { column = line.count + 1 }
    let caret = String(repeating: " ", count: column) + "^" + String(repeating: "~", count: width - 1)
    return line + "\n" + caret + "\n"
  }

  /// `argument`, single-quoted when a shell would split or expand it.
  static func quoted(_ argument: String) -> String {
    let plain =
      !argument.isEmpty
      && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%^".contains($0) }
    return plain ? argument : "'" + argument.replacingOccurrences("'", with: "'\\''") + "'"
  }
}

extension String {
  /// The string with every `target` replaced (FoundationEssentials-free).
  fileprivate func replacingOccurrences(_ target: Character, with replacement: String) -> String {
    var result = ""
    for character in self { if character == target { result += replacement } else { result.append(character) } }
    return result
  }
}

/// A command-line usage mistake: the message, the command it concerns, where it is in the arguments, and the exit
/// status (64, `EX_USAGE`).
package struct UsageError: Error, Sendable, CustomStringConvertible {
  /// What is wrong, with the offending argument quoted (`unknown option '--bogus'`).
  package var message: String
  /// The configuration of the command being parsed.
  package var command: CommandConfiguration
  /// The exit status: 64 (`EX_USAGE`).
  package var exitCode: Int32
  /// The argument at fault, when known.
  package var location: ArgumentLocation?

  /// Creates an error.
  package init(_ message: String, command: CommandConfiguration, exitCode: Int32 = 64) {
    self.init(message, command: command, at: nil, exitCode: exitCode)
  }

  /// Creates an error about the argument at `location`.
  package init(_ message: String, command: CommandConfiguration, at location: ArgumentLocation?, exitCode: Int32 = 64) {
    self.message = message
    self.command = command
    self.exitCode = exitCode
    self.location = location
  }

  /// `error: message`, the command line with a caret under the argument at fault, the usage line and where to get
  /// help.
  package var description: String {
    var text = "error: \(message)\n"
    if let location { text += location.rendered(invocation: command.invocation) }
    text += "USAGE: \(command.program) \(command.usage)\n  See '\(command.invocation) --help'.\n"
    return text
  }
}

/// Help or version output that ends the program successfully.
package struct CleanExit: Error, Sendable {
  /// Text printed on standard output.
  package var text: String

  /// Creates the exit with its text.
  package init(text: String) { self.text = text }
}
