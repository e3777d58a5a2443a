import FoundationEssentials
import TestSupport
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Wire

let water = SampleType.lookup(name: "dietaryWater")!
let bodyMass = SampleType.lookup(name: "bodyMass")!
let dateOfBirth = SampleType.lookup(name: "dateOfBirth")!
let biologicalSex = SampleType.lookup(name: "biologicalSex")!
let bloodType = SampleType.lookup(name: "bloodType")!
let t0 = parseDate("2026-01-05T08:00:00Z")!

@Suite("Frame decoder")
struct FrameDecoderTests {
  static let bodies: [[UInt8]] = [[], [1], Array(repeating: 7, count: 300), Array(0..<255), [9, 9, 9]]

  @Test("Any chunking yields the same frames", arguments: [1, 2, 3, 5, 64, 4096])
  func chunking(_ chunk: Int) throws {
    let stream = Self.bodies.flatMap { FrameDecoder.frame($0) }
    var decoder = FrameDecoder(maxFrameLength: 1024)
    var frames: [[UInt8]] = []
    for start in stride(from: 0, to: stream.count, by: chunk) {
      decoder.append(Array(stream[start..<min(start + chunk, stream.count)]))
      while let frame = try decoder.next() { frames.append(frame) }
    }
    #expect(frames == Self.bodies)
    try decoder.finish()
  }

  @Test func anOversizedLengthIsRejectedBeforeBuffering() {
    var decoder = FrameDecoder(maxFrameLength: 16)
    decoder.append([0xFF, 0xFF, 0xFF, 0x7F])
    #expect(throws: FrameDecoder.Failure.frameTooLarge(length: 0x7FFF_FFFF, limit: 16, offset: 0)) {
      try decoder.next()
    }
  }

  @Test func leftoverBytesAtTheEndAreAnError() throws {
    var decoder = FrameDecoder(maxFrameLength: 64)
    decoder.append(FrameDecoder.frame([1, 2, 3]).dropLast())
    #expect(try decoder.next() == nil)
    #expect(throws: FrameDecoder.Failure.truncated(buffered: 6, offset: 4)) { try decoder.finish() }
    #expect(decoder.nextReadLength == 1)
  }
}

@Suite("Message coding")
struct MessageCodingTests {
  static let sample = Sample(
    uuid: UUID(), type: water, value: .quantity(250), start: t0, end: t0, metadata: ["HKWasUserEntered": .bool(true)],
    source: SampleSource(bundleID: "com.example.water", device: .phone))
  static let prompt = Prompt(
    id: 7, bundleID: "com.example.water", permissions: [Permission(water, .share)], shownAt: t0)

  static let requests: [Request] = [
    .hello(version: 1, client: "test"),
    .installApp(AppRecord(bundleID: "a", displayName: "A", writeUsageDescription: "w", readUsageDescription: nil)),
    .uninstallApp(bundleID: "a"),
    .requestAuthorization(bundleID: "a", share: [water], read: []),
    .answerPrompt(
      promptID: 3, bundleID: nil, answer: .choices([Permission(water, .read): true, Permission(water, .share): false])),
    .answerPrompt(promptID: nil, bundleID: "a", answer: .failToPresent(.silent)),
    .authorizationStatus(bundleID: "a", type: water),
    .requestStatus(bundleID: "a", share: [water], read: [water]),
    .save(
      bundleID: "a",
      samples: [
        SampleInput(
          uuid: UUID(), type: water, value: .quantity(1, unit: "cup_us"), start: t0, end: t0,
          metadata: ["k": .string("v")])
      ]),
    .delete(bundleID: "a", uuids: [UUID(), UUID()]),
    .sampleQuery(
      bundleID: "a",
      query: SampleQuery(
        type: water, range: DateRange(start: t0, end: nil, options: .strictEndDate), sources: ["a"], limit: 3,
        sort: [SampleSort(.endDate, ascending: false)])),
    .statistics(bundleID: "a", query: StatisticsQuery(type: water, options: [.cumulativeSum, .separateBySource])),
    .statisticsCollection(
      bundleID: "a",
      query: StatisticsQuery(
        type: water, range: DateRange(start: t0, end: t0), options: .cumulativeSum, interval: 86400, anchor: t0)),
    .statisticsCollection(
      bundleID: "a",
      query: StatisticsQuery(
        type: water, options: [.cumulativeSum, .duration], interval: CalendarInterval(months: 1, days: 7, seconds: 1),
        anchor: t0)),
    .setSourceOrder(
      type: water,
      sources: [SampleSource(bundleID: "a", device: .watch), SampleSource(bundleID: "a", device: .phone)]),
    .setSourceOrder(type: water, sources: []),
    .anchoredQuery(bundleID: "a", type: water, anchor: 9, range: nil, limit: 2, filter: .sources(["a"])),
    .changeSettings(bundleID: "a", change: .set(Permission(water, .share), on: false)),
    .watchSettings(bundleID: "a", change: .turnAllOff),
    .setClock(t0), .setClock(nil), .advanceClock(seconds: 60),
    .setPolicy(DevicePolicy(reprompt: .strict, retention: 3600)),
    .setPolicy(
      DevicePolicy(
        reprompt: .standard, retention: nil, timeZone: try! TimeZoneRule(identifier: "Australia/Sydney"),
        sourceOrders: [
          water: SourceOrder(sources: [SampleSource(bundleID: "a", device: .phone)], at: t0, device: .phone),
          SampleType.lookup(name: "stepCount")!: SourceOrder(sources: [], at: t0, device: .watch),
        ])),
    .dump, .storedSamples(type: water, from: .start, limit: 0),
    .storedSamples(type: nil, from: StoredCursor(sample: 7, tombstone: 1 << 40), limit: 100), .subscribe(.all),
    .earliestPermittedSampleDate,
    .link(.latency(0.25)), .link(.hold), .link(.reconnectNow), .link(.status), .ping,
    .setLocked(true), .setLocked(false), .readCharacteristic(bundleID: "a", type: biologicalSex),
    .preferredUnits(bundleID: "a", types: [water, bodyMass]), .preferredUnits(bundleID: "a", types: []),
    .changeUserSetting(.characteristic(dateOfBirth, .dateOfBirth(year: 1990, month: 4, day: 2))),
    .changeUserSetting(.characteristic(biologicalSex, nil)), .changeUserSetting(.preferredUnit(bodyMass, "lb")),
    .changeUserSetting(.preferredUnit(water, nil)),
    .setPolicy(DevicePolicy(reprompt: .standard, retention: nil, watchSettings: .iPhoneOnly, units: .uk)),
    .installApp(
      AppRecord(
        bundleID: "a", displayName: "A", writeUsageDescription: nil, readUsageDescription: nil,
        entitlements: [.backgroundDelivery])),
    .enableBackgroundDelivery(bundleID: "a", type: water, frequency: .weekly),
    .disableBackgroundDelivery(bundleID: "a", type: water), .disableBackgroundDelivery(bundleID: "a", type: nil),
    .completeBackgroundDelivery(bundleID: "a", delivery: 9), .backgroundDeliveries(bundleID: nil),
    .backgroundDeliveries(bundleID: "a"),
    .sampleQuery(
      bundleID: "a",
      query: SampleQuery(
        type: water,
        filter: .and([
          .or([.uuids([UUID()]), .not(.sources(["b"]))]), .metadata(key: "k", .exists),
          .metadata(key: "k", .oneOf([.bool(true), .quantity(1, unit: "mL")])),
          .metadata(key: "k", .compare(.greaterThanOrEqualTo, .date(t0))), .device(.model, ["Watch"]),
          .value(.notEqualTo, 2), .quantity(.lessThan, 0.5, unit: "L"), .constant(false), .not(.notInCorrelation),
          .dates(DateRange(start: t0, end: nil, options: .strictStartDate)),
          .date(.end, .greaterThan, t0.timeIntervalSinceReferenceDate),
          .workoutActivityType([37, 3000]), .workoutDuration(.greaterThan, 1800),
          .workoutStatistic(water, .sum, .greaterThanOrEqualTo, 0.5),
          .workoutActivity(.and([.workoutActivityType([46]), .workoutDuration(.lessThan, 60)])),
          .associatedWith(UUID()),
        ]))),
    .statistics(
      bundleID: "a",
      query: StatisticsQuery(type: water, options: .cumulativeSum, filter: .metadata(key: "k", .exists))),
  ]

  @Test("Every request round-trips", arguments: requests)
  func requestRoundTrip(_ request: Request) throws {
    #expect(try Frame.decode(Frame.request(id: 42, request).encoded()) == .request(id: 42, request))
  }

  static let replies: [Reply] = {
    var stats = Statistics(start: t0, end: t0.addingTimeInterval(86400))
    stats.sum = 750
    stats.sampleCount = 2
    stats.mostRecent = 3
    stats.mostRecentDates = t0...t0.addingTimeInterval(60)
    stats.duration = 60
    stats.bySource["a"] = stats
    let sync = DeviceSnapshot.SyncStatus(
      lastSeq: 3, peerAcked: 2, appliedFromPeer: 1, pendingEntries: 1, pendingItems: 5)
    let link = LinkStatus(enabled: true, connected: false, holding: true, latency: 0.5, sync: sync)
    let snapshot = DeviceSnapshot(
      device: .watch, policy: .defaults(for: .watch), now: t0, virtualClock: true, earliestPermittedSampleDate: t0,
      apps: [
        .init(
          record: AppRecord(bundleID: "a", displayName: "A", writeUsageDescription: nil, readUsageDescription: "r"),
          decisions: [AuthorizationChange(Permission(water, .read), .denied)], lockedOut: true)
      ],
      pendingPrompts: [prompt], promptHistory: [PromptRecord(prompt: prompt, outcome: .failedToPresent(.error))],
      sampleCounts: [water: 4], tombstoneCount: 1, changeCounter: 9, sync: sync)
    var locked = snapshot
    locked.locked = true
    locked.lockedSamples = 3
    locked.characteristics = [dateOfBirth: .dateOfBirth(year: 1990, month: 4, day: 2), biologicalSex: .value(3)]
    locked.preferredUnits = [bodyMass: "st", water: "fl_oz_us"]
    return [
      .ok, .hello(HelloInfo(version: 1, device: .watch, pid: 123, software: "x")),
      .authorization(AuthorizationCallResult(success: false, error: .healthKit(.errorUserCanceled, "cancelled"))),
      .prompt(prompt), .status(.sharingDenied), .requestStatus(.unnecessary), .samples([sample]), .statistics(stats),
      .collection([stats, Statistics(start: t0, end: t0)], timeZone: "Europe/Paris"),
      .anchored(
        AnchoredResult(
          added: [sample], deleted: [Tombstone(uuid: UUID(), type: water, source: sample.source, deletedAt: t0)],
          newAnchor: 5)),
      .snapshot(DaemonSnapshot(device: snapshot, link: link, pid: 9, clients: 2)),
      .stored(samples: [sample], tombstones: [], next: nil),
      .stored(
        samples: [], tombstones: [Tombstone(uuid: UUID(), type: water, source: sample.source, deletedAt: t0)],
        next: StoredCursor(sample: 3, tombstone: 9)),
      .date(t0), .link(link),
      .snapshot(DaemonSnapshot(device: locked, link: link, pid: 9, clients: 2)),
      .characteristic(biologicalSex, .value(2)), .characteristic(dateOfBirth, nil),
      .characteristic(dateOfBirth, .dateOfBirth(year: 2000, month: 2, day: 29)), .units([:]),
      .units([water: "mL", bodyMass: "lb"]),
      .backgroundDeliveries(
        [
          BackgroundDeliveryStatus(
            key: BackgroundKey("a", water), frequency: .immediate, effective: .hourly, stopped: false, waiting: 4,
            misses: 1, woken: 3, completed: 1, pending: true)
        ],
        history: [BackgroundDeliveryEvent(kind: .missed, id: 4, bundleID: "a", type: water, attempt: 2, at: t0)]),
    ]
  }()

  @Test("Every reply round-trips", arguments: replies)
  func replyRoundTrip(_ reply: Reply) throws {
    #expect(try Frame.decode(Frame.response(id: 1, .success(reply)).encoded()) == .response(id: 1, .success(reply)))
    #expect(try Frame.decode(Frame.interim(id: 2, reply).encoded()) == .interim(id: 2, reply))
  }

  @Test func errorsAndEventsRoundTrip() throws {
    let error = HealthError.invalidArgumentException("Must request authorization for at least one data type")
    #expect(try Frame.decode(Frame.response(id: 5, .failure(error)).encoded()) == .response(id: 5, .failure(error)))
    let events: [DaemonEvent] = [
      .promptShown(Self.prompt), .promptClosed(promptID: 1, bundleID: "a", outcome: "cancelled"),
      .samplesChanged(types: [water], origin: .watch, added: 2, deleted: 1), .syncApplied(upTo: 9, items: 3),
      .peerAcknowledged(4), .linkChanged(connected: true), .protectedDataChanged(available: false),
      .protectedDataChanged(available: true),
      .peerAcknowledged(4), .linkChanged(connected: true),
      .backgroundDelivery(BackgroundDeliveryEvent(kind: .woken, id: 1, bundleID: "a", type: water, attempt: 1, at: t0)),
      .samplesPruned(type: water, apps: ["a", "b"]),
    ]
    for event in events { #expect(try Frame.decode(Frame.event(event).encoded()) == .event(event)) }
  }

  @Test func peerMessagesRoundTrip() throws {
    let messages: [PeerMessage] = [
      .challenge(version: 1, device: .phone, nonce: Array(repeating: 1, count: 32)),
      .proof(digest: Array(repeating: 2, count: 32), device: .watch, nonce: Array(repeating: 3, count: 32)),
      .accept(digest: Array(repeating: 4, count: 32)), .resume(appliedUpTo: 7, ofLog: 8, myLog: 9),
      .entries([
        SyncEntry(seq: 1, payload: .samples([Self.sample])),
        SyncEntry(seq: 2, payload: .watchSettings(bundleID: "a", change: .reset)),
        SyncEntry(seq: 3, payload: .userSetting(.characteristic(bloodType, .value(8)), at: t0)),
        SyncEntry(seq: 4, payload: .userSetting(.preferredUnit(bodyMass, nil), at: t0)),
        SyncEntry(
          seq: 5,
          payload: .sourceOrder(
            water, SourceOrder(sources: [SampleSource(bundleID: "a", device: .watch)], at: t0, device: .phone))),
      ]),
      .ack(3, ofLog: 8), .newLog(0xFFFF_FFFF_FFFF_FFFF),
      .check(
        SyncCheck(
          cursors: SyncCursors(log: 1, lastSeq: 2, peerLog: 3, applied: 4), firstDay: .min,
          days: [
            SampleStore.DayDigest(day: -3, sum: .max, count: 2), SampleStore.DayDigest(day: 9_000, sum: 1, count: 1),
          ])),
      .checkResult(
        SyncCheckResult(
          outcome: .notComparable, checked: SyncCursors(log: 5, lastSeq: 6, peerLog: 7, applied: 8), detail: "d")),
    ]
    for m in messages { #expect(try PeerMessage.decode(m.encoded()) == m) }
    #expect(throws: DecodeError(offset: 9, "sync log identity 0 is reserved")) {
      try PeerMessage.decode(PeerMessage.newLog(0).encoded())
    }
    var unknownOutcome = PeerMessage.checkResult(
      SyncCheckResult(outcome: .match, checked: SyncCursors(log: 1, lastSeq: 1, peerLog: 1, applied: 1), detail: "")
    ).encoded()
    unknownOutcome[1] = 7
    #expect(throws: DecodeError(offset: 2, "unknown check outcome 7")) { try PeerMessage.decode(unknownOutcome) }
  }

  @Test func malformedInputIsATypedErrorWithAnOffset() {
    #expect(throws: DecodeError(offset: 0, "unknown message type 9")) { try Frame.decode([9, 0, 0, 0, 0]) }
    #expect(throws: DecodeError(offset: 5, "unknown request opcode 200")) { try Frame.decode([1, 1, 0, 0, 0, 200]) }
    var truncated = Frame.request(id: 1, .uninstallApp(bundleID: "com.example")).encoded()
    truncated.removeLast(3)
    #expect(throws: DecodeError(offset: 10, "truncated string: need 11 bytes, 8 left")) { try Frame.decode(truncated) }
    var trailing = Frame.request(id: 1, .ping).encoded()
    trailing.append(0)
    #expect(throws: DecodeError(offset: 6, "1 unexpected trailing bytes after message")) { try Frame.decode(trailing) }
    // A count larger than the bytes left is refused before allocating.
    let hostile: [UInt8] = [1, 1, 0, 0, 0, 8, 1, 0, 0, 0, 0x61, 0xFF, 0xFF, 0xFF, 0x7F]
    #expect(throws: DecodeError(offset: 11, "array count 2147483647 exceeds the 0 bytes left")) {
      try Frame.decode(hostile)
    }
  }

  @Test func sha256MatchesKnownVectors() {
    func hex(_ b: [UInt8]) -> String { Hex.string(b) }
    #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }
}

@Suite("Health app values on the wire")
struct UserSettingCodingTests {
  /// Encodes one setting as a `changeUserSetting` request and decodes it.
  func decode(_ setting: UserSetting) throws -> Frame {
    try Frame.decode(Frame.request(id: 1, .changeUserSetting(setting)).encoded())
  }

  @Test func valuesThatDoNotFitTheirTypeAreDecodeErrors() {
    for bad: UserSetting in [
      .characteristic(water, nil), .characteristic(dateOfBirth, .dateOfBirth(year: 1990, month: 2, day: 30)),
      .characteristic(biologicalSex, .value(9)), .characteristic(bloodType, .dateOfBirth(year: 1, month: 1, day: 1)),
      .preferredUnit(biologicalSex, "kg"), .preferredUnit(water, "kg"), .preferredUnit(water, "bogus"),
    ] {
      #expect(throws: DecodeError.self, "\(bad)") { try decode(bad) }
    }
  }

  @Test func aDefaultPolicyIsWrittenAsBeforeAndUnitsUseBits4And5() throws {
    var w = BinaryWriter()
    w.policy(.defaults(for: .phone))
    #expect(w.bytes == [0, 0])
    var uk = BinaryWriter()
    uk.policy(DevicePolicy(reprompt: .strict, retention: nil, units: .uk))
    #expect(uk.bytes == [0b10_0001, 0])
    for flags: UInt8 in [0b0000_1000, 0b0011_0000, 0b0100_0000, 0x80] {
      #expect(throws: DecodeError.self) {
        try [flags, 0].withUnsafeBytes { buffer throws(DecodeError) in
          var r = BinaryReader(buffer)
          return try r.policy()
        }
      }
    }
  }

  @Test func journalEventsRoundTrip() throws {
    let events: [DeviceEvent] = [
      .deviceLocked(at: t0), .deviceUnlocked(at: t0.addingTimeInterval(60)),
      .samplesSavedWhileLocked([MessageCodingTests.sample]),
      .userSettingChanged(.characteristic(dateOfBirth, .dateOfBirth(year: 1985, month: 12, day: 31)), at: t0),
      .userSettingChanged(.preferredUnit(water, "fl_oz_us"), at: t0),
    ]
    for event in events {
      var w = BinaryWriter()
      w.event(event)
      let decoded = try w.bytes.withUnsafeBytes { buffer throws(DecodeError) in
        var r = BinaryReader(buffer)
        return try r.event()
      }
      #expect(decoded == event)
    }
  }
}

/// Encodings the fuzzers produced that once trapped the decoders.
@Suite("Hostile encodings (fuzz regressions)")
struct HostileEncodingTests {
  @Test func aCategoryValueBeyond32BitsIsADecodeError() {
    var w = BinaryWriter()
    let water = SampleType.lookup(name: "mindfulSession")!
    let t = Date(timeIntervalSinceReferenceDate: 0)
    w.sample(
      Sample(
        uuid: UUID(), type: water, value: .category(1 << 40), start: t, end: t,
        source: SampleSource(bundleID: "a", device: .phone)))
    w.bytes.withUnsafeBytes { buffer in
      var reader = BinaryReader(buffer)
      #expect(throws: DecodeError(offset: 27, "category value 1099511627776 out of range")) { _ = try reader.sample() }
    }
  }
}

@Suite("Strings in the binary codec")
struct BinaryStringTests {
  /// Reads back one length-prefixed string written as `bytes`.
  static func read(_ bytes: [UInt8]) throws -> String {
    var writer = BinaryWriter()
    writer.u32(UInt32(bytes.count))
    writer.bytes += bytes
    return try writer.bytes.withUnsafeBytes { buffer in
      var reader = BinaryReader(buffer)
      return try reader.string()
    }
  }

  @Test(
    "ASCII and multi-byte UTF-8 of every length across the eight-byte checks read back as written",
    arguments: [
      "", "a", "com.example", "com.example.simulated", "café", "Zürich 🏃‍♀️ run", "ßßßßßßßß", "abcdefg€",
    ])
  func validStringsRoundTrip(text: String) throws {
    #expect(try Self.read(Array(text.utf8)) == text)
  }

  @Test("Invalid UTF-8 is a decode error wherever the bad byte sits", arguments: [0, 3, 7, 8, 12, 20])
  func invalidUTF8IsAnError(position: Int) {
    var bytes = Array(repeating: UInt8(ascii: "x"), count: 21)
    bytes[position] = 0xFF
    #expect(throws: DecodeError.self) { _ = try Self.read(bytes) }
  }
}
