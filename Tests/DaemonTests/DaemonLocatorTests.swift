import Testing

@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix

@Suite("Finding the daemon")
struct DaemonLocatorTests {
  /// A directory with fake `healthpaird` files at the given relative paths; `version` answers for each.
  private func locator(
    files: [String], versions: [String: String] = [:], embeds: Bool, explicit: String? = nil, root: String
  ) throws -> DaemonLocator {
    for file in files {
      let path = "\(root)/\(file)"
      try Posix.makeDirectory(path.split(separator: "/").dropLast().map { "/\($0)" }.joined())
      try Posix.writeFileAtomically(path, [])
    }
    return DaemonLocator(
      explicit: explicit, executable: "\(root)/build/debug/AppPackageTests.xctest", currentDirectory: "\(root)/app",
      searchPath: "\(root)/bin:\(root)/old", embedsDaemon: embeds, launchedAsDaemon: false,
      version: { path in
        let relative = String(path.dropFirst(root.count + 1))
        guard let version = versions[relative] else {
          return .failure(.unexpectedAnswer(status: "exit 64", output: "healthpaird: error: unknown argument"))
        }
        return .success(version)
      })
  }

  private func temporary() throws -> String { try Posix.makeTemporaryDirectory(prefix: "hp-locate") }

  @Test func aDedicatedBinaryOfThisVersionComesFirst() throws {
    let root = try temporary()
    defer { Posix.removeTree(root) }
    let v = HealthPairVersion.current
    let found = try locator(
      files: ["old/healthpaird", "build/debug/healthpaird"], versions: ["build/debug/healthpaird": v], embeds: true,
      root: root
    ).locate()
    #expect(found == "\(root)/build/debug/healthpaird")
  }

  @Test func aStaleOrForeignBinaryIsSkippedForTheEmbeddedDaemon() throws {
    let root = try temporary()
    defer { Posix.removeTree(root) }
    let search = try locator(
      files: ["bin/healthpaird", "old/healthpaird"], versions: ["bin/healthpaird": "0.1.9"], embeds: true, root: root)
    #expect(try search.locate() == "\(root)/build/debug/AppPackageTests.xctest")
  }

  @Test func withNoBinaryAndNoEmbeddedDaemonTheErrorSaysWhatToDo() throws {
    let root = try temporary()
    defer { Posix.removeTree(root) }
    let search = try locator(
      files: ["bin/healthpaird"], versions: ["bin/healthpaird": "0.1.9"], embeds: false, root: root)
    #expect {
      try search.locate()
    } throws: { error in
      let text = "\(error)"
      return text.contains("\(root)/bin/healthpaird (version 0.1.9, this is \(HealthPairVersion.current))")
        && text.contains("swift build --product healthpaird") && text.contains("HEALTHPAIRD")
        && text.contains("does not embed the daemon")
    }
  }

  @Test func anExplicitPathThatDoesNotExistIsAnErrorNotAFallback() throws {
    let root = try temporary()
    defer { Posix.removeTree(root) }
    let search = try locator(files: [], embeds: true, explicit: "\(root)/nowhere/healthpaird", root: root)
    #expect { try search.locate() } throws: { "\($0)".contains("HEALTHPAIRD is set to '\(root)/nowhere/healthpaird'") }
  }

  @Test func anEmbeddedDaemonWhoseHookDidNotRunRefusesToLaunchAnother() throws {
    var search = DaemonLocator.system()
    search.launchedAsDaemon = true
    #expect { try search.locate() } throws: { "\($0)".contains("start-up hook did not run") }
  }

  @Test func theVersionProbeReadsARealBinary() throws {
    let daemon = try locateDaemon()
    #expect(DaemonLocator.probe(daemon) == .success(HealthPairVersion.current))
    guard case .failure(.unexpectedAnswer) = DaemonLocator.probe("/bin/true") else {
      Issue.record("/bin/true passed for healthpaird")
      return
    }
  }

  /// This test binary links HealthPairTesting, so it embeds the daemon: launched as its own daemon, it makes a pair.
  @Test func theTestBinaryItselfRunsALinkedPair() throws {
    #expect(Posix.embedsDaemon)
    let executable = try #require(Posix.executablePath())
    let pair = try Pair(daemon: executable)
    defer { pair.shutdown() }
    try pair.phone.installApp(waterApp)
    for client in [pair.phone, pair.watch] { try client.setClock(t0) }
    try grant(pair.phone, waterApp.bundleID, share: [water])
    try pair.phone.save(waterApp.bundleID, [waterSample(250)])
    try pair.waitSynced(timeout: 10)
    #expect(try pair.watch.storedSamples(type: water).samples.count == 1)
    let phone = try #require(pair.process(.phone))
    #expect(phone.pid != Posix.processID)
  }
}
