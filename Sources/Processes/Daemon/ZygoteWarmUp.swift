import FoundationEssentials
import HealthEngine
import HealthModel
import Posix
import Wire

extension DaemonMain {
  /// Warms the zygote up before it forks anything: a throwaway phone and watch, linked, serving one client each
  /// through the usual requests (hello, an app installed, a sheet shown and answered, a save, a query, the link's
  /// status), turned by hand on this one thread, then dropped with their directory.
  ///
  /// What a daemon does the first time — argument parsing, the journal and its checksum tables, the engine, the
  /// handshake, encoding and decoding, Swift's type metadata and protocol conformance lookups, the dynamic linker's
  /// lazy bindings — then happens once, here, instead of in every forked daemon. No thread is started, so the zygote
  /// stays single-threaded and every fork is whole. Anything that fails only makes the warm-up shorter.
  ///
  /// Its directory is named as a pair directory of the zygote's own (`healthpair-<pid>-XXXXXX` in the temporary
  /// directory), so that if the zygote is killed during the warm-up, the next launcher's sweep of directories whose
  /// launcher is gone removes it (PairProcesses' `TemporaryPairDirectories`).
  static func warmUp() {
    guard let root = try? Posix.makeTemporaryDirectory(prefix: "healthpair-\(Posix.processID)") else { return }
    defer { Posix.removeTree(root) }
    let key = Posix.randomBytes(32)
    var daemons: [DeviceDaemon] = []
    var sockets: [String] = []
    for device in DeviceKind.allCases {
      let arguments = ["--device", device.description, "--dir", "\(root)/\(device)", "--log-level", "info"]
      guard let command = try? DaemonCommand(arguments + ["--peer", "\(root)/peer.sock", "--pairing-key", "-"])
      else { return }
      var options = command.options
      options.pairingKey = key
      guard let daemon = try? DeviceDaemon(options: options) else { return }
      daemon.begin()
      daemons.append(daemon)
      sockets.append(options.socketPath)
    }
    // The clients' descriptors, closed when the warm-up ends (before the daemons it drops).
    var clients: [Int32] = []
    defer { clients.forEach(Posix.close) }
    for socket in sockets {
      guard let client = try? Posix.connectUnix(socket) else { return }
      Posix.setNonBlocking(client.rawValue)
      clients.append(client.take())
    }
    for turn in 0..<500 {
      if turn == 40 || turn == 200 || turn == 350 {
        // First after the link has had turns to come up, then again once the first requests were served, and last
        // the reads and settings a scenario's expectations use.
        for client in clients { send(warmUpRequests(batch: turn == 40 ? 0 : turn == 200 ? 1 : 2), to: client) }
      }
      for daemon in daemons where daemon.turn(maximumWaitMilliseconds: 0) != nil { return }
      for client in clients { drain(client) }
    }
  }

  /// The requests a warm-up client sends: hello and setup first (batch 0), then the calls a test makes most (1),
  /// then the reads, settings and clock changes a scenario's steps and expectations make (2): the statistics and
  /// snapshot encoders, the stored-sample pages, background registrations and a virtual clock otherwise ran for the
  /// first time in every forked daemon (conformance lookups and lazy bindings).
  private static func warmUpRequests(batch: Int) -> [Request] {
    guard let water = SampleType.lookup(name: "dietaryWater") else { return [] }
    let app = "com.healthpair.zygote"
    let start = Date().addingTimeInterval(-60)  // within the watch's window too
    let sample = SampleInput(uuid: UUID(), type: water, value: .quantity(250, unit: "mL"), start: start, end: start)
    if batch == 2 {
      let more: [SampleInput] = (0..<40).map { (i: Int) -> SampleInput in
        let at: Date = start.addingTimeInterval(-60 * Double(i))
        return SampleInput(uuid: UUID(), type: water, value: .quantity(Double(i + 1), unit: "mL"), start: at, end: at)
      }
      let day = CalendarInterval(days: 1)
      let range = DateRange(start: start.addingTimeInterval(-86_400), end: start.addingTimeInterval(86_400))
      let total = StatisticsQuery(type: water, range: range, options: .cumulativeSum)
      let daily = StatisticsQuery(type: water, range: range, options: .cumulativeSum, interval: day, anchor: start)
      let deleted: [UUID] = more.prefix(10).map(\.uuid)
      // Built one request at a time: as one array literal of enum cases this took the type checker 0.8 s.
      var requests: [Request] = [.save(bundleID: app, samples: more), .authorizationStatus(bundleID: app, type: water)]
      requests.append(.statistics(bundleID: app, query: total))
      requests.append(.statisticsCollection(bundleID: app, query: daily))
      requests.append(.anchoredQuery(bundleID: app, type: water, anchor: 0, range: nil, limit: 0))
      requests.append(.storedSamples(type: nil, from: StoredCursor(sample: 0, tombstone: 0), limit: 1000))
      requests.append(.dump)
      requests.append(.delete(bundleID: app, uuids: deleted))
      requests.append(.enableBackgroundDelivery(bundleID: app, type: water, frequency: .immediate))
      requests += [.setClock(start), .advanceClock(seconds: 60), .dump, .ping]
      return requests
    }
    if batch == 0 {
      return [
        .hello(version: WireProtocol.version, client: "healthpaird-zygote"), .subscribe(.all),
        .installApp(
          AppRecord(
            bundleID: app, displayName: "Warm-up", writeUsageDescription: "Warm-up.",
            readUsageDescription: "Warm-up.")),
        .requestAuthorization(bundleID: app, share: [water], read: [water]),
      ]
    }
    return [
      .answerPrompt(promptID: nil, bundleID: app, answer: .allowAll), .save(bundleID: app, samples: [sample]),
      .sampleQuery(bundleID: app, query: SampleQuery(type: water)), .link(.reconnectNow), .ping,
    ]
  }

  private static func send(_ requests: [Request], to socket: Int32) {
    var bytes: [UInt8] = []
    for (index, request) in requests.enumerated() { bytes += Frame.request(id: UInt32(index + 1), request).framed() }
    _ = try? bytes.withUnsafeBytes { try Posix.sendAll(socket, $0) }
  }

  private static func drain(_ socket: Int32) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case .bytes = (try? buffer.withUnsafeMutableBytes { try Posix.read(socket, into: $0) }) ?? .endOfFile {}
  }
}
