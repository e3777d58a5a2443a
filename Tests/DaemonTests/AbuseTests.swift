import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix
@testable import Wire

/// Hostile and careless clients: none of them may crash a daemon, starve the other clients, or learn or touch
/// what its app may not.
@Suite("Abuse")
struct AbuseTests {
  /// Launches a pair with extra daemon arguments, clock at t0, both apps installed on both devices.
  func withPair<T>(_ extra: [String], _ body: (Pair) throws -> T) throws -> T {
    var options = LaunchOptions()
    options.extraArguments = extra
    let pair = try Pair(options: options)
    defer { pair.shutdown() }
    for client in [pair.phone, pair.watch] {
      try client.setClock(t0)
      try client.installApp(waterApp)
      try client.installApp(returnApp)
    }
    return try body(pair)
  }

  @Test func thousandsOfConnectionsAreCappedAndTheClientsAlreadyConnectedKeepBeingServed() throws {
    // The flood never says hello; a long hello deadline keeps it connected for the whole test.
    try withPair(["--max-clients", "64", "--hello-timeout", "600"]) { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      let before = try pair.phone.dump().clients
      // 2,000 connections that never say hello (fewer if this process may not open that many descriptors).
      let floodSize = min(2000, Posix.raiseOpenFileLimit() - 200)
      try #require(floodSize > 100, "too few descriptors allowed for this test")
      var flood: [RawConnection] = []
      for _ in 0..<floodSize { flood.append(try RawConnection(pair.layout.socket(.phone))) }
      // Those beyond the limit are told why and closed; the daemon is alive and serves its existing client.
      let last = try #require(flood.last)
      let refusal = try #require(responseError(try last.nextFrame()))
      #expect(refusal.message.contains("too many connections (limit 64)"))
      #expect(try last.waitClosed())
      try pair.phone.save(waterApp.bundleID, [waterSample(250)])
      #expect(try pair.phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water)).count == 1)
      #expect(try pair.phone.dump().clients == 64)
      #expect(pair.process(.phone)?.exitStatus == nil)
      // A new client while the limit is reached is refused with the same clear error, not left hanging.
      let lateRefusal = rejection {
        _ = try DeviceClient(socketPath: pair.layout.socket(.phone), clientName: "late", timeout: 10)
      }
      #expect(lateRefusal == refusal)
      // Once the flood goes away, new clients are served again.
      flood.removeAll()
      try waitUntil("the flood's slots to be freed", probe: pair.phone) { try pair.phone.dump().clients == before }
      let late = try DeviceClient(socketPath: pair.layout.socket(.phone), clientName: "late", timeout: 10)
      #expect(try late.sampleQuery(waterApp.bundleID, SampleQuery(type: water)).count == 1)
    }
  }

  @Test func aClientThatNeverReadsIsDisconnectedAtItsBacklogLimitAndTheDaemonsMemoryStaysNearIt() throws {
    try withPair(["--max-client-backlog", "262144"]) { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      let day = (0..<2000).map { waterSample(Double($0 % 500 + 1), at: t0.addingTimeInterval(-Double($0) * 30)) }
      try pair.phone.save(waterApp.bundleID, day)
      // 2,000 requests for all 2,000 samples (~200 KB each, ~400 MB of replies) in one write, none ever read.
      let hog = try RawConnection(pair.layout.socket(.phone))
      try hog.send(.request(id: 1, .hello(version: WireProtocol.version, client: "hog")))
      var burst: [UInt8] = []
      for i in 0..<2000 {
        burst += Frame.request(
          id: UInt32(2 + i), .sampleQuery(bundleID: waterApp.bundleID, query: SampleQuery(type: water))
        ).framed()
      }
      try? hog.send(burst)  // fails once the daemon drops the hog: that is the point
      try waitUntil("the slow-client warning in the log", probe: pair.phone) {
        String(decoding: (try? Posix.readFile(pair.layout.log(.phone))) ?? [], as: UTF8.self).contains(
          "client too slow")
      }
      #expect(try hog.waitClosed())
      #expect(pair.process(.phone)?.exitStatus == nil)
      // Another client is served, and the daemon held about one limit's worth of replies, not hundreds of MB: it
      // stopped answering the hog once its unsent replies passed the 256 KiB limit and dropped it with at most one
      // more reply (a frame of at most the limit) on top — by its own account in the log.
      #expect(try pair.phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water)).count == 2000)
      let log = String(decoding: try Posix.readFile(pair.layout.log(.phone)), as: UTF8.self)
      let line = try #require(log.split(separator: "\n").first { $0.contains("client too slow: ") })
      let count = line.split(separator: "client too slow: ").last?.prefix { $0.isNumber }
      let unsent = try #require(count.flatMap { Int($0) }, "\(line)")
      #expect(unsent > 262_144 && unsent <= 2 * 262_144 + 4, "dropped with \(unsent) bytes unsent")
    }
  }

  @Test func aFloodOfCostlyPipelinedRequestsDoesNotStarveAnotherClient() throws {
    try withPair([]) { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      for batch in 0..<2 {
        try pair.phone.save(
          waterApp.bundleID,
          (0..<5000).map { waterSample(1, at: t0.addingTimeInterval(-Double(batch * 5000 + $0) * 10)) })
      }
      let flooder = try RawConnection(pair.layout.socket(.phone))
      try flooder.send(.request(id: 1, .hello(version: WireProtocol.version, client: "flooder")))
      _ = try flooder.nextFrame()
      // 400 sorted queries over 10,000 samples in one write: a second or more of work for the daemon.
      let flood = 400
      let query = SampleQuery(type: water, limit: 1, sort: [SampleSort(.endDate, ascending: false)])
      var burst: [UInt8] = []
      for i in 0..<flood {
        burst += Frame.request(id: UInt32(2 + i), .sampleQuery(bundleID: waterApp.bundleID, query: query)).framed()
      }
      try flooder.send(burst)
      // Another client's request is answered while most of the flood is still waiting: the daemon takes turns.
      try pair.phone.ping()
      let answeredSoFar = try flooder.framesAvailableNow()
      #expect(
        answeredSoFar < flood / 2, "the flood was \(answeredSoFar) of \(flood) answered before another client's ping")
      // And the flood is answered in full, in order.
      var expected = UInt32(2 + answeredSoFar)
      while expected < UInt32(2 + flood) {
        guard case .response(let id, .success)? = try flooder.nextFrame(timeout: 60) else {
          Issue.record("reply \(expected) missing")
          return
        }
        #expect(id == expected)
        if id != expected { return }
        expected += 1
      }
    }
  }

  @Test func garbageBodiesGetAnErrorReplyAndTheConnectionStaysUsable() throws {
    try withPair([]) { pair in
      var state: UInt64 = 99
      func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
      }
      let raw = try RawConnection(pair.layout.socket(.phone))
      try raw.send(.request(id: 1, .hello(version: WireProtocol.version, client: "garbage")))
      _ = try raw.nextFrame()
      for round in 0..<200 {
        // A well-formed frame whose body is random bytes.
        let body = (0..<Int(1 + next() % 300)).map { _ in UInt8(truncatingIfNeeded: next()) }
        try raw.send(FrameDecoder.frame(body))
        let reply = try raw.nextFrame()
        #expect(responseError(reply) != nil, "round \(round): \(String(describing: reply))")
      }
      // Still the same connection, still served.
      try raw.send(.request(id: 9999, .ping))
      guard case .response(9999, .success(.ok))? = try raw.nextFrame() else {
        Issue.record("the connection must stay usable")
        return
      }
      #expect(pair.process(.phone)?.exitStatus == nil)
    }
  }

  @Test func randomBytesWithoutFramingGetAnErrorAndACloseNotACrash() throws {
    try withPair([]) { pair in
      var state: UInt64 = 7
      func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
      }
      for _ in 0..<20 {
        let raw = try RawConnection(pair.layout.socket(.phone))
        // A length header beyond the 16 MiB limit followed by noise: an error reply, then the daemon closes.
        var bytes: [UInt8] = [0xFF, 0xFF, 0xFF, UInt8(truncatingIfNeeded: 0x01 | next())]
        for _ in 0..<Int(next() % 400) { bytes.append(UInt8(truncatingIfNeeded: next())) }
        try raw.send(bytes)
        #expect(responseError(try raw.nextFrame())?.message.contains("exceeds") == true)
        #expect(try raw.waitClosed())
      }
      #expect(pair.process(.phone)?.exitStatus == nil)
      #expect(try pair.phone.dump().device.device == .phone)
    }
  }

  @Test func anAppCannotDeleteAnotherAppsSamplesOverTheWire() throws {
    try withPair([]) { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      try grant(pair.phone, returnApp.bundleID, share: [water])
      let victim = waterSample(250)
      try pair.phone.save(waterApp.bundleID, [victim])
      let raw = try RawConnection(pair.layout.socket(.phone))
      try raw.send(.request(id: 1, .hello(version: WireProtocol.version, client: "raw")))
      _ = try raw.nextFrame()
      try raw.send(.request(id: 2, .delete(bundleID: returnApp.bundleID, uuids: [victim.uuid])))
      let error = try #require(responseError(try raw.nextFrame()))
      #expect(error.kind == .healthKit && error.code == .errorInvalidArgument)
      #expect(error.message == "Failed to find some objects for deletion")
      #expect(try pair.phone.storedSamples().samples.map(\.uuid) == [victim.uuid])
      try pair.waitSynced(timeout: 20)
      #expect(try pair.watch.storedSamples().samples.map(\.uuid) == [victim.uuid])
    }
  }

  /// Everything an app can ask, in order, with its replies encoded byte for byte.
  func appTranscript(_ pair: Pair) throws -> [[UInt8]] {
    let heartRate = SampleType.lookup(name: "heartRate")!
    let uuid = UUID(uuid: (9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9))
    let requests: [Request] = [
      .save(bundleID: waterApp.bundleID, samples: [waterSample(300, at: t0.addingTimeInterval(-60), uuid: uuid)]),
      .authorizationStatus(bundleID: waterApp.bundleID, type: water),
      .authorizationStatus(bundleID: waterApp.bundleID, type: heartRate),
      .requestStatus(bundleID: waterApp.bundleID, share: [water], read: [water, heartRate]),
      .requestAuthorization(bundleID: waterApp.bundleID, share: [water], read: [water, heartRate]),
      .sampleQuery(bundleID: waterApp.bundleID, query: SampleQuery(type: water)),
      .sampleQuery(bundleID: waterApp.bundleID, query: SampleQuery(type: heartRate)),
      .statistics(bundleID: waterApp.bundleID, query: StatisticsQuery(type: water, options: .cumulativeSum)),
      .statistics(bundleID: waterApp.bundleID, query: StatisticsQuery(type: heartRate, options: .discreteAverage)),
      .statisticsCollection(
        bundleID: waterApp.bundleID,
        query: StatisticsQuery(
          type: water, options: .cumulativeSum, interval: 3600, anchor: t0.addingTimeInterval(-7200))),
      .anchoredQuery(bundleID: waterApp.bundleID, type: water, anchor: 0, range: nil, limit: 0),
      .anchoredQuery(bundleID: waterApp.bundleID, type: heartRate, anchor: 0, range: nil, limit: 0),
      .delete(bundleID: waterApp.bundleID, uuids: [uuid]),
      .anchoredQuery(bundleID: waterApp.bundleID, type: water, anchor: 0, range: nil, limit: 0),
    ]
    return try requests.map { request in
      let result: Result<Reply, HealthError>
      do throws(ClientError) { result = .success(try pair.phone.call(request)) } catch {
        guard let healthError = error.healthError else { throw error }
        result = .failure(healthError)
      }
      return Frame.response(id: 0, result).encoded()
    }
  }

  @Test func anAppCannotLearnWhetherItsReadAccessWasDenied() throws {
    let heartRate = SampleType.lookup(name: "heartRate")!
    func transcript(readAllowed: Bool) throws -> [[UInt8]] {
      try withPair([]) { pair in
        let ticket = try pair.phone.beginAuthorization(waterApp.bundleID, share: [water], read: [water, heartRate])
        _ = try ticket.waitFirst(timeout: 10)
        try pair.phone.answerPrompt(
          .choices([
            Permission(water, .share): true, Permission(water, .read): readAllowed,
            Permission(heartRate, .read): readAllowed,
          ]))
        _ = try ticket.wait(timeout: 10)
        let decisions = try pair.phone.dump().device.app(waterApp.bundleID)?.decisions ?? []
        #expect(
          decisions.contains {
            $0.permission == Permission(water, .read) && ($0.decision == .authorized) == readAllowed
          })
        return try appTranscript(pair)
      }
    }
    let allowed = try transcript(readAllowed: true)
    let denied = try transcript(readAllowed: false)
    #expect(allowed.count == denied.count)
    for (i, (a, d)) in zip(allowed, denied).enumerated() {
      #expect(a == d, "reply \(i + 1) differs between read allowed and read denied")
    }
  }
}
