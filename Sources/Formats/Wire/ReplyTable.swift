import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// Every reply kind defined once, in `ReplyTable`: its tag, the codec of its payload, the `Reply` case and its
// inverse, and what a call's log line says of it. The frame encoder and decoder (FrameCoding.swift), the requests'
// answers (`RequestDefinition.answer`) and the daemon's call lines read this table; nothing else lists a reply's
// layout.

/// What a successful answer of one kind gives a client: its tag, and how to take the value out of a ``Reply``.
package protocol ReplyKind<Answer>: Sendable {
  /// What the client gets.
  associatedtype Answer
  /// The answer as a shape a request's row keeps.
  var shape: ReplyShape<Answer> { get }
}

/// What a successful answer of one kind carries, and how to take it out of a ``Reply``.
package struct ReplyShape<Value>: ReplyKind {
  /// The reply's tag.
  package let tag: ReplyTag
  /// The value of a reply with tag ``tag``; nil for any other reply.
  package let extract: @Sendable (Reply) -> Value?

  /// A shape.
  package init(tag: ReplyTag, extract: @escaping @Sendable (Reply) -> Value?) {
    self.tag = tag
    self.extract = extract
  }

  /// Itself.
  package var shape: ReplyShape<Value> { self }
}

/// One reply kind: its tag, its payload's codec, the `Reply` case and its inverse, and its log fields.
package struct ReplyDefinition<Payload: FieldCodec>: ReplyKind {
  /// The reply's tag.
  package let tag: ReplyTag
  /// Builds the reply from its payload.
  package let make: @Sendable (Payload.Value) -> Reply
  /// The reply's payload; nil for a reply of another tag.
  package let match: @Sendable (Reply) -> Payload.Value?
  /// What a call's log line says of the reply.
  let log: @Sendable (Payload.Value) -> [LogField]

  /// A definition; `make` is normally the `Reply` case itself, and `match` its inverse.
  init(
    _ tag: ReplyTag, _ payload: Payload.Type, make: @escaping @Sendable (Payload.Value) -> Reply,
    match: @escaping @Sendable (Reply) -> Payload.Value?,
    log: @escaping @Sendable (Payload.Value) -> [LogField] = { _ in [] }
  ) {
    self.tag = tag
    self.make = make
    self.match = match
    self.log = log
  }

  /// The payload, as a client gets it.
  package var shape: ReplyShape<Payload.Value> { ReplyShape(tag: tag, extract: match) }

  /// The shape of a client's answer that is part of the payload (`characteristic`: the value without its type).
  func projected<Part>(_ part: @escaping @Sendable (Payload.Value) -> Part) -> ReplyShape<Part> {
    let match = self.match
    return ReplyShape(tag: tag) { reply in match(reply).map(part) }
  }

  /// Writes the payload of `reply` (which must have this tag).
  func write(_ reply: Reply, into w: inout BinaryWriter) {
    guard let payload = match(reply) else { preconditionFailure("\(reply.tag) written as \(tag)") }
    Payload.write(payload, into: &w)
  }

  /// Reads the payload and builds the reply.
  /// - Throws: ``DecodeError`` at the first bad byte.
  func read(from r: inout BinaryReader) throws(DecodeError) -> Reply { make(try Payload.read(from: &r)) }

  /// The log fields of `reply` (which must have this tag).
  func logFields(of reply: Reply) -> [LogField] { match(reply).map(log) ?? [] }
}

/// Every reply, defined once (docs/protocol.md, "Replies", describes the same layouts in prose).
package enum ReplyTable {
  /// Done, nothing to return.
  package static let ok = ReplyDefinition(
    .ok, Codec.Nothing.self, make: { _ in Reply.ok }, match: { if case .ok = $0 { () } else { nil } })
  /// The answer to `hello`.
  package static let hello = ReplyDefinition(
    .hello, Codec.Hello.self, make: Reply.hello, match: { if case .hello(let i) = $0 { i } else { nil } })
  /// The completion of `requestAuthorization`.
  package static let authorization = ReplyDefinition(
    .authorization, Codec.CallResult.self, make: Reply.authorization,
    match: { if case .authorization(let r) = $0 { r } else { nil } },
    log: { r in
      [LogField("success", "\(r.success)")]
        + (r.error.map { [LogField("error", "\($0.code)(\($0.code.rawValue))")] } ?? [])
    })
  /// A presented sheet.
  package static let prompt = ReplyDefinition(
    .prompt, Codec.SheetPrompt.self, make: Reply.prompt, match: { if case .prompt(let p) = $0 { p } else { nil } })
  /// `authorizationStatus`.
  package static let status = ReplyDefinition(
    .status, Codec.Status.self, make: Reply.status, match: { if case .status(let s) = $0 { s } else { nil } },
    log: { [LogField("status", "\($0)")] })
  /// `requestStatus`.
  package static let requestStatus = ReplyDefinition(
    .requestStatus, Codec.RequestStatus.self, make: Reply.requestStatus,
    match: { if case .requestStatus(let s) = $0 { s } else { nil } }, log: { [LogField("status", "\($0)")] })
  /// Sample query results (their sources listed once).
  package static let samples = ReplyDefinition(
    .samples, Codec.ImportedSamples.self, make: Reply.samples,
    match: { if case .samples(let s) = $0 { s } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// One statistics result.
  package static let statistics = ReplyDefinition(
    .statistics, Codec.StatisticsResult.self, make: Reply.statistics,
    match: { if case .statistics(let s) = $0 { s } else { nil } })
  /// A statistics collection and the time zone of its intervals.
  package static let collection = ReplyDefinition(
    .collection, Codec.Collection.self, make: { Reply.collection($0.statistics, timeZone: $0.timeZone) },
    match: { if case .collection(let c, let zone) = $0 { (c, zone) } else { nil } },
    log: { [LogField("buckets", "\($0.statistics.count)"), LogField("zone", $0.timeZone)] })
  /// Anchored query results.
  package static let anchored = ReplyDefinition(
    .anchored, Codec.Anchored.self, make: Reply.anchored,
    match: { if case .anchored(let a) = $0 { a } else { nil } },
    log: { [LogField("added", "\($0.added.count)"), LogField("deleted", "\($0.deleted.count)")] })
  /// `dump`.
  package static let snapshot = ReplyDefinition(
    .snapshot, Codec.Snapshot.self, make: Reply.snapshot, match: { if case .snapshot(let s) = $0 { s } else { nil } })
  /// One page of the raw store and where the next starts.
  package static let stored = ReplyDefinition(
    .stored, Codec.StoredPage.self,
    make: { Reply.stored(samples: $0.samples, tombstones: $0.tombstones, next: $0.next) },
    match: { if case .stored(let s, let t, let next) = $0 { (s, t, next) } else { nil } })
  /// The device's time.
  package static let date = ReplyDefinition(
    .date, Codec.Instant.self, make: Reply.date, match: { if case .date(let d) = $0 { d } else { nil } })
  /// The link's status.
  package static let link = ReplyDefinition(
    .link, Codec.LinkState.self, make: Reply.link, match: { if case .link(let l) = $0 { l } else { nil } })
  /// How many objects were affected.
  package static let count = ReplyDefinition(
    .count, Codec.Count64.self, make: Reply.count, match: { if case .count(let n) = $0 { n } else { nil } })
  /// What an import's commit added and left out.
  package static let imported = ReplyDefinition(
    .imported, Codec.Imported.self, make: Reply.imported, match: { if case .imported(let o) = $0 { o } else { nil } })
  /// A characteristic as the app reads it.
  package static let characteristic = ReplyDefinition(
    .characteristic, Codec.TypedCharacteristic.self, make: { Reply.characteristic($0.type, $0.value) },
    match: { if case .characteristic(let t, let v) = $0 { (t, v) } else { nil } },
    log: { [LogField("value", $0.value?.name(for: $0.type) ?? "notSet")] })
  /// A unit string per type.
  package static let units = ReplyDefinition(
    .units, Codec.Units.self, make: Reply.units, match: { if case .units(let u) = $0 { u } else { nil } },
    log: { units in
      [LogField("units", units.sorted { $0.key < $1.key }.map { "\($0.key.name)=\($0.value)" }.joined(separator: ","))]
    })
  /// Background delivery registrations and recent events.
  package static let backgroundDeliveries = ReplyDefinition(
    .backgroundDeliveries, Codec.BackgroundDeliveries.self,
    make: { Reply.backgroundDeliveries($0.registrations, history: $0.history) },
    match: { if case .backgroundDeliveries(let list, let history) = $0 { (list, history) } else { nil } })
  /// Correlations with the members the app may see.
  package static let correlations = ReplyDefinition(
    .correlations, Codec.Correlations.self, make: Reply.correlations,
    match: { if case .correlations(let c) = $0 { c } else { nil } })
  /// Workouts.
  package static let workouts = ReplyDefinition(
    .workouts, Codec.Many<Codec.StoredWorkout>.self, make: Reply.workouts,
    match: { if case .workouts(let w) = $0 { w } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// Routes with their locations.
  package static let routes = ReplyDefinition(
    .routes, Codec.Many<Codec.StoredRoute>.self, make: Reply.routes,
    match: { if case .routes(let r) = $0 { r } else { nil } },
    log: { [LogField("results", "\($0.count)"), LogField("locations", "\($0.reduce(0) { $0 + $1.locations.count })")] })
  /// Heartbeat series.
  package static let heartbeatSeries = ReplyDefinition(
    .heartbeatSeries, Codec.Many<Codec.StoredHeartbeatSeries>.self, make: Reply.heartbeatSeries,
    match: { if case .heartbeatSeries(let s) = $0 { s } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// Activity summaries.
  package static let activitySummaries = ReplyDefinition(
    .activitySummaries, Codec.Many<Codec.Summary>.self, make: Reply.activitySummaries,
    match: { if case .activitySummaries(let s) = $0 { s } else { nil } },
    log: { [LogField("results", "\($0.count)")] })
  /// A workout session's status.
  package static let sessionStatus = ReplyDefinition(
    .sessionStatus, Codec.SessionState.self, make: Reply.sessionStatus,
    match: { if case .sessionStatus(let s) = $0 { s } else { nil } },
    log: { [LogField("session", $0.id.uuid.uuidString), LogField("state", "\($0.state)")] })
  /// Anchored results of workouts, routes or heartbeat series.
  package static let anchoredWorkouts = ReplyDefinition(
    .anchoredWorkouts, Codec.AnchoredWorkouts.self, make: Reply.anchoredWorkouts,
    match: { if case .anchoredWorkouts(let a) = $0 { a } else { nil } },
    log: { a in
      [
        LogField("added", "\(a.workouts.count + a.routes.count + a.series.count)"),
        LogField("deleted", "\(a.deleted.count)"),
      ]
    })
}

/// Something done with one reply kind's definition, at its concrete type (as ``RequestDefinitionVisitor``).
package protocol ReplyDefinitionVisitor {
  /// What a visit gives.
  associatedtype Outcome
  /// Visits `definition`.
  mutating func visit<Payload: FieldCodec>(_ definition: ReplyDefinition<Payload>) -> Outcome
}

extension ReplyTag {
  /// Calls `visitor` with the definition of the reply with this tag, at its concrete type (exhaustive: a new tag
  /// does not compile without one).
  package func visitDefinition<V: ReplyDefinitionVisitor>(_ visitor: inout V) -> V.Outcome {
    switch self {
    case .ok: visitor.visit(ReplyTable.ok)
    case .hello: visitor.visit(ReplyTable.hello)
    case .authorization: visitor.visit(ReplyTable.authorization)
    case .prompt: visitor.visit(ReplyTable.prompt)
    case .status: visitor.visit(ReplyTable.status)
    case .requestStatus: visitor.visit(ReplyTable.requestStatus)
    case .samples: visitor.visit(ReplyTable.samples)
    case .statistics: visitor.visit(ReplyTable.statistics)
    case .collection: visitor.visit(ReplyTable.collection)
    case .anchored: visitor.visit(ReplyTable.anchored)
    case .snapshot: visitor.visit(ReplyTable.snapshot)
    case .stored: visitor.visit(ReplyTable.stored)
    case .date: visitor.visit(ReplyTable.date)
    case .link: visitor.visit(ReplyTable.link)
    case .count: visitor.visit(ReplyTable.count)
    case .imported: visitor.visit(ReplyTable.imported)
    case .characteristic: visitor.visit(ReplyTable.characteristic)
    case .units: visitor.visit(ReplyTable.units)
    case .backgroundDeliveries: visitor.visit(ReplyTable.backgroundDeliveries)
    case .correlations: visitor.visit(ReplyTable.correlations)
    case .workouts: visitor.visit(ReplyTable.workouts)
    case .routes: visitor.visit(ReplyTable.routes)
    case .heartbeatSeries: visitor.visit(ReplyTable.heartbeatSeries)
    case .activitySummaries: visitor.visit(ReplyTable.activitySummaries)
    case .anchoredWorkouts: visitor.visit(ReplyTable.anchoredWorkouts)
    case .sessionStatus: visitor.visit(ReplyTable.sessionStatus)
    case .electrocardiograms: visitor.visit(ReplyTable.electrocardiograms)
    case .voltages: visitor.visit(ReplyTable.voltages)
    case .audiograms: visitor.visit(ReplyTable.audiograms)
    case .statesOfMind: visitor.visit(ReplyTable.statesOfMind)
    case .clinicalRecords: visitor.visit(ReplyTable.clinicalRecords)
    case .electrocardiogramHeaders: visitor.visit(ReplyTable.electrocardiogramHeaders)
    case .visionPrescriptions: visitor.visit(ReplyTable.visionPrescriptions)
    case .scoredAssessments: visitor.visit(ReplyTable.scoredAssessments)
    case .cdaDocuments: visitor.visit(ReplyTable.cdaDocuments)
    case .medications: visitor.visit(ReplyTable.medications)
    case .medicationDoses: visitor.visit(ReplyTable.medicationDoses)
    }
  }
}

extension Reply {
  /// What a call's log line says of this reply (its row's log fields).
  package var logFields: [LogField] {
    var logging = ReplyLogVisitor(reply: self)
    return tag.visitDefinition(&logging)
  }
}

extension BinaryWriter {
  /// The tag, then the payload as the reply's row lays it out.
  mutating func reply(_ reply: Reply) {
    u8(reply.tag.rawValue)
    withUnsafeMutablePointer(to: &self) { writer in
      var writing = ReplyWritingVisitor(reply: reply, writer: writer)
      reply.tag.visitDefinition(&writing)
    }
  }
}

extension BinaryReader {
  /// The tag, then the payload its row in ``ReplyTable`` lays out; an unknown tag is refused at its offset.
  mutating func reply() throws(DecodeError) -> Reply {
    let tagOffset = offset
    let raw = try u8()
    guard let tag = ReplyTag(rawValue: raw) else {
      throw DecodeError(offset: reportBase + tagOffset, "unknown reply tag \(raw)")
    }
    var reading = ReplyReadingVisitor(reader: self)
    let result = tag.visitDefinition(&reading)
    self = reading.reader
    return try result.get()
  }
}

/// Writes a reply's payload with its row's codec.
private struct ReplyWritingVisitor: ReplyDefinitionVisitor {
  let reply: Reply
  /// The caller's writer, valid for the visit.
  let writer: UnsafeMutablePointer<BinaryWriter>
  func visit<Payload: FieldCodec>(_ definition: ReplyDefinition<Payload>) {
    definition.write(reply, into: &writer.pointee)
  }
}

/// Reads a reply's payload with its row's codec.
private struct ReplyReadingVisitor: ReplyDefinitionVisitor {
  var reader: BinaryReader
  mutating func visit<Payload: FieldCodec>(_ definition: ReplyDefinition<Payload>) -> Result<Reply, DecodeError> {
    do throws(DecodeError) { return .success(try definition.read(from: &reader)) } catch { return .failure(error) }
  }
}

/// A reply's log fields from its row.
private struct ReplyLogVisitor: ReplyDefinitionVisitor {
  let reply: Reply
  func visit<Payload: FieldCodec>(_ definition: ReplyDefinition<Payload>) -> [LogField] {
    definition.logFields(of: reply)
  }
}
