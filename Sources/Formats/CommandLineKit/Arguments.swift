import HealthModel

/// A cursor over a command's arguments that remembers where each one was, so every usage error points at the
/// argument at fault, and an unknown option is compared with the command's own for a "did you mean".
///
/// Options are `--name value` or `--name=value`; flags are `--name` (repeating one is harmless); `--` ends options.
/// `--help` or `-h` anywhere asks for the command's help (``CleanExit``). A command takes its options first, then
/// its positional arguments, then calls ``finish()`` so that nothing left over is silently ignored.
package struct Arguments {
  /// The arguments not consumed yet, with their positions in ``all``.
  private var items: [(index: Int, text: String)]
  /// Every argument as given.
  private let all: [String]
  /// Positions of the arguments consumed so far, in order.
  private var consumed: [Int] = []
  /// The options asked for so far (without `--`): candidates for a "did you mean".
  private var asked: [String] = []
  /// Whether the `--` that ends the options was consumed: every argument left is positional.
  private var optionsEnded = false
  private let configuration: CommandConfiguration
  private let exitCode: Int32

  /// Wraps `arguments` (without the program and command names) for the command described by `configuration`.
  /// - Throws: ``CleanExit`` with the command's help when `--help` or `-h` is among them.
  package init(_ arguments: [String], configuration: CommandConfiguration, usageExitCode: Int32 = 64) throws(CleanExit)
  {
    if arguments.contains("--help") || arguments.contains("-h") { throw CleanExit(text: configuration.help) }
    all = arguments
    items = arguments.enumerated().map { ($0.offset, $0.element) }
    self.configuration = configuration
    self.exitCode = usageExitCode
  }

  /// A usage error for this command. It points at the argument the message quotes (`invalid value 'loud' for
  /// '--log-level'` points at `loud`) when that argument was consumed already.
  package func error(_ message: String) -> UsageError {
    error(message, at: quotedArgument(in: message))
  }

  /// A usage error about the argument at position `index` (`all.count`: after the last one).
  private func error(_ message: String, at index: Int?) -> UsageError {
    UsageError(
      message, command: configuration, at: index.map { ArgumentLocation(arguments: all, index: $0) },
      exitCode: exitCode)
  }

  /// The position of the most recently consumed argument that the message's first quoted word names, either whole
  /// or as the value of `--name=value`.
  private func quotedArgument(in message: String) -> Int? {
    guard let open = message.firstIndex(of: "'") else { return nil }
    let after = message[message.index(after: open)...]
    guard let close = after.firstIndex(of: "'") else { return nil }
    let quoted = after[..<close]
    return consumed.last { index in
      let text = all[index]
      if text == quoted { return true }
      guard text.hasPrefix("--"), let equals = text.firstIndex(of: "=") else { return false }
      return text[text.index(after: equals)...] == quoted
    }
  }

  /// How many of the remaining arguments come before the `--` that ends the options.
  private var optionCount: Int { optionsEnded ? 0 : items.firstIndex { $0.text == "--" } ?? items.count }

  /// Removes and returns the value of `--name` (nil when absent).
  package mutating func option(_ name: String) throws(UsageError) -> String? {
    note(name)
    guard
      let position = items.prefix(optionCount).firstIndex(where: {
        $0.text == "--\(name)" || $0.text.hasPrefix("--\(name)=")
      })
    else { return nil }
    let item = items.remove(at: position)
    consumed.append(item.index)
    if let equals = item.text.firstIndex(of: "=") { return String(item.text[item.text.index(after: equals)...]) }
    guard position < items.count, !items[position].text.hasPrefix("--") else {
      throw error("missing value for '--\(name)'", at: item.index)
    }
    let value = items.remove(at: position)
    consumed.append(value.index)
    return value.text
  }

  /// Removes every `--name value` and returns the values in order.
  package mutating func options(_ name: String) throws(UsageError) -> [String] {
    var values: [String] = []
    while let v = try option(name) { values.append(v) }
    return values
  }

  /// Removes `--name` (every occurrence) and says whether it was present.
  package mutating func flag(_ name: String) -> Bool {
    note(name)
    var found = false
    while let position = items.prefix(optionCount).firstIndex(where: { $0.text == "--\(name)" }) {
      consumed.append(items.remove(at: position).index)
      found = true
    }
    return found
  }

  /// Parses an integer option with bounds.
  package mutating func intOption(_ name: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = try option(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      let expected =
        range.upperBound == Int.max
        ? "an integer of at least \(range.lowerBound)" : "an integer in \(range.lowerBound)...\(range.upperBound)"
      throw error("invalid value '\(text)' for '--\(name)': expected \(expected)", at: consumed.last)
    }
    return value
  }

  /// Removes and returns the next positional argument (nil when none is left).
  /// - Throws: an unknown option when the next argument is an option nobody asked for.
  package mutating func positional() throws(UsageError) -> String? {
    if !optionsEnded, items.first?.text == "--" {
      consumed.append(items.removeFirst().index)
      optionsEnded = true
    }
    guard let first = items.first else { return nil }
    if !optionsEnded && first.text.hasPrefix("--") { throw unknownOption(first) }
    items.removeFirst()
    consumed.append(first.index)
    return first.text
  }

  /// Removes and returns a required positional argument named `what`.
  package mutating func required(_ what: String) throws(UsageError) -> String {
    guard let value = try positional() else { throw error("missing \(what)", at: all.count) }
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
    if let first = items.prefix(optionCount).first, first.text.hasPrefix("--") { throw unknownOption(first) }
    var left = items  // what is left, but the `--` itself
    if !optionsEnded, let terminator = left.firstIndex(where: { $0.text == "--" }) { left.remove(at: terminator) }
    guard let first = left.first else { return }
    let extra = left.map { "'\($0.text)'" }.joined(separator: ", ")
    throw error(
      "\(left.count == 1 ? "unexpected argument" : "\(left.count) unexpected arguments"): \(extra)", at: first.index)
  }

  /// `unknown option '--x'`, with the nearest of the command's options when one is close.
  private func unknownOption(_ item: (index: Int, text: String)) -> UsageError {
    let name = String(item.text.prefix { $0 != "=" })
    let candidates = (asked + configuration.mentionedOptions).map { "--" + $0 }
    let suggestion = suggest(name, from: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    return error("unknown option '\(item.text)'\(suggestion)", at: item.index)
  }

  private mutating func note(_ name: String) {
    if !asked.contains(name) { asked.append(name) }
  }
}
