import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Wire

// How the `requests` target draws a request from its row: each field from its codec's palette of extreme values,
// then the row's constructor. A request of a new opcode is generated without code here; a field of a new kind needs
// its codec's `FuzzPalette` below (the seeded `FuzzTests` reach every opcode, and a codec without one stops them).

/// A codec whose values the `requests` target can draw.
protocol FuzzPalette: FieldCodec {
  /// A value drawn from the choices.
  static func draw(_ c: inout RequestFuzz.Choices) -> Value
}

extension RequestFuzz {
  /// Draws every field of a row and builds its request.
  struct DrawingVisitor: RequestDefinitionVisitor {
    /// The choices, drawn from in field order.
    let box: ChoicesBox

    func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>)
      -> Request
    {
      definition.make(repeat Self.draw((each Field).self, box))
    }

    /// A value of `codec`'s field, from its palette.
    static func draw<Field: FieldCodec>(_ codec: Field.Type, _ box: ChoicesBox) -> Field.Value {
      guard let palette = codec as? any FuzzPalette.Type else {
        preconditionFailure("the requests fuzz target has no palette for \(codec)")
      }
      return drawAny(palette, box) as! Field.Value
    }

    private static func drawAny<P: FuzzPalette>(_ palette: P.Type, _ box: ChoicesBox) -> Any {
      P.draw(&box.choices)
    }
  }

  /// The choices, shared by the fields of one request as they are drawn.
  final class ChoicesBox {
    var choices: Choices
    init(_ choices: Choices) { self.choices = choices }
  }
}

extension Codec.U16: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> UInt16 { c.pick([0, 4, .max]) }
}
extension Codec.U64: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> UInt64 { c.pick(RequestFuzz.Palette.unsigned) }
}
extension Codec.F64: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Double { c.pick(RequestFuzz.Palette.doubles) }
}
extension Codec.Flag: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Bool { c.byte() & 1 == 0 }
}
extension Codec.Count: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Int { c.pick(RequestFuzz.Palette.ints) }
}
extension Codec.ClientName: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> String { c.pick(RequestFuzz.Palette.strings) }
}
extension Codec.Bundle: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> String { c.pick(RequestFuzz.Palette.bundles) }
}
extension Codec.SampleTypeCode: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> SampleType { c.pick(RequestFuzz.Palette.types) }
}
extension Codec.Identifier: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> UUID { c.pick(RequestFuzz.Palette.uuids) }
}
extension Codec.Instant: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Date { c.pick(RequestFuzz.Palette.dates) }
}
extension Codec.Range: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> DateRange { c.dateRange() }
}
extension Codec.ImportID: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> UInt64 { c.pick(RequestFuzz.Palette.importIDs) }
}
extension Codec.NewSample: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> SampleInput { c.sample() }
}
extension Codec.ImportedSamples: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> [Sample] {
    (0..<Int(c.byte() % 4)).map { _ in c.importedSample() }
  }
}
extension Codec.Characteristics: FuzzPalette {
  /// The export's characteristics: valid, of no characteristic type, or a value the type does not take.
  static func draw(_ c: inout RequestFuzz.Choices) -> [SampleType: CharacteristicValue] {
    let options: [[SampleType: CharacteristicValue]] = [
      [:], [SampleType.lookup(name: "dateOfBirth")!: .dateOfBirth(year: 1990, month: 4, day: 2)],
      [SampleType.lookup(name: "bloodType")!: .value(8), SampleType.lookup(name: "biologicalSex")!: .value(1)],
      [SampleType.lookup(name: "bloodType")!: .value(99)], [c.pick(RequestFuzz.Palette.types): .value(1)],
    ]
    return c.pick(options)
  }
}
extension Codec.Query: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> SampleQuery {
    typealias Palette = RequestFuzz.Palette
    return SampleQuery(
      type: c.pick(Palette.types), range: c.range(), sources: c.pick([nil, [], Set(Palette.bundles)]),
      limit: c.pick(Palette.ints),
      sort: c.pick([[], [SampleSort(.endDate, ascending: false)], [SampleSort(.startDate, ascending: true)]]),
      filter: c.filter())
  }
}
extension Codec.StatisticsRequest: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> StatisticsQuery {
    typealias Palette = RequestFuzz.Palette
    return StatisticsQuery(
      type: c.pick(Palette.types), range: c.range(), sources: c.pick([nil, Set(Palette.bundles)]),
      options: StatisticsOptions(rawValue: UInt32(c.byte() % 128)), interval: c.pick([nil] + Palette.intervals),
      anchor: c.pick([nil] + Palette.dates), filter: c.filter())
  }
}
extension Codec.Settings: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> SettingsChange {
    let changes: [SettingsChange] = [
      .set(Permission(c.pick(RequestFuzz.Palette.types), c.pick([.share, .read])), on: c.byte() & 1 == 0),
      .turnAllOff, .reset,
    ]
    return c.pick(changes)
  }
}
extension Codec.Policy: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> DevicePolicy {
    typealias Palette = RequestFuzz.Palette
    return DevicePolicy(
      reprompt: c.pick([.standard, .strict]), retention: c.pick([nil] + Palette.doubles),
      background: c.pick([
        .standard,
        BackgroundDeliveryModel(responseWindow: c.pick(Palette.doubles), retryDelay: c.pick(Palette.doubles)),
      ]), timeZone: c.pick(Palette.zones))
  }
}
extension Codec.Cursor: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> StoredCursor {
    StoredCursor(sample: c.pick(RequestFuzz.Palette.unsigned), tombstone: c.pick(RequestFuzz.Palette.unsigned))
  }
}
extension Codec.Events: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> EventMask { EventMask(rawValue: UInt32(c.byte())) }
}
extension Codec.Link: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> LinkCommand {
    let commands: [LinkCommand] = [
      .connect, .disconnect, .hold, .release, .reconnectNow, .latency(c.pick(RequestFuzz.Palette.doubles)),
    ]
    return c.pick(commands)
  }
}
extension Codec.Answer: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> PromptAnswer {
    typealias Palette = RequestFuzz.Palette
    let answers: [PromptAnswer] = [
      .allowAll, .denyAll, .cancel, .failToPresent(.error), .failToPresent(.silent), .leaveApp,
      .choices([Permission(c.pick(Palette.types), .share): true, Permission(c.pick(Palette.types), .read): false]),
    ]
    return c.pick(answers)
  }
}
extension Codec.Setting: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> UserSetting {
    let type = c.pick(RequestFuzz.Palette.types)
    let values: [CharacteristicValue?] = [
      nil, .value(1), .value(2), .value(0), .value(Int(Int32.max)), .dateOfBirth(year: 1990, month: 4, day: 2),
      .dateOfBirth(year: 2023, month: 2, day: 29), .dateOfBirth(year: 0, month: 13, day: 40),
    ]
    let settings: [UserSetting] = [
      .characteristic(type, c.pick(values)), .preferredUnit(type, c.pick([nil] + RequestFuzz.Palette.units)),
    ]
    return c.pick(settings)
  }
}
extension Codec.Frequency: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> UpdateFrequency { c.pick(UpdateFrequency.allCases) }
}
extension Codec.Source: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> SampleSource {
    SampleSource(bundleID: c.pick(RequestFuzz.Palette.bundles), device: c.pick([.phone, .watch]))
  }
}
extension Codec.App: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> AppRecord {
    AppRecord(
      bundleID: c.pick(RequestFuzz.Palette.bundles), displayName: c.pick(RequestFuzz.Palette.strings),
      writeUsageDescription: c.pick([nil, "w", ""]), readUsageDescription: c.pick([nil, "r", ""]))
  }
}
extension Codec.Entitlements: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Set<Entitlement> {
    c.pick([[], [.backgroundDelivery], [.healthRecords], Set(Entitlement.allCases)])
  }
}
extension Codec.HealthRecordsInfo: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> HealthRecordsInfo {
    let clinical = HealthRecordsInfo.clinicalTypes.map(\.identifier)
    return HealthRecordsInfo(
      usageDescription: c.pick([nil, "c", ""]),
      requiredTypes: c.pick([[], Array(clinical.prefix(2)), Array(clinical.prefix(3)), ["x", "", "y", "z"]]))
  }
}
extension Codec.NewCorrelation: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> CorrelationInput { c.correlationInput() }
}
extension Codec.StoredCorrelation: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Correlation {
    typealias Palette = RequestFuzz.Palette
    let start = c.pick(Palette.dates)
    return Correlation(
      uuid: c.pick(Palette.uuids), type: c.pick(Palette.correlationTypes), start: start,
      end: c.byte() & 1 == 0 ? start : c.pick(Palette.dates), metadata: c.pick(Palette.metadata),
      source: c.pick(Palette.sources), members: Array(Set([c.pick(Palette.uuids), c.pick(Palette.uuids)])))
  }
}
extension Codec.CorrelationRequest: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> CorrelationQuery {
    typealias Palette = RequestFuzz.Palette
    let base = SampleQuery(
      type: c.pick(Palette.correlationTypes + [c.pick(Palette.types)]), range: c.range(),
      sources: c.pick([nil, [], Set(Palette.bundles)]), limit: c.pick(Palette.ints),
      sort: c.pick([[], [SampleSort(.endDate, ascending: false)]]), filter: c.filter())
    let members = (0..<Int(c.byte() % 3)).map { _ in
      CorrelationQuery.MemberCondition(type: c.pick(Palette.memberTypes), range: c.range(), filter: c.filter())
    }
    return CorrelationQuery(base: base, members: members)
  }
}
extension Codec.Optional: FuzzPalette {
  /// Absent or present, half the time each.
  static func draw(_ c: inout RequestFuzz.Choices) -> Wrapped.Value? {
    guard c.byte() & 1 == 1 else { return nil }
    let box = RequestFuzz.ChoicesBox(c)
    defer { c = box.choices }
    return RequestFuzz.DrawingVisitor.draw(Wrapped.self, box)
  }
}
extension Codec.Many: FuzzPalette {
  /// None to three elements.
  static func draw(_ c: inout RequestFuzz.Choices) -> [Element.Value] {
    let count = Int(c.byte() % 4)
    let box = RequestFuzz.ChoicesBox(c)
    defer { c = box.choices }
    return (0..<count).map { _ in RequestFuzz.DrawingVisitor.draw(Element.self, box) }
  }
}
