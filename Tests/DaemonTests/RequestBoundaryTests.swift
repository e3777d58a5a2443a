import Posix
import TestSupport
import Testing

/// Outside the modules that define, encode and answer requests, nothing builds one: HealthKitSim, the harness,
/// `ctl`, the runner, chaos and the benchmarks reach a daemon only through a ``DeviceOperation``.
///
/// The compiler guarantees most of it already: `DeviceClient` sends nothing but operations to other modules (its
/// raw `call`/`send` are internal to HealthPairClient), and an operation is built only by its factory. What it cannot
/// see is a module framing a `Request` for a socket of its own (as the benchmarks' direct client once did) or driving
/// the request core; this check reads the sources for the names that would take — the `Request` and `RequestOpcode`
/// types, `RequestCore`, `Frame.request` — outside comments.
@Suite("Request boundary")
struct RequestBoundaryTests {
  /// Source directories whose code must go through operations.
  static let clientSide = [
    "Sources/API/HealthKitSim", "Sources/API/HealthKit", "Sources/API/HealthPairTesting", "Sources/Examples",
    "Sources/Processes/PairProcesses", "Sources/Tools/HealthPairCLI", "Sources/Tools/Scenario",
    "Sources/Tools/ScenarioLanguage", "Sources/Tools/Chaos", "Sources/Tools/Bench", "Sources/Tools/healthpair",
    "Sources/Tools/healthpair-bench",
  ]
  /// What building, framing or answering a request names.
  static let forbidden = [#"\bRequest\b"#, #"\bRequestOpcode\b"#, #"\bRequestCore\b"#, #"\bFrame\.request\b"#]

  /// Every Swift file under `directory`.
  static func swiftFiles(_ directory: String) -> [String] {
    guard let names = try? Posix.listDirectory(directory) else { return [] }
    var files: [String] = []
    for name in names.sorted() where !name.hasPrefix(".") {
      let path = directory + "/" + name
      if name.hasSuffix(".swift") { files.append(path) } else { files += swiftFiles(path) }
    }
    return files
  }

  /// The lines of `text` that use one of the forbidden names in code (comment lines and trailing comments dropped).
  static func violations(in text: String) throws -> [String] {
    let patterns = try forbidden.map { try Regex($0).wordBoundaryKind(.simple) }
    return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
      var code = Substring(line)
      if let comment = code.firstRange(of: "//") { code = code[..<comment.lowerBound] }
      return patterns.contains { code.contains($0) } ? String(line) : nil
    }
  }

  @Test func clientSideModulesBuildNoRequests() throws {
    var checked = 0
    var found: [String] = []
    for directory in Self.clientSide {
      for file in Self.swiftFiles(Repository.path(directory)) {
        checked += 1
        let text = String(decoding: try Posix.readFile(file), as: UTF8.self)
        for line in try Self.violations(in: text) {
          found.append("\(file.dropFirst(Repository.root.count + 1)): \(line.trimmingPrefix(while: \.isWhitespace))")
        }
      }
    }
    #expect(checked > 100, "the client-side sources were found")
    #expect(found.isEmpty, "use a DeviceOperation instead:\n\(found.joined(separator: "\n"))")
  }

  @Test func theCheckSeesRequestsBuiltInCode() throws {
    #expect(try Self.violations(in: "let r: Request = .ping").count == 1)
    #expect(try Self.violations(in: "try send(Frame.request(id: 1, .ping).framed())").count == 1)
    #expect(try Self.violations(in: "RequestCore.handle(r, state: &s, context: c)").count == 1)
    #expect(try Self.violations(in: "let name = Request.ping.name").count == 1)
    #expect(try Self.violations(in: "/// Request read permission first.\nx // a Request").isEmpty)
    #expect(try Self.violations(in: "statusForAuthorizationRequest(toShare:read:)").isEmpty)
  }
}
