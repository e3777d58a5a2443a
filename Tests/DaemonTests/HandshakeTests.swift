import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix
@testable import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// Launches a pair with extra daemon arguments, clock at t0, both apps installed on both devices.
func withPair<T>(extraArguments: [String], _ body: (Pair) throws -> T) throws -> T {
  var options = LaunchOptions()
  options.extraArguments = extraArguments
  let pair = try Pair(options: options)
  defer { pair.shutdown() }
  for client in [pair.phone, pair.watch] {
    try client.setClock(t0)
    try client.installApp(waterApp)
    try client.installApp(returnApp)
  }
  return try body(pair)
}

/// The text of `device`'s log.
func logText(_ pair: Pair, _ device: DeviceKind) -> String {
  String(decoding: (try? Posix.readFile(pair.layout.log(device))) ?? [], as: UTF8.self)
}

/// Takes the watch off the link and waits until the phone sees it gone, so a test process can use the peer socket.
func freePeerSlot(_ pair: Pair) throws {
  try pair.watch.link(.disconnect)
  try pair.wait(for: "the link to drop", timeout: 10) { try !pair.phone.link(.reconnectNow).connected }
}

/// A length header announcing `length` bytes, then `sent` bytes of that body: a frame sent by half.
func halfFrame(length: Int, sent: Int) -> [UInt8] {
  var bytes: [UInt8] = []
  withUnsafeBytes(of: UInt32(length).littleEndian) { bytes.append(contentsOf: $0) }
  return bytes + [UInt8](repeating: 0xAB, count: sent)
}

/// Connections that have not proved anything yet — a peer before the pairing handshake, a client before `hello` —
/// get a deadline and a small frame limit, so they can neither hold the peer slot nor make the daemon buffer
/// big frames.
@Suite("Handshake deadlines and pre-authentication limits (real processes)")
struct HandshakeTests {
  @Test func aSilentPeerConnectionIsClosedAtItsHandshakeDeadline() throws {
    try withPair(extraArguments: ["--handshake-timeout", "0.5"]) { pair in
      try freePeerSlot(pair)
      let silent = try RawConnection(pair.layout.peerSocket)
      guard case .challenge? = try silent.decoderNextPeer() else {
        Issue.record("expected a challenge")
        return
      }
      // It never answers: the phone closes it at the deadline, without any other connection arriving.
      #expect(try silent.waitClosed(timeout: 20))
      try waitUntil("the deadline warning in the log", probe: pair.phone) {
        logText(pair, .phone).contains("did not complete the pairing handshake within 0.5 s")
      }
      try pair.watch.link(.connect)
      try pair.waitLinked(timeout: 20)
    }
  }

  @Test func theRealWatchDisplacesAConnectionStuckInItsHandshake() throws {
    // A deadline far beyond the test's waits: the watch must get in by displacing, not by waiting it out.
    try withPair(extraArguments: ["--handshake-timeout", "600"]) { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water])
      try freePeerSlot(pair)
      let silent = try RawConnection(pair.layout.peerSocket)
      guard case .challenge? = try silent.decoderNextPeer() else {
        Issue.record("expected a challenge")
        return
      }
      try pair.watch.link(.connect)
      try pair.waitLinked(timeout: 20)
      #expect(try silent.waitClosed(timeout: 20))
      #expect(logText(pair, .phone).contains("displaces one still in its handshake"))
      // Sync flows again.
      try pair.phone.save(waterApp.bundleID, [waterSample(250)])
      try pair.waitSynced(timeout: 20)
      #expect(try pair.watch.storedSamples().samples.count == 1)
      // An authenticated link is never displaced: a late intruder is refused and the link stays up.
      let intruder = try RawConnection(pair.layout.peerSocket)
      #expect(try intruder.waitClosed(timeout: 20))
      #expect(try pair.phone.link(.reconnectNow).connected && pair.watch.link(.reconnectNow).connected)
    }
  }

  @Test func aBigFrameBeforeThePairingHandshakeIsRefusedAtItsHeader() throws {
    try withPair(extraArguments: ["--handshake-timeout", "600"]) { pair in
      try freePeerSlot(pair)
      let raw = try RawConnection(pair.layout.peerSocket)
      _ = try raw.decoderNextPeer()
      try? raw.send(halfFrame(length: 16 << 20, sent: 64 << 10))
      #expect(try raw.waitClosed(timeout: 20))
      try waitUntil("the refusal in the log", probe: pair.phone) {
        logText(pair, .phone).contains("exceeds the 4096-byte limit at stream offset 0, before the pairing handshake")
      }
      try pair.watch.link(.connect)
      try pair.waitLinked(timeout: 20)
      // After the handshake the normal limit applies: a batch far over 4 KiB syncs.
      try grant(pair.phone, waterApp.bundleID, share: [water])
      try pair.phone.save(waterApp.bundleID, (0..<2000).map { waterSample(1, at: t0.addingTimeInterval(Double(-$0))) })
      try pair.waitSynced(timeout: 20)
      #expect(try pair.watch.storedSamples().samples.count == 2000)
    }
  }

  @Test func theWatchClosesAPhoneThatNeverSendsTheChallengeAndReconnects() throws {
    let root = try Posix.makeTemporaryDirectory(prefix: "hp-fake-phone")
    defer { Posix.removeTree(root) }
    let layout = PairLayout(root: root)
    try Posix.makeDirectory(layout.directory(.phone), mode: 0o700)
    try Posix.writeFileAtomically(layout.pairingKey, Array("0123456789abcdef0123456789abcdef".utf8))
    let listening = try Posix.listenUnix(layout.peerSocket)
    let listener = listening.rawValue
    var options = LaunchOptions()
    options.extraArguments = ["--handshake-timeout", "0.3"]
    let watch = try DaemonProcess.start(.watch, layout: layout, daemon: try locateDaemon(), options: options)
    defer {
      watch.signal(SIGTERM)
      watch.waitForExit(timeout: 10)
    }
    /// The next connection the watch makes to the fake phone.
    func nextConnection() throws -> FileDescriptor {
      let deadline = Posix.monotonicNanoseconds() + 20_000_000_000
      while Posix.monotonicNanoseconds() < deadline {
        if let fd = try Posix.accept(listener) { return fd }
        _ = Posix.waitReadable(listener, timeoutMilliseconds: 1000)
      }
      throw PairError.timeout("the watch to connect")
    }
    let firstSocket = try nextConnection()
    let first = firstSocket.rawValue
    // The fake phone stays silent; the watch gives up on it at its deadline and tries again.
    #expect(Posix.waitReadable(first, timeoutMilliseconds: 20_000), "the watch never closed the silent connection")
    var byte = [UInt8](repeating: 0, count: 1)
    let result = byte.withUnsafeMutableBytes { b in
      catching { () throws(SystemError) in try Posix.read(first, into: b) }
    }
    #expect(result == .success(.endOfFile))
    try nextConnection().close()
    let log = String(decoding: try Posix.readFile(layout.log(.watch)), as: UTF8.self)
    #expect(log.contains("did not complete the pairing handshake within 0.3 s"), "\(log)")
  }

  @Test func aClientThatNeverSaysHelloIsToldAndClosedAtItsDeadline() throws {
    // Long enough that the harness's own clients, which say hello at once, never miss it on a loaded machine.
    try withPair(extraArguments: ["--hello-timeout", "1.5"]) { pair in
      let before = try pair.phone.dump().clients
      let idle = try RawConnection(pair.layout.socket(.phone))
      let refusal = responseError(try idle.nextFrame(timeout: 20))
      #expect(refusal?.message == "no hello within 1.5 s; closing the connection")
      #expect(try idle.waitClosed(timeout: 20))
      try waitUntil("the idle client's slot to be freed", probe: pair.phone) { try pair.phone.dump().clients == before }
      #expect(logText(pair, .phone).contains("closing client: no hello within 1.5 s"))
      // Clients that say hello are not affected, however long they then stay idle.
      let client = try DeviceClient(socketPath: pair.layout.socket(.phone), clientName: "patient", timeout: 20)
      let raw = try RawConnection(pair.layout.socket(.phone))
      try raw.send(.request(id: 1, .hello(version: WireProtocol.version, client: "raw")))
      guard case .response(1, .success(.hello))? = try raw.nextFrame() else {
        Issue.record("hello")
        return
      }
      // A connection made after them is closed at its deadline, so theirs has passed too.
      let later = try RawConnection(pair.layout.socket(.phone))
      #expect(try later.waitClosed(timeout: 20))
      try client.ping()
      try raw.send(.request(id: 2, .ping))
      guard case .response(2, .success(.ok))? = try raw.nextFrame() else {
        Issue.record("the client that said hello must stay connected")
        return
      }
    }
  }

  @Test func aBigFrameBeforeHelloIsRefusedAtItsHeaderAndTheNormalLimitAppliesAfterHello() throws {
    try withPair(extraArguments: []) { pair in
      let early = try RawConnection(pair.layout.socket(.phone))
      try? early.send(halfFrame(length: 1 << 20, sent: 64 << 10))
      let error = try #require(responseError(try early.nextFrame(timeout: 20)))
      #expect(error.message.contains("exceeds the 4096-byte limit"), "\(error.message)")
      #expect(try early.waitClosed(timeout: 20))
      // After hello, a save of about 400 KB in one frame is accepted.
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      let batch = (0..<6000).map { waterSample(1, at: t0.addingTimeInterval(Double(-$0))) }
      #expect(Frame.request(id: 1, .save(bundleID: waterApp.bundleID, samples: batch)).encoded().count > 64 << 10)
      try pair.phone.save(waterApp.bundleID, batch)
      #expect(try pair.phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water)).count == 6000)
    }
  }

  @Test func manyHalfSentBigFramesBeforeHelloDoNotGrowTheDaemon() throws {
    try withPair(extraArguments: []) { pair in
      // 64 connections each announce a 16 MiB frame and send 1 MiB of it: 64 MiB the daemon must not hold. Each is
      // refused on its 4-byte header (stream offset 0), so no body byte is ever buffered, then closed.
      var connections: [RawConnection] = []
      for _ in 0..<64 {
        let raw = try RawConnection(pair.layout.socket(.phone))
        try? raw.send(halfFrame(length: 16 << 20, sent: 1 << 20))
        connections.append(raw)
      }
      let refusal = "frame length 16777216 exceeds the 4096-byte limit at stream offset 0; closing the connection"
      for raw in connections {
        #expect(responseError(try raw.nextFrame(timeout: 20)) == .simulator(refusal))
        #expect(try raw.waitClosed(timeout: 20))
      }
      try pair.phone.ping()
    }
  }
}
