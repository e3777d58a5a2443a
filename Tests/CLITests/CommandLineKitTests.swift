import CommandLineKit
import Testing

/// A command to drive the shared command model in-process.
private struct Greet: ParsableCommand {
  static let configuration = CommandConfiguration(
    program: "tool", name: "greet", abstract: "Say hello.", usage: "greet <name> [--loud] [--times <n>]",
    discussion: "OPTIONS:\n  --loud         Shout.\n  --times <n>    Say it n times (1...3).")

  var name: String
  var loud: Bool
  var times: Int

  init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    loud = args.flag("loud")
    times = try args.intOption("times", range: 1...3) ?? 1
    name = try args.required("name")
    guard name != "nobody" else { throw args.error("unknown person '\(name)'") }
    try args.finish()
  }

  func run() throws -> Int32 {
    if name == "fail" { throw Failure() }
    return Int32(times) + (loud ? 10 : 0)
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String { "it went wrong" }
  }
}

/// A program that is one command.
private struct Solo: ParsableCommand {
  static let configuration = CommandConfiguration(
    program: "solo", abstract: "Do one thing.", usage: "--mode <fast|slow>", discussion: "  --mode <m>    How.")
  init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    let mode = try args.options("mode").last
    try args.finish()
    guard let mode else { throw args.error("missing '--mode'") }
    guard mode == "fast" || mode == "slow" else {
      throw args.error("invalid value '\(mode)' for '--mode': expected fast or slow")
    }
  }
  func run() throws -> Int32 { 0 }
}

/// Runs `program` in-process; returns the status and what it wrote.
private func run(_ program: CommandProgram, _ arguments: [String]) -> (status: Int32, out: String, err: String) {
  var out = ""
  var err = ""
  let status = program.main(arguments, standardOutput: { out += $0 }, standardError: { err += $0 })
  return (status, out, err)
}

private var group: CommandProgram {
  CommandProgram(name: "tool", abstract: "A tool.", version: "1.2.3", subcommands: [Greet.self])
}
private var solo: CommandProgram { CommandProgram(command: Solo.self, version: "1.2.3") }

@Suite("Command line: the shared command model")
struct CommandLineKitTests {
  @Test func optionsFlagsAndPositionalsParse() {
    #expect(run(group, ["greet", "ann"]).status == 1)
    #expect(run(group, ["greet", "--times", "3", "ann"]).status == 3)
    #expect(run(group, ["greet", "ann", "--times=2", "--loud", "--loud"]).status == 12, "a repeated flag is fine")
    #expect(run(group, ["greet", "--", "--loud"]).status == 1, "after --, an option-looking word is a name")
    #expect(run(group, ["greet", "ann", "--", "--times"]).status == 64, "…and not an option")
  }

  @Test func anUnknownOptionIsLocatedAndSuggestsTheNearest() {
    let result = run(group, ["greet", "bob", "--lod"])
    #expect(result.status == 64)
    #expect(
      result.err == """
        error: unknown option '--lod' (did you mean '--loud'?)
          tool greet bob --lod
                         ^~~~~
        USAGE: tool greet <name> [--loud] [--times <n>]
          See 'tool greet --help'.

        """)
    #expect(result.out.isEmpty)
  }

  @Test(
    "Each usage error points at the argument at fault",
    arguments: [
      (["--times"], "missing value for '--times'", "  tool greet --times\n             ^~~~~~~\n"),
      (
        ["bob", "--times", "9"], "invalid value '9' for '--times': expected an integer in 1...3",
        "  tool greet bob --times 9\n                         ^\n"
      ),
      ([], "missing name", "  tool greet\n             ^\n"),
      (["bob", "extra"], "unexpected argument: 'extra'", "  tool greet bob extra\n                 ^~~~~\n"),
      (["nobody"], "unknown person 'nobody'", "  tool greet nobody\n             ^~~~~~\n"),
      (["two words", "x"], "unexpected argument: 'x'", "  tool greet 'two words' x\n                         ^\n"),
    ])
  func usageErrorsAreLocated(_ arguments: [String], _ message: String, _ caret: String) {
    let result = run(group, ["greet"] + arguments)
    #expect(result.status == 64)
    #expect(result.err.hasPrefix("error: \(message)\n" + caret + "USAGE: tool greet "), "\(result.err)")
  }

  @Test func helpVersionAndUnknownCommands() {
    let help = run(group, ["--help"])
    #expect(help.status == 0)
    #expect(
      help.out == """
        OVERVIEW: A tool.

        USAGE: tool <command> [options]

        COMMANDS:
          greet       Say hello.

          See 'tool <command> --help' for a command's options.

        """)
    #expect(run(group, []).status == 64 && run(group, []).err == help.out, "no command: the help, as an error")
    let greet = run(group, ["greet", "bob", "--nope", "--help"])
    #expect(greet.status == 0 && greet.out == Greet.configuration.help, "--help wins over any mistake")
    #expect(run(group, ["help", "greet"]).out == greet.out)
    #expect(run(group, ["--version"]).out == "tool 1.2.3\n")
    let unknown = run(group, ["gret"])
    #expect(unknown.status == 64 && unknown.err.hasPrefix("error: unknown command 'gret' (did you mean 'greet'?)\n"))
    let failed = run(group, ["greet", "fail"])
    #expect(failed.status == 1 && failed.err == "error: it went wrong\n")
  }

  @Test func aProgramThatIsOneCommand() {
    #expect(run(solo, ["--mode", "fast"]).status == 0)
    #expect(run(solo, ["--mode", "slow", "--mode", "fast"]).status == 0, "a repeated option takes its last value")
    #expect(
      run(solo, ["-h"]).out == "OVERVIEW: Do one thing.\n\nUSAGE: solo --mode <fast|slow>\n\n  --mode <m>    How.\n")
    #expect(run(solo, ["--version"]).out == "solo 1.2.3\n")
    let bad = run(solo, ["--mode", "warp"])
    #expect(
      bad.err
        == "error: invalid value 'warp' for '--mode': expected fast or slow\n  solo --mode warp\n"
        + "              ^~~~\nUSAGE: solo --mode <fast|slow>\n  See 'solo --help'.\n")
    let typo = run(solo, ["--mdoe", "fast"])
    #expect(typo.status == 64 && typo.err.hasPrefix("error: unknown option '--mdoe' (did you mean '--mode'?)\n"))
  }

  @Test func theConfigurationNamesItsOptions() {
    #expect(Greet.configuration.mentionedOptions == ["loud", "times"])
    #expect(Greet.configuration.invocation == "tool greet")
    #expect(Solo.configuration.invocation == "solo" && Solo.configuration.isProgram)
  }
}
