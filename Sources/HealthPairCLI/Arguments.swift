import Posix

/// What a command says about itself: name, one-line abstract, usage line and discussion.
package struct CommandConfiguration: Sendable {
  /// The command's name as typed (`up`, `ctl`).
  package var name: String
  /// One line shown in the parent's command list.
  package var abstract: String
  /// The usage line without the program name (`up [--dir DIR]`).
  package var usage: String
  /// Longer help: options and examples.
  package var discussion: String

  /// Creates a configuration.
  package init(name: String, abstract: String, usage: String, discussion: String = "") {
    self.name = name
    self.abstract = abstract
    self.usage = usage
    self.discussion = discussion
  }

  /// The full help text.
  package var help: String {
    var text = "OVERVIEW: \(abstract)\n\nUSAGE: healthpair \(usage)\n"
    if !discussion.isEmpty { text += "\n" + discussion + "\n" }
    return text
  }
}

/// A command-line usage mistake: the message, the usage of the command it concerns, and the exit status.
package struct UsageError: Error, Sendable, CustomStringConvertible {
  /// What is wrong, with the offending argument quoted.
  package var message: String
  /// The configuration of the command being parsed.
  package var command: CommandConfiguration
  /// The exit status (64, `EX_USAGE`, except `run`, which documents 2).
  package var exitCode: Int32

  /// Creates an error.
  package init(_ message: String, command: CommandConfiguration, exitCode: Int32 = 64) {
    self.message = message
    self.command = command
    self.exitCode = exitCode
  }

  /// `error: message` then the usage line and where to get help.
  package var description: String {
    "error: \(message)\nUSAGE: healthpair \(command.usage)\n  See 'healthpair \(command.name) --help'.\n"
  }
}

/// Help or version output that ends the program successfully.
package struct CleanExit: Error, Sendable {
  /// Text printed on standard output.
  package var text: String
}

/// A cursor over a command's arguments that remembers each argument's position for error messages.
///
/// Options are `--name value` or `--name=value`; flags are `--name`; `--` ends options.
package struct Arguments {
  private var items: [(index: Int, text: String)]
  private let configuration: CommandConfiguration
  private let exitCode: Int32

  /// Wraps `argv` (without the program and command names), for the command described by `configuration`.
  package init(_ arguments: [String], configuration: CommandConfiguration, usageExitCode: Int32 = 64) throws(CleanExit)
  {
    if arguments.contains("--help") || arguments.contains("-h") { throw CleanExit(text: configuration.help) }
    items = arguments.enumerated().map { ($0.offset + 1, $0.element) }
    self.configuration = configuration
    self.exitCode = usageExitCode
  }

  /// A usage error for this command.
  package func error(_ message: String) -> UsageError {
    UsageError(message, command: configuration, exitCode: exitCode)
  }

  /// Removes and returns the value of `--name` (nil when absent).
  package mutating func option(_ name: String) throws(UsageError) -> String? {
    guard let position = items.firstIndex(where: { $0.text == "--\(name)" || $0.text.hasPrefix("--\(name)=") }) else {
      return nil
    }
    let item = items.remove(at: position)
    if let equals = item.text.firstIndex(of: "=") { return String(item.text[item.text.index(after: equals)...]) }
    guard position < items.count, !items[position].text.hasPrefix("--") else {
      throw error("missing value for '--\(name)'")
    }
    return items.remove(at: position).text
  }

  /// Removes every `--name value` and returns the values in order.
  package mutating func options(_ name: String) throws(UsageError) -> [String] {
    var values: [String] = []
    while let v = try option(name) { values.append(v) }
    return values
  }

  /// Removes `--name` and says whether it was present.
  package mutating func flag(_ name: String) -> Bool {
    guard let position = items.firstIndex(where: { $0.text == "--\(name)" }) else { return false }
    items.remove(at: position)
    return true
  }

  /// Parses an integer option with bounds.
  package mutating func intOption(_ name: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = try option(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw error(
        "invalid value '\(text)' for '--\(name)': expected an integer in \(range.lowerBound)...\(range.upperBound)")
    }
    return value
  }

  /// Removes and returns the next positional argument (nil when none is left).
  package mutating func positional() throws(UsageError) -> String? {
    if let terminator = items.firstIndex(where: { $0.text == "--" }) {
      if terminator == 0 {
        items.removeFirst()
        return items.isEmpty ? nil : items.removeFirst().text
      }
    }
    guard let first = items.first else { return nil }
    if first.text.hasPrefix("--") && first.text.count > 2 { throw error("unknown option '\(first.text)'") }
    return items.removeFirst().text
  }

  /// Removes and returns a required positional argument named `what`.
  package mutating func required(_ what: String) throws(UsageError) -> String {
    guard let value = try positional() else { throw error("missing \(what)") }
    return value
  }

  /// Every remaining positional argument.
  package mutating func rest() throws(UsageError) -> [String] {
    var values: [String] = []
    while let v = try positional() { values.append(v) }
    return values
  }

  /// Fails when anything is left over (unknown options, extra arguments).
  package func finish() throws(UsageError) {
    guard let first = items.first else { return }
    if first.text.hasPrefix("--") { throw error("unknown option '\(first.text)'") }
    let extra = items.map { "'\($0.text)'" }.joined(separator: ", ")
    throw error("\(items.count == 1 ? "unexpected argument" : "\(items.count) unexpected arguments"): \(extra)")
  }
}

/// Writes to standard output.
package func out(_ text: String) { Posix.writeStandardOutput(text) }
/// Writes to standard error.
package func err(_ text: String) { Posix.writeStandardError(text) }
