/// What a command says about itself: the program it belongs to, its name, a one-line abstract, the usage line and a
/// discussion (options, examples). Help, usage errors and the parent's command list are all rendered from it.
///
/// A subcommand (`healthpair up`) has a `name` of its own; a program that is one command (`healthpaird`) has its
/// program's name. `usage` never repeats the program's name: `up [--dir <dir>]` for `healthpair up`, `--device
/// <phone|watch> --dir <dir> …` for `healthpaird`.
package struct CommandConfiguration: Sendable {
  /// The executable's name (`healthpair`, `healthpaird`).
  package var program: String
  /// The command's name as typed (`up`, `ctl`); the program's name for a program that is one command.
  package var name: String
  /// One line: the parent's command list shows it, and help starts with it.
  package var abstract: String
  /// The usage line without the program's name (`up [--dir <dir>]`).
  package var usage: String
  /// Longer help: arguments, options, exit statuses and examples, as displayed.
  package var discussion: String

  /// Creates the configuration of a `healthpair` subcommand.
  package init(name: String, abstract: String, usage: String, discussion: String = "") {
    self.init(program: "healthpair", name: name, abstract: abstract, usage: usage, discussion: discussion)
  }

  /// Creates the configuration of a command of `program`; without `name`, of the program itself.
  package init(program: String, name: String? = nil, abstract: String, usage: String, discussion: String = "") {
    self.program = program
    self.name = name ?? program
    self.abstract = abstract
    self.usage = usage
    self.discussion = discussion
  }

  /// Whether this is the program itself rather than one of its subcommands.
  package var isProgram: Bool { name == program }

  /// How the command is invoked: `healthpair up`, or `healthpaird`.
  package var invocation: String { isProgram ? program : "\(program) \(name)" }

  /// The full help text: overview, usage and the discussion.
  package var help: String {
    var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(program) \(usage)\n"
    if !discussion.isEmpty { text += "\n" + discussion + "\n" }
    return text
  }

  /// Every `--option` the usage line and the discussion mention, in order of first mention: what an unknown option
  /// is compared with for a "did you mean".
  package var mentionedOptions: [String] {
    var names: [String] = []
    var seen: Set<String> = []
    for text in [usage, discussion] {
      let characters = Array(text)
      var i = 0
      while i + 2 < characters.count {
        guard characters[i] == "-", characters[i + 1] == "-", i == 0 || characters[i - 1] != "-" else {
          i += 1
          continue
        }
        var end = i + 2
        while end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "-" {
          end += 1
        }
        let word = String(characters[(i + 2)..<end])
        i = end
        guard let first = word.first, first.isLetter, !word.hasSuffix("-") else { continue }
        if seen.insert(word).inserted { names.append(word) }
      }
    }
    return names
  }
}

extension String {
  /// The string padded with spaces to `width`, or followed by one space when it is already that wide.
  package func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
