import FoundationEssentials
import Testing

@testable import Posix

/// A temporary directory holding `files` (name → bytes); removed by the caller.
private func scenarioDirectory(_ files: [String: [UInt8]]) throws -> String {
  let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-scenarios")
  for (name, bytes) in files { try Posix.writeFileAtomically(dir + "/" + name, bytes) }
  return dir
}

/// A passing scenario, with CRLF line ends when `crlf`.
private func passing(crlf: Bool = false) -> [UInt8] {
  let text = """
    scenario: Line ends
    install Water on phone share dietaryWater
    phone: Water requests
    user on phone: allows all
    expect phone: Water share dietaryWater is sharingAuthorized

    """
  guard crlf else { return Array(text.utf8) }
  return Array(text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n").utf8)
}

@Suite("Command line: scenario input and 64-bit seeds")
struct InputAndSeedTests {
  @Test func aCRLFScenarioRunsEveryStepAndTheReportCountsThem() throws {
    let dir = try scenarioDirectory(["windows.scenario": passing(crlf: true)])
    defer { Posix.removeTree(dir) }
    let result = try healthpair(["run", dir, "--jobs", "1", "--junit", dir + "/junit.xml"])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.contains("Line ends  4 steps, 1 expectation"), "\(result.out)")
    #expect(result.out.contains("1 scenario, 4 steps, 1 expectation: 1 passed, 0 failed"), "\(result.out)")
    let junit = String(decoding: try Posix.readFile(dir + "/junit.xml"), as: UTF8.self)
    #expect(junit.contains("<property name=\"steps\" value=\"4\"/>"))
    #expect(junit.contains("<property name=\"expectations\" value=\"1\"/>"))
  }

  @Test(
    "A file that checks nothing is invalid input (exit 2), not a pass",
    arguments: [
      ("# only a comment\r\n# and another\r\n", "empty.scenario:2:14: error: the file has no steps"),
      ("", "empty.scenario:1:1: error: the file has no steps"),
      ("install Water on phone\nphone: Water requests\n", "empty.scenario:2:22: error: the scenario checks nothing"),
    ])
  func aFileThatChecksNothingExits2(_ text: String, _ message: String) throws {
    let dir = try scenarioDirectory(["empty.scenario": Array(text.utf8)])
    defer { Posix.removeTree(dir) }
    let result = try healthpair(["run", dir, "--jobs", "1"])
    #expect(result.status == 2)
    #expect(result.err.contains(message), "\(result.err)")
    #expect(result.err.contains("nothing was run"))
  }

  @Test func invalidUTF8IsALocatedErrorWithTheByteOffset() throws {
    var bytes = Array("install Water on phone\nexpect phone: Water share dietaryW".utf8)
    let offset = bytes.count
    bytes += [0xFF] + Array("ter is notDetermined\n".utf8)
    let dir = try scenarioDirectory(["latin.scenario": bytes])
    defer { Posix.removeTree(dir) }
    let result = try healthpair(["run", dir, "--jobs", "1"])
    #expect(result.status == 2)
    let located = "latin.scenario:2:35: error: invalid UTF-8 at byte offset \(offset) (0xFF)"
    #expect(result.err.contains(located), "\(result.err)")
    #expect(result.err.contains("\n" + String(repeating: " ", count: 34) + "^\n"), "a caret under the byte")
  }

  @Test func aLoneCarriageReturnIsALocatedError() throws {
    let dir = try scenarioDirectory(["mac.scenario": Array("install Water on phone\rexpect link is up\r".utf8)])
    defer { Posix.removeTree(dir) }
    let result = try healthpair(["run", dir, "--jobs", "1"])
    #expect(result.status == 2)
    #expect(result.err.contains("mac.scenario:1:23: error: carriage return without a line feed"), "\(result.err)")
  }

  @Test func runCarriesTheLargestSeedExactlyInJSON() throws {
    let dir = try scenarioDirectory(["seed.scenario": passing()])
    defer { Posix.removeTree(dir) }
    let result = try healthpair(["run", dir, "--json", "--jobs", "1", "--seed", "18446744073709551615"])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.hasPrefix("{\n  \"seed\": 18446744073709551615,"), "\(result.out)")
    #expect(result.out.contains("\"seed\": 18446744073709551615,\n      \"durationMs\""), "\(result.out)")
    #expect(result.out.contains("\"steps\": 4,\n      \"expectations\": 1,\n      \"trace\": ["), "\(result.out)")
    let human = try healthpair(["run", dir, "--jobs", "1", "--seed", "9223372036854775808"])
    #expect(human.status == 0 && human.out.contains("(seed 9223372036854775808, 1 job)"), "\(human.out)\(human.err)")
  }

  @Test func chaosRunsTheLargestSeeds() throws {
    let last = try healthpair(["chaos", "--seed", "18446744073709551615", "--steps", "1"])
    #expect(last.status == 0, "\(last.err)")
    #expect(last.out.contains("\n18446744073709551615  1 "), "\(last.out)")
    let two = try healthpair(["chaos", "--seed", "18446744073709551614", "--seeds", "2", "--steps", "1"])
    #expect(two.status == 0, "\(two.err)")
    #expect(two.out.contains("\n18446744073709551614  1 "), "\(two.out)")
    #expect(two.out.contains("\n18446744073709551615  1 "), "\(two.out)")
    let past = try healthpair(["chaos", "--seed", "18446744073709551615", "--seeds", "2", "--steps", "1"])
    #expect(past.status == 64)
    #expect(past.err.contains("runs past the largest seed"), "\(past.err)")
  }
}
