import DeviceCore
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Wire

/// The `requests` target: the daemon's request handling itself (``RequestCore``), driven by *well-formed* requests
/// whose fields are drawn from palettes of extreme values — huge, negative, zero, NaN, infinite, the largest
/// integers, empty and oversized strings, unknown units — for every request kind.
///
/// Beyond "never crashes", it checks what makes a journal trustworthy: every event a request produced survives its
/// binary encoding unchanged, and replaying the events into a fresh device rebuilds exactly the live state.
package enum RequestFuzz {
  /// The requests the generator draws from: every opcode but `hello`, which the connection answers. Each is drawn
  /// from its row in `RequestTable`, so a new request is generated as soon as it has one.
  package static let opcodes = RequestOpcode.allCases.filter { $0 != .hello }
  /// How many request kinds there are (the seed corpus has one seed per kind).
  package static var kinds: Int { opcodes.count }

  /// Runs the requests the bytes describe; nil when every property held, else what broke.
  package static func finding(_ data: [UInt8]) -> String? {
    var choices = Choices(data)
    let device: DeviceKind = choices.byte() & 1 == 0 ? .phone : .watch
    var state = DeviceState(device: device)
    let context = RequestCore.Context(
      wall: Palette.wall, hasPeer: true,
      link: LinkStatus(
        enabled: true, connected: false, holding: false, latency: 0,
        sync: DeviceSnapshot.SyncStatus(
          lastSeq: 0, peerAcked: 0, appliedFromPeer: 0, pendingEntries: 0, pendingItems: 0)),
      pid: 1, clients: 1)
    var journal: [DeviceEvent] = []
    // A granted app to start from, through requests like everything else.
    for request in Palette.setUp {
      let (answer, effects) = RequestCore.handle(request, state: &state, context: context)
      journal += effects.events
      if case .pending = answer {
        journal +=
          RequestCore.handle(
            .answerPrompt(promptID: nil, bundleID: nil, answer: .allowAll), state: &state, context: context
          ).effects.events
      }
    }
    var steps = 0
    while !choices.isAtEnd && steps < 64 {
      steps += 1
      let request = make(&choices)
      let (_, effects) = RequestCore.handle(request, state: &state, context: context)
      // What the daemon does at each commit: deliveries due, misses, retries (runtime only, nothing journaled).
      _ = state.backgroundStep(wall: Palette.wall)
      for event in effects.events {
        var writer = BinaryWriter()
        writer.event(event)
        let decoded: DeviceEvent
        do {
          decoded = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
            var reader = BinaryReader(buffer)
            return try reader.event()
          }
        } catch {
          return "\(request.name) journaled an event its own decoder refuses (\(error)): \(event)"
        }
        var again = BinaryWriter()
        again.event(decoded)
        if again.bytes != writer.bytes { return "\(request.name): an event changed through the codec: \(event)" }
        journal.append(decoded)
      }
    }
    if let bad = nonFinite(state) { return bad }
    var replayed = DeviceState(device: device)
    for event in journal { replayed.apply(event) }
    return difference(state, replayed)
  }

  /// A non-finite number or date the device accepted, if any: nothing stored may be infinite or NaN.
  static func nonFinite(_ state: DeviceState) -> String? {
    // Numbers, not dates, in these messages: describing a non-finite date traps.
    if let now = state.virtualNow, !now.timeIntervalSinceReferenceDate.isFinite {
      return "the clock was set to \(now.timeIntervalSinceReferenceDate) s"
    }
    if let retention = state.policy.retention, !retention.isFinite { return "a retention of \(retention) was accepted" }
    for sample in state.storedSamples(wall: Palette.wall) {
      let (start, end) = (sample.start.timeIntervalSinceReferenceDate, sample.end.timeIntervalSinceReferenceDate)
      if case .quantity(let v) = sample.value, !v.isFinite { return "a \(sample.type.name) sample of \(v) was stored" }
      if !start.isFinite || !end.isFinite { return "a sample from \(start) s to \(end) s was stored" }
      for (key, value) in sample.metadata {
        switch value {
        case .double(let d) where !d.isFinite: return "metadata \(key) = \(d) was stored"
        case .quantity(let d, _) where !d.isFinite: return "metadata \(key) = \(d) was stored"
        case .date(let d) where !d.timeIntervalSinceReferenceDate.isFinite:
          return "metadata \(key) = \(d.timeIntervalSinceReferenceDate) s was stored"
        default: continue
        }
      }
    }
    return nil
  }

  /// What differs between a live state and its replay (runtime-only parts — sheets — excluded).
  static func difference(_ live: DeviceState, _ replayed: DeviceState) -> String? {
    let wall = Palette.wall
    var a = live.snapshot(wall: wall)
    var b = replayed.snapshot(wall: wall)
    a.pendingPrompts = []
    a.promptHistory = []
    a.waitingExtensionRequests = []
    b.pendingPrompts = []
    b.promptHistory = []
    b.waitingExtensionRequests = []
    if a != b { return "replay differs from the live state:\n  live:     \(a)\n  replayed: \(b)" }
    let liveSamples = live.storedSamples(wall: wall).map(encoded)
    let replayedSamples = replayed.storedSamples(wall: wall).map(encoded)
    if liveSamples != replayedSamples { return "replayed samples differ from the live store" }
    if live.storedTombstones != replayed.storedTombstones { return "replayed tombstones differ" }
    if live.sync != replayed.sync { return "the replayed sync ledger differs" }
    if live.syncConflictCount != replayed.syncConflictCount { return "replayed conflicts differ" }
    if live.backgroundRegistrations != replayed.backgroundRegistrations {
      return "replayed background delivery registrations differ"
    }
    return nil
  }

  private static func encoded(_ sample: Sample) -> [UInt8] {
    var writer = BinaryWriter()
    writer.sample(sample)
    return writer.bytes
  }

  /// One well-formed request: an opcode, then its row's fields drawn from their codecs' palettes
  /// (RequestFuzz+Fields.swift) and built by the row's constructor.
  static func make(_ c: inout Choices) -> Request {
    let opcode = opcodes[Int(c.byte()) % opcodes.count]
    let box = ChoicesBox(c)
    defer { c = box.choices }
    var drawing = DrawingVisitor(box: box)
    return opcode.visitDefinition(&drawing)
  }

  /// Deterministic choices read from the fuzz input (zeros once it runs out).
  struct Choices {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
      defer { index += 1 }
      return index < bytes.count ? bytes[index] : 0
    }

    mutating func pick<T>(_ options: [T]) -> T { options[Int(byte()) % options.count] }

    mutating func types() -> [SampleType] { (0..<Int(byte() % 3)).map { _ in pick(Palette.types) } }

    mutating func range() -> DateRange? {
      guard byte() & 1 == 1 else { return nil }
      return dateRange()
    }

    mutating func dateRange() -> DateRange {
      DateRange(
        start: pick([nil] + Palette.dates), end: pick([nil] + Palette.dates),
        options: QueryOptions(rawValue: UInt32(byte() % 4)))
    }

    /// A sample as an import gives it: stored form, a source from the palette (with export details or not).
    mutating func importedSample() -> Sample {
      let type = pick(Palette.types)
      let value: SampleValue = byte() & 1 == 0 ? .quantity(pick(Palette.doubles)) : .category(pick(Palette.ints) % 8)
      let start = pick(Palette.dates)
      return Sample(
        uuid: pick(Palette.uuids), type: type, value: value, start: start,
        end: byte() & 1 == 0 ? start : pick(Palette.dates), metadata: pick(Palette.metadata),
        source: pick(Palette.sources))
    }

    mutating func filter() -> SampleFilter? {
      let leaves: [SampleFilter] = [
        .constant(false), .uuids(Set(Palette.uuids.prefix(2))), .sources(["", "com.example.water"]),
        .metadata(key: "HKWasUserEntered", .exists),
        .metadata(key: "k", .oneOf([.double(.nan), .string(""), .quantity(1, unit: "bogus")])),
        .metadata(key: "HKWasUserEntered", .compare(pick(ComparisonOperator.allCases), pick(Palette.metadataValues))),
        .device(pick(DeviceProperty.allCases), ["iPhone", ""]),
        .value(pick(ComparisonOperator.allCases), pick(Palette.doubles)),
        .quantity(pick(ComparisonOperator.allCases), pick(Palette.doubles), unit: pick(Palette.units)),
        .notInCorrelation,
        .date(pick(SampleDateField.allCases), pick(ComparisonOperator.allCases), pick(Palette.doubles)),
        .workoutActivityType([37, 0, UInt.max]),
        .workoutDuration(pick(ComparisonOperator.allCases), pick(Palette.doubles)),
        .workoutActivity(.workoutDuration(pick(ComparisonOperator.allCases), pick(Palette.doubles))),
        .associatedWith(pick(Palette.uuids)),
      ]
      switch byte() % 5 {
      case 0: return nil
      case 1: return pick(leaves)
      case 2: return .and([pick(leaves), pick(leaves)])
      case 3: return .or([pick(leaves), .not(pick(leaves))])
      default: return .not(.and([]))
      }
    }

    /// A correlation an app saves: a blood pressure or food entry with well-formed or stray members.
    mutating func correlationInput() -> CorrelationInput {
      let start = pick(Palette.dates)
      var members = (0..<Int(byte() % 3)).map { _ in sample() }
      if byte() & 1 == 0 {
        for name in ["bloodPressureSystolic", "bloodPressureDiastolic"] {
          members.append(
            SampleInput(
              uuid: pick(Palette.uuids), type: SampleType.lookup(name: name)!, value: .quantity(120, unit: "mmHg"),
              start: start, end: start))
        }
      }
      return CorrelationInput(
        uuid: pick(Palette.uuids), type: pick(Palette.correlationTypes + [pick(Palette.types)]), start: start,
        end: byte() & 1 == 0 ? start : pick(Palette.dates), metadata: pick(Palette.metadata), members: members)
    }

    mutating func sample() -> SampleInput {
      let type = pick(Palette.types)
      let value: SampleInput.Value =
        byte() & 1 == 0
        ? .quantity(pick(Palette.doubles), unit: pick(Palette.units))
        : .category(pick(Palette.ints))
      let start = pick(Palette.dates)
      return SampleInput(
        uuid: pick(Palette.uuids), type: type, value: value, start: start,
        end: byte() & 1 == 0 ? start : pick(Palette.dates), metadata: pick(Palette.metadata))
    }
  }

  /// The values requests are built from.
  enum Palette {
    static let t0 = Date(timeIntervalSinceReferenceDate: 789_292_800)  // 2026-01-05T08:00:00Z
    static let wall = t0.addingTimeInterval(3_600)
    static let bundles = ["com.example.water", "com.example.other", "", String(repeating: "x", count: 2_000), "é.app"]
    static let strings = ["Water", "", String(repeating: "w", count: 5_000)]
    static let types: [SampleType] = SampleType.all
    static let correlationTypes = ["bloodPressure", "food"].map { SampleType.lookup(name: $0)! }
    static let memberTypes = [
      "bloodPressureSystolic", "bloodPressureDiastolic", "dietaryWater", "dietaryEnergyConsumed",
    ]
    .map { SampleType.lookup(name: $0)! }
    static let units = [
      "mL", "L", "count", "count/min", "kcal", "degF", "min", "fl_oz_us", "mL/kg", "bogus", "", "L/L/L",
    ]
    static let doubles: [Double] = [
      0, -0.0, 1, -1, 0.5, 250, 3_600, 86_400, 604_800, 1e9, -1e9, 1e18, 9.3e18, 1.9e19, 1e300, -1e300,
      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity, .nan,
    ]
    static let dates: [Date] =
      [t0, t0.addingTimeInterval(60), t0.addingTimeInterval(-8 * 86_400), .distantPast, .distantFuture]
      + doubles.map { Date(timeIntervalSinceReferenceDate: $0) } + doubles.map { t0.addingTimeInterval($0) }
    static let ints: [Int] = [0, 1, -1, 2, 5, 1_000, Int(Int32.max), Int(Int32.min), Int.max, Int.min]
    static let intervals: [CalendarInterval] =
      doubles.map { CalendarInterval.seconds($0) } + [
        CalendarInterval(days: 1), CalendarInterval(days: 7), CalendarInterval(months: 1), CalendarInterval(months: 12),
        CalendarInterval(months: 1, days: 1, seconds: 3_600), CalendarInterval(months: -1),
        CalendarInterval(days: Int(Int32.max)), CalendarInterval(months: Int(Int32.min)),
      ]
    static let zones: [TimeZoneRule] = ["UTC", "Europe/Paris", "America/New_York", "Australia/Sydney", "UTC+05:30"]
      .map { try! TimeZoneRule(identifier: $0) }
    static let unsigned: [UInt64] = [0, 1, 2, 5, 1_000, UInt64(Int.max), UInt64(Int.max) + 1, .max]
    static let uuids: [UUID] = (1...4).map { i in
      UUID(uuid: (UInt8(i), 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0))
    }
    static let metadata: [Metadata] = [
      [:], ["HKWasUserEntered": .bool(true)], ["k": .double(.nan)], ["k": .double(.infinity)],
      ["k": .quantity(.infinity, unit: "mL")], ["k": .quantity(1, unit: "bogus")], ["k": .int(.max)],
      ["HKMenstrualCycleStart": .bool(true)], ["HKMetadataKeySyncVersion": .int(1)],
      ["HKMetadataKeySyncIdentifier": .string("s"), "HKMetadataKeySyncVersion": .int(1)],
      ["HKMetadataKeySyncIdentifier": .string("s"), "HKMetadataKeySyncVersion": .double(2.5)],
      ["HKMetadataKeySyncIdentifier": .string("s"), "HKMetadataKeySyncVersion": .int(.max)],
      ["HKMetadataKeySyncIdentifier": .int(3), "HKMetadataKeySyncVersion": .int(1)],
      ["HKMetadataKeySyncIdentifier": .string("s")],
      ["k": .date(Date(timeIntervalSinceReferenceDate: .greatestFiniteMagnitude))],
      ["k": .string(String(repeating: "m", count: 10_000))],
    ]
    static let importIDs: [UInt64] = [0, 1, 2, .max]
    static let sources: [SampleSource] = [
      SampleSource(bundleID: "com.apple.Health", device: .phone, details: SourceDetails(name: "Health", version: "17")),
      SampleSource(
        bundleID: "com.apple.health.1", device: .watch,
        details: SourceDetails(
          name: "Watch", version: nil,
          hardware: HardwareDetails(fields: [
            .init("model", "Watch"), .init("name", String(repeating: "n", count: 2_000)),
          ]))),
      SampleSource(bundleID: "com.example.water", device: .phone),
      SampleSource(bundleID: "", device: .phone, details: SourceDetails(name: "")),
      SampleSource(bundleID: "bad id", device: .watch),
    ]
    static let metadataValues: [MetadataValue] = [
      .bool(true), .int(.min), .double(.nan), .double(.infinity), .string(""), .date(.distantPast),
      .quantity(1, unit: "mL"), .quantity(.nan, unit: "bogus"),
    ]
    static let granted = [
      "dietaryWater", "mindfulSession", "stepCount", "heartRate", "sleepAnalysis", "bodyMass",
      "bloodPressureSystolic", "bloodPressureDiastolic",
    ]
    .compactMap { SampleType.lookup(name: $0) }
    static let setUp: [Request] = [
      .setClock(t0),
      .installApp(
        AppRecord(
          bundleID: bundles[0], displayName: "Water", writeUsageDescription: "w", readUsageDescription: "r",
          entitlements: [.backgroundDelivery])),
      .requestAuthorization(bundleID: bundles[0], share: granted, read: granted),
    ]
  }
}
