import Testing

@testable import HealthModel
@testable import Posix

/// The four executables share one command model: the same version line, the same usage errors (located, with a
/// "did you mean", exit 64) and the same pointer to help.
@Suite("Command line: every executable")
struct ExecutablesTests {
  @Test(arguments: ["healthpair", "healthpaird", "healthpair-bench", "healthpair-fuzz"])
  func versionIsTheOneVersion(_ executable: String) throws {
    let result = try runBuilt(executable, ["--version"])
    #expect(result.status == 0 && result.out == "\(executable) \(HealthPairVersion.current)\n" && result.err.isEmpty)
  }

  @Test(
    "Usage errors: located, suggested, exit 64",
    arguments: [
      (
        "healthpaird", ["--device", "phone", "--dir", "/tmp/x", "--fsycn"],
        "error: unknown option '--fsycn' (did you mean '--fsync'?)\n"
          + "  healthpaird --device phone --dir /tmp/x --fsycn\n"
          + "                                          ^~~~~~~\n"
          + "USAGE: healthpaird --device <phone|watch> --dir <dir> [--peer <socket> --pairing-key <file>] [options]\n"
          + "  See 'healthpaird --help'.\n"
      ),
      (
        "healthpaird", ["--device", "tablet", "--dir", "/tmp/x"],
        "error: invalid value 'tablet' for '--device': expected 'phone' or 'watch'\n"
          + "  healthpaird --device tablet --dir /tmp/x\n" + "                       ^~~~~~\n"
      ),
      (
        "healthpaird", ["--device", "phone", "--dir", "/tmp/x", "--peer", "/tmp/p"],
        "error: '--peer' needs '--pairing-key'\n"
      ),
      ("healthpair-bench", ["--only", "sink"], "error: unknown benchmark 'sink' (did you mean 'sync'?): expected "),
      (
        "healthpair-bench", ["--snapshot-samples", "0"],
        "error: invalid value '0' for '--snapshot-samples': expected an integer of at least 1\n"
          + "  healthpair-bench --snapshot-samples 0\n" + "                                      ^\n"
      ),
      (
        "healthpair-fuzz", ["frame", "--runs", "1"],
        "error: unknown target 'frame' (did you mean 'frames'?): expected frames, messages, journal, snapshot, "
          + "scenario, requests, export\n  healthpair-fuzz frame --runs 1\n" + "                  ^~~~~\n"
      ),
      ("healthpair-fuzz", ["frames", "--runs", "-1"], "error: invalid value '-1' for '--runs'"),
      (
        "healthpair", ["status", "--jsn"],
        "error: unknown option '--jsn' (did you mean '--json'?)\n  healthpair status --jsn\n"
          + "                    ^~~~~\nUSAGE: healthpair status [--dir <dir>] [--json]\n"
          + "  See 'healthpair status --help'.\n"
      ),
    ])
  func usageErrors(_ executable: String, _ arguments: [String], _ expected: String) throws {
    let result = try runBuilt(executable, arguments)
    #expect(result.status == 64, "\(result.err)")
    #expect(result.err.hasPrefix(expected), "\(result.err)")
    #expect(result.err.hasSuffix("See '\(executable) \(arguments[0] == "status" ? "status " : "")--help'.\n"))
    #expect(result.out.isEmpty)
  }

  @Test func theFuzzerRunsSeededMutationsAndWritesItsCorpus() throws {
    let run = try runBuilt("healthpair-fuzz", ["frames", "--runs", "50", "--seed", "3"])
    #expect(run.status == 0 && run.out == "frames: 50 inputs, no crash (seed 3)\n", "\(run)")
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-corpus")
    defer { Posix.removeTree(dir) }
    let corpus = try runBuilt("healthpair-fuzz", ["journal", "--write-corpus", dir + "/seeds"])
    #expect(corpus.status == 0 && corpus.err.isEmpty, "\(corpus)")
    let files = try Posix.listDirectory(dir + "/seeds")
    #expect(!files.isEmpty && files.allSatisfy { $0.hasPrefix("seed-") }, "\(files)")
  }
}
