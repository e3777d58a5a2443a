import FoundationEssentials
import HealthCodec
import Posix
import Testing

@testable import FuzzTargets

/// The fuzz targets on seeded random and mutated inputs: deterministic, so a crash found here reproduces.
@Suite("Fuzz targets (seeded)")
struct FuzzTests {
  /// The daemon's request handling with extreme values: no crash, nothing non-finite stored, every journaled event
  /// survives its codec, and replay rebuilds the live state. A finding prints the input to replay it with.
  @Test func requestHandlingKeepsItsPropertiesUnderExtremeValues() async throws {
    let seeds = FuzzTargets.seeds("requests")
    let findings = try await Posix.onOwnThread {
      var mutator = Mutator(seed: 20_261_130)
      var findings: [String] = []
      for run in 0..<3000 where findings.count < 3 {
        let input =
          run < seeds.count ? seeds[run] : (run % 4 == 0 ? mutator.random(maxLength: 256) : mutator.mutate(seeds))
        if let finding = RequestFuzz.finding(input) {
          findings.append("\(finding)\n  input (base64): \(Data(input).base64EncodedString())")
        }
      }
      return findings
    }
    #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
  }

  /// Each decoding target on seeded random and mutated inputs keeps every property of ``FuzzProperties`` (the
  /// streaming decoder ignores chunking, messages re-encode stably, a journal's intact prefix re-frames to itself
  /// and recovers clean, every refusal is located inside the input) and does not crash. A finding prints the
  /// input to replay it with.
  @Test(arguments: FuzzTargets.names.filter { $0 != "requests" && $0 != "export" })
  func decodingTargetsKeepTheirPropertiesOnHostileInput(_ target: String) async throws {
    let seeds = FuzzTargets.seeds(target)
    let findings = try await Posix.onOwnThread {
      var mutator = Mutator(seed: 20_261_129)
      var findings: [String] = []
      for run in 0..<4000 where findings.count < 3 {
        let input = run % 4 == 0 ? mutator.random(maxLength: 512) : mutator.mutate(seeds)
        if let finding = FuzzProperties.finding(target, input) {
          findings.append("\(finding)\n  input (base64): \(Data(input).base64EncodedString())")
        } else {
          FuzzTargets.run(target, input)
        }
      }
      return findings
    }
    #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
  }

  /// The importer on seeded STRUCTURED inputs (``ExportFuzz``): valid zips with mutated header fields, sizes, zip64
  /// extras, CRCs and compressed bytes; XML nested past the bound, with huge attributes, many attributes, tens of
  /// thousands of sources, correlations of thousands of members. Each reads to a result or a typed, located error
  /// (a trap would end the test process), and every unmutated one reads. A finding prints the input.
  @Test func theImporterSurvivesSeededStructuredExports() async throws {
    let seeds = FuzzTargets.seeds("export")
    let findings = try await Posix.onOwnThread {
      var mutator = Mutator(seed: 20_261_201)
      var findings: [String] = []
      var refused = 0
      var read = 0
      for run in 0..<300 where findings.count < 3 {
        // Biased choice streams (structure), mutated seeds and random bytes.
        let input =
          run % 2 == 0
          ? ExportFuzz.choices(seed: 20_261_201 &+ UInt64(run), count: 64 + run % 192)
          : run % 4 == 1 ? mutator.mutate(seeds) : mutator.random(maxLength: 256)
        let (outcome, finding) = ExportFuzz.check(input)
        if let finding { findings.append("\(finding)\n  input (base64): \(Data(input).base64EncodedString())") }
        if case .read = outcome { read += 1 } else { refused += 1 }
      }
      if findings.isEmpty && (read == 0 || refused == 0) {
        findings.append("the generator is degenerate: \(read) read, \(refused) refused")
      }
      return findings
    }
    #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
  }

  /// The seed inputs are valid inputs — each decodes, scans clean, restores or parses — so mutations start from
  /// the formats' real shapes rather than from junk.
  @Test(arguments: FuzzTargets.names.filter { $0 != "requests" })
  func everySeedIsAValidInput(_ target: String) {
    let seeds = FuzzTargets.seeds(target)
    #expect(!seeds.isEmpty)
    for (i, seed) in seeds.enumerated() {
      #expect(FuzzProperties.accepts(target, seed), "seed \(i) of \(target) is refused")
      #expect(FuzzProperties.finding(target, seed) == nil)
    }
  }

  /// Inputs libFuzzer found crashing, kept so they never come back. Each is the target and the input in base64.
  static let regressions: [(target: String, base64: String, note: String)] = [
    (
      "messages",
      "AwMAAAAKAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMgC5ubm5ubm5ubm5ubm5ubm5uQAAAAAAAAAAAAEAAXL/Pw==",
      "a dump reply whose u64 sample count exceeds Int.max trapped in Int(_:)"
    ),
    (
      "export", "AAYA////AAAALwAAAADGxsbGxsbGxsbGxsbGxgB+AE4AAAACAAAAAAAAAE4AAAAAAAAAAAAAU3RyaW5n///4AAQAAA==",
      "a zipped attribute past the 16 MiB token limit, read 4 KiB at a time, was rescanned per read (a timeout)"
    ),
  ]

  @Test func foundCrashesStayFixed() throws {
    for r in Self.regressions {
      let bytes = try #require(Data(base64Encoded: r.base64), "\(r.note)")
      // Refused, with a located error, rather than trapping.
      #expect(!FuzzProperties.accepts(r.target, [UInt8](bytes)), "\(r.note)")
      #expect(FuzzProperties.finding(r.target, [UInt8](bytes)) == nil, "\(r.note)")
      FuzzTargets.run(r.target, [UInt8](bytes))
    }
  }

  @Test func hugeCountIsADecodeError() {
    var w = BinaryWriter()
    w.u64(UInt64.max)
    w.bytes.withUnsafeBytes { buffer in
      var reader = BinaryReader(buffer)
      #expect(throws: DecodeError(offset: 0, "count 18446744073709551615 out of range")) { _ = try reader.count64() }
    }
  }

  @Test func mutationsAreSeeded() {
    var a = Mutator(seed: 5)
    var b = Mutator(seed: 5)
    let seeds = FuzzTargets.seeds("messages")
    for _ in 0..<100 { #expect(a.mutate(seeds) == b.mutate(seeds)) }
  }
}
