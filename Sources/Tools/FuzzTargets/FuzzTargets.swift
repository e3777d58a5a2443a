import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Journal
import ScenarioLanguage
import Wire

/// The fuzz targets: each takes arbitrary bytes and must return without crashing, hanging or allocating
/// without bound, whatever the bytes. libFuzzer (`make fuzz`) and a seeded in-process test (`make test`) drive them.
package enum FuzzTargets {
  /// The targets' names.
  package static let names = ["frames", "messages", "journal", "snapshot", "scenario", "requests", "export"]

  /// Checks the target's properties on `data` (``FuzzProperties``), stopping the process on a finding so that
  /// libFuzzer keeps the input, then runs target `name` on it; false when the name is unknown.
  @discardableResult
  package static func run(_ name: String, _ data: [UInt8]) -> Bool {
    if let finding = FuzzProperties.finding(name, data) { fatalError(finding) }
    switch name {
    case "frames": frames(data)
    case "messages": messages(data)
    case "journal": journal(data)
    case "snapshot": snapshot(data)
    case "scenario", "export": break  // parsed (and read) by FuzzProperties just above
    case "requests": if let finding = RequestFuzz.finding(data) { fatalError(finding) }
    default: return false
    }
    return true
  }

  /// The frame decoder, fed in chunks whose sizes come from the data itself.
  package static func frames(_ data: [UInt8]) {
    var decoder = FrameDecoder(maxFrameLength: 4096)
    var offset = 0
    var chunkSeed = UInt(data.first ?? 7)
    while offset < data.count {
      let size = min(data.count - offset, 1 + Int(chunkSeed % 97))
      chunkSeed = chunkSeed &* 31 &+ 17
      decoder.append(Array(data[offset..<offset + size]))
      offset += size
      do {
        while let frame = try decoder.next() { _ = frame.count }
      } catch {
        return
      }
    }
    _ = try? decoder.finish()
  }

  /// The client-protocol and peer-link message decoders.
  package static func messages(_ data: [UInt8]) {
    if let frame = try? Frame.decode(data) { _ = try? Frame.decode(frame.encoded()) }
    _ = try? PeerMessage.decode(data)
  }

  /// The framing of the journals the `journal` target builds: version 2 with a fixed salt.
  package static let journalFraming = JournalFormat.Framing.version2(device: 1, salt: 0x5EED_5EED_5EED_5EED)

  /// The journal reader: a valid header, then records, scanned, decoded and replayed into a device, which is then
  /// queried. The first byte picks the mode: bit 0 clear — the rest is raw record bytes (exercises the recovery
  /// scan; a mutated record mostly fails its checksum); set — the rest is `[u16 length][payload]…`, each payload
  /// framed with valid checksums, so mutations reach the event decoder and replay. Bit 1 picks a version-1 file
  /// instead of ``journalFraming``.
  package static func journal(_ data: [UInt8]) {
    let framing = (data.first ?? 0) & 2 == 2 ? JournalFormat.Framing.version1(device: 1) : journalFraming
    var bytes = framing.fileHeader
    if let mode = data.first, mode & 1 == 1 {
      var i = 1
      while i + 2 <= data.count {
        let length = Int(data[i]) | Int(data[i + 1]) << 8
        i += 2
        let end = min(data.count, i + length)
        data[i..<end].withUnsafeBytes { framing.appendRecord($0, to: &bytes) }
        i = end
      }
    } else {
      bytes += data.dropFirst()
    }
    _ = bytes.withUnsafeBytes { try? JournalFormat.parseHeader($0) }
    var state = DeviceState(device: .watch)
    bytes.withUnsafeBytes { buffer in
      let scan = JournalFormat.scan(buffer, framing: framing)
      for record in scan.records {
        var reader = BinaryReader(
          UnsafeRawBufferPointer(rebasing: buffer[record.offset..<record.offset + record.length]),
          reportBase: record.offset)
        guard let event = try? reader.event() else { continue }
        state.apply(event)
      }
    }
    exercise(&state)
  }

  /// The snapshot reader: the first byte picks the mode: even — the rest is a whole snapshot file (exercises the
  /// trailer and chunk checksums; a mutated file mostly fails them); odd — the rest is a snapshot body (journal
  /// position, then state), framed with a valid header and checksums by the target, so mutations reach the decoder
  /// and the restore checks. A state that restores is queried and changed.
  package static func snapshot(_ data: [UInt8]) {
    let bytes: [UInt8]
    if let mode = data.first, mode & 1 == 1 {
      bytes = SnapshotFile.file(header: SnapshotFile.header(device: .watch), body: Array(data.dropFirst()))
    } else {
      bytes = Array(data.dropFirst())
    }
    guard let decoded = try? bytes.withUnsafeBytes({ try SnapshotFile.decode($0, device: .watch, path: "fuzz") }) else {
      return
    }
    var state = decoded.0
    exercise(&state)
    _ = state.restartSyncLog(logID: 7)
    _ = state.outboundEntries(after: 0, maxItems: 100)
  }

  /// Reads a device every way an app or the peer can.
  private static func exercise(_ state: inout DeviceState) {
    let wall = Date(timeIntervalSinceReferenceDate: 800_000_000)
    _ = state.snapshot(wall: wall)
    _ = state.storedSamples(wall: wall)
    _ = state.outboundEntries(after: 0, maxItems: 100)
    for bundle in state.apps.keys.prefix(2) {
      for type in [SampleType.lookup(name: "dietaryWater")!, SampleType.lookup(name: "mindfulSession")!] {
        _ = try? state.sampleQuery(bundle, SampleQuery(type: type), wall: wall)
        _ = try? state.anchoredQuery(bundle, type: type, anchor: 0, range: nil, limit: 0, wall: wall)
      }
    }
  }

  /// The scenario parser, on the raw bytes of a file (encoding checks included).
  package static func scenario(_ data: [UInt8]) {
    if case .failure(let diagnostics) = ScenarioParser.parse(bytes: data, file: "fuzz.scenario", loader: .none) {
      _ = diagnostics.description
    }
  }

  /// Valid inputs of a target: the starting corpus, and the material the mutator works from.
  package static func seeds(_ name: String, scenarioFiles: [String] = []) -> [[UInt8]] {
    let t0 = parseDate("2026-01-05T08:00:00Z")!
    let water = SampleType.lookup(name: "dietaryWater")!
    let mindful = SampleType.lookup(name: "mindfulSession")!
    let app = AppRecord(
      bundleID: "com.example.water", displayName: "Water", writeUsageDescription: "w", readUsageDescription: "r")
    let sample = Sample(
      uuid: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), type: water, value: .quantity(250),
      start: t0, end: t0,
      metadata: ["HKWasUserEntered": .bool(true)], source: SampleSource(bundleID: app.bundleID, device: .phone))
    let requests: [Request] = [
      .hello(version: WireProtocol.version, client: "fuzz"), .installApp(app),
      .requestAuthorization(bundleID: app.bundleID, share: [water], read: [water]),
      .answerPrompt(promptID: 1, bundleID: nil, answer: .choices([Permission(water, .share): true])),
      .save(
        bundleID: app.bundleID,
        samples: [SampleInput(uuid: sample.uuid, type: water, value: .quantity(1, unit: "cup_us"), start: t0, end: t0)]),
      .sampleQuery(
        bundleID: app.bundleID,
        query: SampleQuery(
          type: water, range: DateRange(start: t0, end: nil), limit: 5, sort: [SampleSort(.endDate, ascending: false)])),
      .statisticsCollection(
        bundleID: app.bundleID,
        query: StatisticsQuery(type: water, options: .cumulativeSum, interval: CalendarInterval(days: 1), anchor: t0)),
      .setSourceOrder(type: water, sources: [SampleSource(bundleID: app.bundleID, device: .watch)]),
      .link(.latency(0.1)), .dump,
    ]
    let workouts = WorkoutSeed(t0: t0, app: app.bundleID, sample: sample)
    let events: [DeviceEvent] = [
      .clockSet(t0), .appInstalled(app),
      .promptAnswered(bundleID: app.bundleID, changes: [AuthorizationChange(Permission(water, .share), .authorized)]),
      .samplesSaved([sample]),
      .samplesDeleted([Tombstone(uuid: sample.uuid, type: water, source: sample.source, deletedAt: t0)]),
      .peerEntriesApplied([SyncEntry(seq: 1, payload: .samples([sample]))], at: t0), .peerAcknowledged(1),
      .watchSettingsQueued(bundleID: app.bundleID, change: .set(Permission(mindful, .share), on: true)),
      .policyChanged(DevicePolicy(reprompt: .standard, retention: 3600)), .syncLogRestarted(logID: 42),
      .peerLogAdopted(logID: 43), .peerResendRequested, .peerResendAnswered(logID: 44),
      .policyChanged(
        DevicePolicy(reprompt: .standard, retention: nil, timeZone: try! TimeZoneRule(identifier: "Europe/Paris"))),
      .sourceOrderChanged(
        water, SourceOrder(sources: [SampleSource(bundleID: app.bundleID, device: .watch)], at: t0, device: .phone)),
    ] + workouts.events
    switch name {
    case "frames":
      return requests.map { Frame.request(id: 7, $0).framed() } + [
        requests.flatMap { Frame.request(id: 1, $0).framed() }
      ]
    case "messages":
      return requests.map { Frame.request(id: 3, $0).encoded() } + [
        Frame.response(id: 3, .failure(.healthKit(.errorNoData, "none"))).encoded(),
        Frame.event(.linkChanged(connected: true)).encoded(),
        PeerMessage.entries([SyncEntry(seq: 4, payload: .samples([sample]))]).encoded(),
        PeerMessage.entries(workouts.entries).encoded(),
        PeerMessage.ack(9, ofLog: 5).encoded(), PeerMessage.resume(appliedUpTo: 3, ofLog: 5, myLog: 6).encoded(),
        PeerMessage.newLog(7).encoded(), PeerMessage.resendAll.encoded(),
        PeerMessage.check(
          SyncCheck(
            cursors: SyncCursors(log: 1, lastSeq: 2, peerLog: 3, applied: 4), firstDay: 9_000,
            days: [SampleStore.DayDigest(day: 9_001, sum: 5, count: 1)])
        ).encoded(),
        PeerMessage.checkResult(
          SyncCheckResult(
            outcome: .mismatch, checked: SyncCursors(log: 1, lastSeq: 2, peerLog: 3, applied: 4), detail: "x")
        ).encoded(),
      ] + sessionPeerSeeds(t0: t0, app: app.bundleID).map { $0.encoded() }
    case "journal":
      // Raw mode (first byte 0): whole records.
      var all: [UInt8] = [0]
      DurableDevice.encode(events, framing: journalFraming, into: &all)
      let raw =
        events.map { e -> [UInt8] in
          var one: [UInt8] = [0]
          DurableDevice.encode([e], framing: journalFraming, into: &one)
          return one
        } + [all]
      // Payload mode (first byte 1): length-prefixed event payloads, framed by the target.
      let payloads = events.map { e -> [UInt8] in
        var w = BinaryWriter()
        w.event(e)
        return [UInt8(truncatingIfNeeded: w.bytes.count), UInt8(truncatingIfNeeded: w.bytes.count >> 8)] + w.bytes
      }
      // Bit 1 set: the same payloads in a version-1 journal.
      return raw + payloads.map { [1] + $0 } + [[1] + payloads.flatMap { $0 }, [3] + payloads.flatMap { $0 }]
    case "requests":
      // Each byte picks a request kind or a field; one seed per kind, then a few mixed runs.
      var seeds: [[UInt8]] = []
      for kind in 0..<RequestFuzz.kinds {
        let fields: [UInt8] = (0..<24).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i &* 37 &+ kind) }
        seeds.append([0, UInt8(kind)] + fields)
      }
      let mixed: [UInt8] = (0..<200).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i &* 13) }
      seeds.append([1] + mixed)
      seeds.append([0] + [UInt8](repeating: 6, count: 64))
      return seeds
    case "snapshot":
      var state = DeviceState(device: .watch)
      for event in events { state.apply(event) }
      var body = BinaryWriter()
      body.position(
        JournalPosition(
          header: journalFraming.fileHeader, end: journalFraming.headerSize, records: 0, lastRecord: nil,
          tailLength: 0, tailChecksum: 0))
      body.deviceState(state) { (_: inout BinaryWriter) in }
      let empty = DeviceState(device: .watch)
      var emptyBody = BinaryWriter()
      emptyBody.position(
        JournalPosition(header: [], end: 0, records: 0, lastRecord: nil, tailLength: 0, tailChecksum: 0))
      emptyBody.deviceState(empty) { (_: inout BinaryWriter) in }
      let file = SnapshotFile.file(header: SnapshotFile.header(device: .watch), body: body.bytes)
      return [[1] + body.bytes, [1] + emptyBody.bytes, [0] + file]
    case "export": return ExportFuzz.seeds
    case "scenario":
      return scenarioFiles.map { Array($0.utf8) } + [
        Array(
          "install Water on phone share dietaryWater\nphone: Water requests\nuser on phone: allows all\nexpect phone: Water sees 0 dietaryWater samples\n"
            .utf8)
      ]
    default: return []
    }
  }
}

/// Seeded mutations of valid inputs: bit flips, byte changes, insertions, deletions, splices, interesting values.
package struct Mutator {
  private var state: UInt64

  /// Creates a mutator.
  package init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

  /// The next random number.
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  private mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }

  /// Random bytes.
  package mutating func random(maxLength: Int) -> [UInt8] {
    (0..<below(maxLength + 1)).map { _ in UInt8(truncatingIfNeeded: next()) }
  }

  /// A mutated copy of one of `seeds`.
  package mutating func mutate(_ seeds: [[UInt8]]) -> [UInt8] {
    var data = seeds.isEmpty ? [] : seeds[below(seeds.count)]
    for _ in 0..<(1 + below(4)) {
      switch below(7) {
      case 0 where !data.isEmpty: data[below(data.count)] ^= UInt8(1 << below(8))
      case 1 where !data.isEmpty: data[below(data.count)] = UInt8(truncatingIfNeeded: next())
      case 2: data.insert(UInt8(truncatingIfNeeded: next()), at: below(data.count + 1))
      case 3 where !data.isEmpty: data.remove(at: below(data.count))
      case 4 where !data.isEmpty:
        let cut = below(data.count)
        data = Array(data[..<cut]) + (seeds.isEmpty ? [] : seeds[below(seeds.count)].suffix(below(64)))
      case 5 where data.count >= 4:
        // Interesting little-endian values at a random position (lengths, counts).
        let values: [UInt32] = [0, 1, 0x7F, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x0100_0000]
        let v = values[below(values.count)]
        let at = below(data.count - 3)
        for i in 0..<4 { data[at + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) }
      default: if !data.isEmpty { data.removeLast(below(min(8, data.count) + 1)) }
      }
    }
    return data
  }
}
