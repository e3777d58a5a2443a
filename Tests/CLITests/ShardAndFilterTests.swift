import FoundationEssentials
import Testing

@testable import Posix

@Suite("Command line: shards and filters")
struct ShardAndFilterTests {
  /// A directory of small passing scenarios named s0…s(n-1), plus optional extra files.
  func suite(_ count: Int, extra: [String: String] = [:]) throws -> String {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-shard")
    for i in 0..<count {
      let text = """
        scenario: shard member \(i)
        install Water on phone share dietaryWater
        phone: Water requests
        expect phone: Water's request showed a sheet listing share dietaryWater

        """
      try Posix.writeFileAtomically("\(dir)/s\(i).scenario", Array(text.utf8))
    }
    for (name, text) in extra { try Posix.writeFileAtomically("\(dir)/\(name)", Array(text.utf8)) }
    return dir
  }

  func titles(_ out: String) -> Set<String> {
    Set(
      out.split(separator: "\n").compactMap { line in
        guard let range = line.range(of: "shard member ") else { return nil }
        return String(line[range.upperBound...].prefix { $0.isNumber })
      })
  }

  @Test func shardsAreDisjointDeterministicAndTogetherRunEverything() throws {
    let dir = try suite(7)
    defer { Posix.removeTree(dir) }
    var seen: [Set<String>] = []
    for k in 1...3 {
      let run = try healthpair(["run", dir, "--shard", "\(k)/3", "--jobs", "2"])
      #expect(run.status == 0, "\(run.err)")
      let again = try healthpair(["run", dir, "--shard", "\(k)/3", "--jobs", "1"])
      #expect(titles(again.out) == titles(run.out), "the same shard twice runs the same scenarios")
      seen.append(titles(run.out))
    }
    #expect(seen.map(\.count) == [3, 2, 2])
    #expect(seen[0].isDisjoint(with: seen[1]) && seen[0].isDisjoint(with: seen[2]) && seen[1].isDisjoint(with: seen[2]))
    #expect(seen[0].union(seen[1]).union(seen[2]) == Set((0..<7).map(String.init)))
  }

  @Test func aBadShardIsAUsageError() throws {
    for bad in ["0/3", "4/3", "1/0", "x", "1/2/3"] {
      let run = try healthpair(["run", "Scenarios", "--shard", bad])
      #expect(run.status == 64 && run.err.contains("--shard"), "\(bad): \(run.err)")
    }
  }

  @Test func aBrokenFileOutsideTheFilterDoesNotBlockTheRun() throws {
    let dir = try suite(2, extra: ["broken.scenario": "scenario: broken\nthis is not a step\n"])
    defer { Posix.removeTree(dir) }
    let filtered = try healthpair(["run", dir, "--filter", "member 1"])
    #expect(filtered.status == 0, "\(filtered.err)")
    #expect(titles(filtered.out) == ["1"])
    let inside = try healthpair(["run", dir, "--filter", "broken"])
    #expect(inside.status == 2 && inside.err.contains("broken.scenario:2"), "\(inside.err)")
  }
}

@Suite("Command line: includes and outlines")
struct IncludeAndOutlineTests {
  @Test func includedFilesAreNotRunAndOutlinesRunOncePerRow() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-include")
    defer { Posix.removeTree(dir) }
    let files = [
      "shared/setup.steps": "install Water on phone and watch share dietaryWater\n",
      "a.scenario": "scenario: included set-up\ninclude shared/setup.steps\nexpect both: Water is not locked out\n",
      "o.scenario": """
      scenario: outline on the <device>
      examples:
        device
        phone
        watch
      include shared/setup.steps
      <device>: Water requests
      expect <device>: Water's request showed a sheet listing share dietaryWater

      """,
    ]
    try Posix.makeDirectory(dir + "/shared", mode: 0o755)
    for (name, text) in files { try Posix.writeFileAtomically("\(dir)/\(name)", Array(text.utf8)) }
    let run = try healthpair(["run", dir])
    #expect(run.status == 0, "\(run.out)\n\(run.err)")
    #expect(run.out.contains("3 scenarios"), "the .steps file is not a scenario; the outline is two")
    #expect(run.out.contains("outline on the phone") && run.out.contains("outline on the watch"))

    try Posix.writeFileAtomically(
      dir + "/broken.scenario", Array("include shared/setpu.steps\nexpect link is up\n".utf8))
    try Posix.writeFileAtomically(dir + "/shared/bad.steps", Array("phone: Watr requests\n".utf8))
    try Posix.writeFileAtomically(
      dir + "/worse.scenario", Array("include shared/setup.steps\ninclude shared/bad.steps\nexpect link is up\n".utf8))
    let broken = try healthpair(["run", dir])
    #expect(broken.status == 2)
    #expect(
      broken.err.contains(
        "broken.scenario:1:9: error: cannot include 'shared/setpu.steps': no such file (did you mean 'shared/setup.steps'?)"
      ),
      "\(broken.err)")
    #expect(broken.err.contains("shared/bad.steps:1:8: error: unknown app 'Watr'"), "\(broken.err)")
    #expect(broken.err.contains("worse.scenario:2:9: note: included from here"), "\(broken.err)")
  }
}

@Suite("Command line: one exit-code table")
struct ExitCodeTests {
  /// docs: README "Exit codes" — usage 64 for every command.
  @Test(arguments: ["demo", "run", "up", "down", "restart", "status", "ctl", "chaos", "load"])
  func anUnknownOptionIsAUsageErrorEverywhere(_ command: String) throws {
    let result = try healthpair([command, "--no-such-option"])
    #expect(result.status == 64, "\(command): \(result.status) \(result.err)")
    #expect(result.err.contains("--help"), "\(command) says where help is")
  }

  @Test func anUnknownCommandIsAUsageErrorAndVersionIsZero() throws {
    #expect(try healthpair(["no-such-command"]).status == 64)
    let version = try healthpair(["--version"])
    #expect(version.status == 0 && version.out.contains("0."))
  }
}
