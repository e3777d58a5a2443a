import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The layouts of what a request asks: sample and statistics queries, predicates, sheet answers, store cursors
// (docs/protocol.md, `sample-query`, `filter`, `statistics-query`, `answer`, `stored-cursor`).

extension BinaryWriter {
  mutating func types(_ t: [SampleType]) { array(t) { $0.sampleType($1) } }

  mutating func promptAnswer(_ a: PromptAnswer) {
    switch a {
    case .allowAll: u8(0)
    case .denyAll: u8(1)
    case .choices(let choices):
      u8(2)
      array(choices.sorted { $0.key < $1.key }) { w, item in
        w.permission(item.key)
        w.bool(item.value)
      }
    case .cancel: u8(3)
    case .failToPresent(let mode):
      u8(4)
      u8(mode == .error ? 0 : 1)
    case .leaveApp: u8(5)
    case .objects(let on):
      u8(6)
      uuids(on.sorted { $0.uuidString < $1.uuidString })
    }
  }

  mutating func sampleQuery(_ q: SampleQuery) {
    sampleType(q.type)
    optional(q.range) { $0.dateRange($1) }
    optional(q.sources.map { $0.sorted() }) { w, s in w.array(s) { $0.string($1) } }
    u32(UInt32(clamping: q.limit))
    array(q.sort) { w, s in
      w.u8(s.field.rawValue)
      w.bool(s.ascending)
    }
    optional(q.filter) { $0.sampleFilter($1) }
  }

  /// `u8` tag then the node: 0 constant bool | 1 and [filter] | 2 or [filter] | 3 not filter | 4 dates range |
  /// 5 sources [string] | 6 uuids [uuid] | 7 metadata key string, condition (0 exists | 1 one of [value] |
  /// 2 compare op u8, value) | 8 device property u8, [string] | 9 value op u8, f64 | 10 quantity op u8, f64, unit
  /// string | 11 not in a correlation | 12 date field u8, op u8, f64 | 13 workout activity types [u64] |
  /// 14 workout duration op u8, f64 | 15 workout statistic type, kind u8, op u8, f64 | 16 workout activity filter |
  /// 17 associated with workout uuid | 18 electrocardiogram property u8, [i64] | 19 State of Mind valence op u8,
  /// f64 | 20 State of Mind field u8 (0 kind, 1 label, 2 association), i64 | 21 FHIR resource type string,
  /// identifier string? | 22 CDA field u8 (0 title, 1 patient, 2 author, 3 custodian), string.
  mutating func sampleFilter(_ f: SampleFilter) {
    switch f {
    case .constant(let b):
      u8(0)
      bool(b)
    case .and(let parts):
      u8(1)
      array(parts) { $0.sampleFilter($1) }
    case .or(let parts):
      u8(2)
      array(parts) { $0.sampleFilter($1) }
    case .not(let part):
      u8(3)
      sampleFilter(part)
    case .dates(let range):
      u8(4)
      dateRange(range)
    case .sources(let bundles):
      u8(5)
      array(bundles.sorted()) { $0.string($1) }
    case .uuids(let uuids):
      u8(6)
      array(uuids.sorted { $0.uuidString < $1.uuidString }) { $0.uuid($1) }
    case .metadata(let key, let condition):
      u8(7)
      string(key)
      switch condition {
      case .exists: u8(0)
      case .oneOf(let values):
        u8(1)
        array(values) { $0.metadataValue($1) }
      case .compare(let op, let value):
        u8(2)
        u8(op.rawValue)
        metadataValue(value)
      }
    case .device(let property, let values):
      u8(8)
      u8(property.rawValue)
      array(values.sorted()) { $0.string($1) }
    case .value(let op, let value):
      u8(9)
      u8(op.rawValue)
      f64(value)
    case .quantity(let op, let value, let unit):
      u8(10)
      u8(op.rawValue)
      f64(value)
      string(unit)
    case .notInCorrelation:
      u8(11)
    case .date(let field, let op, let instant):
      u8(12)
      u8(field.rawValue)
      u8(op.rawValue)
      f64(instant)
    case .workoutActivityType(let raws):
      u8(13)
      array(raws.sorted()) { $0.u64(UInt64($1)) }
    case .workoutDuration(let op, let seconds):
      u8(14)
      u8(op.rawValue)
      f64(seconds)
    case .workoutStatistic(let type, let kind, let op, let value):
      u8(15)
      sampleType(type)
      u8(kind.rawValue)
      u8(op.rawValue)
      f64(value)
    case .workoutActivity(let inner):
      u8(16)
      sampleFilter(inner)
    case .associatedWith(let workout):
      u8(17)
      uuid(workout)
    case .electrocardiogram(let property, let raws):
      u8(18)
      u8(property.rawValue)
      array(raws.sorted()) { $0.i64(Int64($1)) }
    case .stateOfMindValence(let op, let value):
      u8(19)
      u8(op.rawValue)
      f64(value)
    case .stateOfMind(let field, let raw):
      u8(20)
      u8(field.rawValue)
      i64(Int64(raw))
    case .fhirResource(let type, let identifier):
      u8(21)
      string(type)
      optional(identifier) { $0.string($1) }
    case .cdaField(let field, let text):
      u8(22)
      u8(field.rawValue)
      string(text)
    case .medication(let condition):
      u8(23)
      medicationCondition(condition)
    }
  }

  mutating func statisticsQuery(_ q: StatisticsQuery) {
    sampleType(q.type)
    optional(q.range) { $0.dateRange($1) }
    optional(q.sources.map { $0.sorted() }) { w, s in w.array(s) { $0.string($1) } }
    u32(q.options.rawValue)
    optional(q.interval) { w, i in
      w.u32(UInt32(bitPattern: Int32(clamping: i.months)))
      w.u32(UInt32(bitPattern: Int32(clamping: i.days)))
      w.f64(i.seconds)
    }
    optional(q.anchor) { $0.date($1) }
    optional(q.filter) { $0.sampleFilter($1) }
  }

  mutating func storedCursor(_ c: StoredCursor) {
    u64(c.sample)
    u64(c.tombstone)
  }
}

extension BinaryReader {
  mutating func storedCursor() throws(DecodeError) -> StoredCursor {
    StoredCursor(sample: try u64(), tombstone: try u64())
  }

  mutating func types() throws(DecodeError) -> [SampleType] {
    try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleType() }
  }

  mutating func bundle() throws(DecodeError) -> String { try string(maxLength: 1024) }

  mutating func promptAnswer() throws(DecodeError) -> PromptAnswer {
    switch try u8() {
    case 0: return .allowAll
    case 1: return .denyAll
    case 2:
      let items = try array(minElementSize: 4) { r throws(DecodeError) in (try r.permission(), try r.bool()) }
      var choices: [Permission: Bool] = [:]
      for (p, on) in items { choices[p] = on }
      return .choices(choices)
    case 3: return .cancel
    case 4:
      let m = try u8()
      guard m <= 1 else { throw error("unknown presentation failure mode \(m)") }
      return .failToPresent(m == 0 ? .error : .silent)
    case 5: return .leaveApp
    case 6: return .objects(Set(try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }))
    case let t: throw error("unknown prompt answer \(t)")
    }
  }

  mutating func sources() throws(DecodeError) -> Set<String>? {
    try optional { r throws(DecodeError) in
      Set(try r.array(minElementSize: 4) { r throws(DecodeError) in try r.bundle() })
    }
  }

  mutating func sampleQuery() throws(DecodeError) -> SampleQuery {
    let type = try sampleType()
    let range = try optional { r throws(DecodeError) in try r.dateRange() }
    let sources = try sources()
    let limit = Int(try u32())
    let sort = try array(minElementSize: 2) { r throws(DecodeError) -> SampleSort in
      let raw = try r.u8()
      guard let field = SampleSort.Field(rawValue: raw) else { throw r.error("unknown sort field \(raw)") }
      return SampleSort(field, ascending: try r.bool())
    }
    let filter = try optional { r throws(DecodeError) in try r.sampleFilter() }
    return SampleQuery(type: type, range: range, sources: sources, limit: limit, sort: sort, filter: filter)
  }

  /// The deepest nesting of predicate nodes a filter may have.
  static let maxFilterDepth = 32

  mutating func sampleFilter(depth: Int = 0) throws(DecodeError) -> SampleFilter {
    guard depth < Self.maxFilterDepth else { throw error("predicate nested deeper than \(Self.maxFilterDepth)") }
    func op(_ r: inout BinaryReader) throws(DecodeError) -> ComparisonOperator {
      let raw = try r.u8()
      guard let op = ComparisonOperator(rawValue: raw) else { throw r.error("unknown comparison operator \(raw)") }
      return op
    }
    switch try u8() {
    case 0: return .constant(try bool())
    case 1: return .and(try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleFilter(depth: depth + 1) })
    case 2: return .or(try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleFilter(depth: depth + 1) })
    case 3: return .not(try sampleFilter(depth: depth + 1))
    case 4: return .dates(try dateRange())
    case 5: return .sources(Set(try array(minElementSize: 4) { r throws(DecodeError) in try r.bundle() }))
    case 6: return .uuids(Set(try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }))
    case 7:
      let key = try string(maxLength: StoredLimits.identifier)
      switch try u8() {
      case 0: return .metadata(key: key, .exists)
      case 1:
        return .metadata(
          key: key, .oneOf(try array(minElementSize: 2) { r throws(DecodeError) in try r.metadataValue() }))
      case 2: return .metadata(key: key, .compare(try op(&self), try metadataValue()))
      case let t: throw error("unknown metadata condition \(t)")
      }
    case 8:
      let raw = try u8()
      guard let property = DeviceProperty(rawValue: raw) else { throw error("unknown device property \(raw)") }
      return .device(property, Set(try array(minElementSize: 4) { r throws(DecodeError) in try r.string() }))
    case 9: return .value(try op(&self), try f64())
    case 10: return .quantity(try op(&self), try f64(), unit: try string(maxLength: 256))
    case 11: return .notInCorrelation
    case 12:
      let raw = try u8()
      guard let field = SampleDateField(rawValue: raw) else { throw error("unknown date field \(raw)") }
      return .date(field, try op(&self), try f64())
    case 13:
      let raws = try array(minElementSize: 8) { r throws(DecodeError) in try r.u64() }
      guard raws.allSatisfy({ $0 <= UInt64(UInt.max) }) else { throw error("activity type out of range") }
      return .workoutActivityType(Set(raws.map { UInt($0) }))
    case 14: return .workoutDuration(try op(&self), try f64())
    case 15:
      let type = try sampleType()
      let raw = try u8()
      guard let kind = WorkoutStatisticKind(rawValue: raw) else { throw error("unknown workout statistic \(raw)") }
      return .workoutStatistic(type, kind, try op(&self), try f64())
    case 16: return .workoutActivity(try sampleFilter(depth: depth + 1))
    case 17: return .associatedWith(try uuid())
    case 18:
      let raw = try u8()
      guard let property = ECGProperty(rawValue: raw) else { throw error("unknown electrocardiogram property \(raw)") }
      let raws = try array(minElementSize: 8) { r throws(DecodeError) in try r.i64() }
      guard raws.allSatisfy({ $0.magnitude <= 1 << 31 }) else { throw error("electrocardiogram value out of range") }
      return .electrocardiogram(property, Set(raws.map { Int($0) }))
    case 19: return .stateOfMindValence(try op(&self), try f64())
    case 20:
      let raw = try u8()
      guard let field = StateOfMindField(rawValue: raw) else { throw error("unknown State of Mind field \(raw)") }
      let value = try i64()
      guard value.magnitude <= 1 << 31 else { throw error("State of Mind value out of range") }
      return .stateOfMind(field, Int(value))
    case 21:
      let type = try string(maxLength: 64)
      return .fhirResource(type, identifier: try optional { r throws(DecodeError) in try r.string(maxLength: 1024) })
    case 22:
      let raw = try u8()
      guard let field = CDAField(rawValue: raw) else { throw error("unknown CDA field \(raw)") }
      return .cdaField(field, try string(maxLength: CDADocument.maxFieldLength))
    case 23: return .medication(try medicationCondition())
    case let t: throw error("unknown predicate tag \(t)")
    }
  }

  mutating func statisticsQuery() throws(DecodeError) -> StatisticsQuery {
    let type = try sampleType()
    let range = try optional { r throws(DecodeError) in try r.dateRange() }
    let sources = try sources()
    let options = StatisticsOptions(rawValue: try u32())
    let interval = try optional { r throws(DecodeError) in
      CalendarInterval(
        months: Int(Int32(bitPattern: try r.u32())), days: Int(Int32(bitPattern: try r.u32())), seconds: try r.f64())
    }
    let anchor = try optional { r throws(DecodeError) in try r.date() }
    let filter = try optional { r throws(DecodeError) in try r.sampleFilter() }
    return StatisticsQuery(
      type: type, range: range, sources: sources, options: options, interval: interval, anchor: anchor,
      filter: filter)
  }
}

// medication-condition := u8 kind, then: 0 archived / 1 hasSchedule: bool | 2 concepts: [string]
//                         | 3 statuses: [i64] | 4 scheduled dates: [f64] | 5 scheduled range: optional f64 × 2

extension BinaryWriter {
  /// A medication or dose condition (layout above).
  mutating func medicationCondition(_ condition: MedicationCondition) {
    switch condition {
    case .archived(let value):
      u8(0)
      bool(value)
    case .hasSchedule(let value):
      u8(1)
      bool(value)
    case .concepts(let ids):
      u8(2)
      array(ids.sorted()) { $0.string($1) }
    case .statuses(let raws):
      u8(3)
      array(raws.sorted()) { $0.i64(Int64($1)) }
    case .scheduledDates(let instants):
      u8(4)
      array(instants.sorted()) { $0.f64($1) }
    case .scheduledRange(let start, let end):
      u8(5)
      optional(start) { $0.f64($1) }
      optional(end) { $0.f64($1) }
    }
  }
}

extension BinaryReader {
  /// Reads a medication or dose condition (layout above).
  mutating func medicationCondition() throws(DecodeError) -> MedicationCondition {
    let kind = try u8()
    switch kind {
    case 0: return .archived(try bool())
    case 1: return .hasSchedule(try bool())
    case 2:
      let ids = try array(minElementSize: 4) { r throws(DecodeError) in
        try r.string(maxLength: Medication.maxTextLength)
      }
      return .concepts(Set(ids))
    case 3:
      let raws = try array(minElementSize: 8) { r throws(DecodeError) in try r.i64() }
      guard raws.allSatisfy({ $0.magnitude <= 1 << 31 }) else { throw error("dose status out of range") }
      return .statuses(Set(raws.map { Int($0) }))
    case 4:
      let instants = try array(minElementSize: 8) { r throws(DecodeError) in try r.f64() }
      guard instants.allSatisfy(\.isFinite) else { throw error("a scheduled date is not finite") }
      return .scheduledDates(Set(instants))
    case 5:
      let start = try optional { r throws(DecodeError) in try r.f64() }
      let end = try optional { r throws(DecodeError) in try r.f64() }
      guard [start, end].allSatisfy({ $0?.isFinite ?? true }) else { throw error("a scheduled bound is not finite") }
      return .scheduledRange(start: start, end: end)
    case let k: throw error("unknown medication condition \(k)")
    }
  }
}
