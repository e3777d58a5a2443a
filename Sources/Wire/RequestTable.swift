import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// Every client request defined once, in `RequestTable`: its opcode, the codecs of its fields in wire order, the
// reply it answers with, and how the `Request` case is built from the fields and taken apart into them. The frame
// encoder and decoder (MessageCoding.swift), the client's operations (HealthPairClient's `DeviceOperation`) and the
// contract test of the daemon's dispatch all read this table; nothing else lists a request's fields — except
// `save`'s fast path (`RequestTable.writeSave`/`readSave`), which calls that row's codecs directly and which
// `RequestTableTests` pins to the row's own encoding.

/// How one field of a request is written to and read from a frame.
///
/// The conforming types are the namespaces in ``Codec``; each forwards to the ``BinaryWriter``/``BinaryReader``
/// method of its value (those are shared with replies, events and the journal).
package protocol FieldCodec {
  /// The field's value.
  associatedtype Value
  /// The fewest bytes one encoded value takes, which bounds an array's claimed count against the bytes left.
  static var minimumSize: Int { get }
  /// Writes `value`.
  static func write(_ value: Value, into w: inout BinaryWriter)
  /// Reads a value.
  /// - Throws: ``DecodeError`` at the first bad byte.
  static func read(from r: inout BinaryReader) throws(DecodeError) -> Value
}

extension FieldCodec {
  /// One byte unless a codec says more.
  package static var minimumSize: Int { 1 }
}

/// What a successful answer of one kind carries, and how to take it out of a ``Reply``.
package struct ReplyShape<Value>: Sendable {
  /// The reply's tag.
  package let tag: ReplyTag
  /// The value of a reply with tag ``tag``; nil for any other reply.
  package let extract: @Sendable (Reply) -> Value?
}

/// A request's definition with its field types erased: what the frame codec needs.
package protocol AnyRequestDefinition: Sendable {
  /// The request's opcode.
  var opcode: RequestOpcode { get }
  /// The reply tag of a successful answer.
  var expects: ReplyTag { get }
  /// Writes the fields of `request` (which must be this definition's case) after the opcode.
  func writeFields(of request: Request, into w: inout BinaryWriter)
  /// Reads the fields that follow the opcode and builds the request.
  /// - Throws: ``DecodeError`` at the first bad byte.
  func readFields(from r: inout BinaryReader) throws(DecodeError) -> Request
  /// Whether `request` is this definition's case (its fields can be taken from it).
  func matches(_ request: Request) -> Bool
}

/// One request: its opcode, its fields' codecs in wire order, its answer, and the two functions between the
/// `Request` case and its fields (the case's constructor and its inverse).
///
/// Encoding writes each field with its codec, in order; decoding reads them in the same order and calls the
/// constructor, so the two cannot disagree. `Answer` is what a client gets from the reply.
package struct RequestDefinition<Answer, each Field: FieldCodec>: AnyRequestDefinition {
  /// The request's opcode.
  package let opcode: RequestOpcode
  /// The successful answer's shape.
  package let answer: ReplyShape<Answer>
  /// Builds the request from its fields.
  package let make: @Sendable (repeat (each Field).Value) -> Request
  /// The request's fields; nil for a request of another opcode.
  package let fields: @Sendable (Request) -> (repeat (each Field).Value)?

  /// A definition; `make` is normally the `Request` case itself, and `match` its inverse.
  init(
    _ opcode: RequestOpcode, _ codecs: repeat (each Field).Type, answer: ReplyShape<Answer>,
    make: @escaping @Sendable (repeat (each Field).Value) -> Request,
    match: @escaping @Sendable (Request) -> (repeat (each Field).Value)?
  ) {
    self.opcode = opcode
    self.answer = answer
    self.make = make
    self.fields = match
  }

  /// The reply tag of a successful answer.
  package var expects: ReplyTag { answer.tag }

  /// Writes the fields of `request` in wire order.
  package func writeFields(of request: Request, into w: inout BinaryWriter) {
    guard let values = fields(request) else {
      preconditionFailure("\(request.opcode) written with the definition of \(opcode)")
    }
    repeat (each Field).write(each values, into: &w)
  }

  /// Whether `request` is this definition's case.
  package func matches(_ request: Request) -> Bool { fields(request) != nil }

  /// Reads the fields in wire order and builds the request.
  package func readFields(from r: inout BinaryReader) throws(DecodeError) -> Request {
    make(repeat try (each Field).read(from: &r))
  }
}

/// Something done with one request's definition, at its concrete type.
///
/// ``RequestOpcode/visitDefinition(_:)`` hands a visitor the definition of an opcode as the `RequestDefinition` it
/// is (its answer and field codecs known to the compiler), not as ``AnyRequestDefinition``: each row's reading and
/// writing is then specialized for its fields. Through the existential, a row's field pack was walked at run time —
/// tuple metadata looked up, each codec called through a witness table — which was about a quarter of a client's
/// CPU per save and a tenth of the daemon's request handling (docs/history/performance.md, "Session 7: the save path").
package protocol RequestDefinitionVisitor {
  /// What a visit gives.
  associatedtype Outcome
  /// Visits `definition`.
  mutating func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>)
    -> Outcome
}

extension RequestOpcode {
  /// Calls `visitor` with the definition of the request with this opcode, at its concrete type (exhaustive: a new
  /// opcode does not compile without one).
  package func visitDefinition<V: RequestDefinitionVisitor>(_ visitor: inout V) -> V.Outcome {
    switch self {
    case .hello: visitor.visit(RequestTable.hello)
    case .installApp: visitor.visit(RequestTable.installApp)
    case .uninstallApp: visitor.visit(RequestTable.uninstallApp)
    case .requestAuthorization: visitor.visit(RequestTable.requestAuthorization)
    case .answerPrompt: visitor.visit(RequestTable.answerPrompt)
    case .authorizationStatus: visitor.visit(RequestTable.authorizationStatus)
    case .requestStatus: visitor.visit(RequestTable.requestStatus)
    case .save: visitor.visit(RequestTable.save)
    case .delete: visitor.visit(RequestTable.delete)
    case .deleteMatching: visitor.visit(RequestTable.deleteMatching)
    case .importBatch: visitor.visit(RequestTable.importBatch)
    case .importCommit: visitor.visit(RequestTable.importCommit)
    case .importAbort: visitor.visit(RequestTable.importAbort)
    case .sampleQuery: visitor.visit(RequestTable.sampleQuery)
    case .statistics: visitor.visit(RequestTable.statistics)
    case .statisticsCollection: visitor.visit(RequestTable.statisticsCollection)
    case .anchoredQuery: visitor.visit(RequestTable.anchoredQuery)
    case .changeSettings: visitor.visit(RequestTable.changeSettings)
    case .watchSettings: visitor.visit(RequestTable.watchSettings)
    case .setClock: visitor.visit(RequestTable.setClock)
    case .advanceClock: visitor.visit(RequestTable.advanceClock)
    case .setPolicy: visitor.visit(RequestTable.setPolicy)
    case .dump: visitor.visit(RequestTable.dump)
    case .storedSamples: visitor.visit(RequestTable.storedSamples)
    case .subscribe: visitor.visit(RequestTable.subscribe)
    case .earliestPermittedSampleDate: visitor.visit(RequestTable.earliestPermittedSampleDate)
    case .link: visitor.visit(RequestTable.link)
    case .ping: visitor.visit(RequestTable.ping)
    case .setLocked: visitor.visit(RequestTable.setLocked)
    case .readCharacteristic: visitor.visit(RequestTable.readCharacteristic)
    case .preferredUnits: visitor.visit(RequestTable.preferredUnits)
    case .changeUserSetting: visitor.visit(RequestTable.changeUserSetting)
    case .enableBackgroundDelivery: visitor.visit(RequestTable.enableBackgroundDelivery)
    case .disableBackgroundDelivery: visitor.visit(RequestTable.disableBackgroundDelivery)
    case .completeBackgroundDelivery: visitor.visit(RequestTable.completeBackgroundDelivery)
    case .backgroundDeliveries: visitor.visit(RequestTable.backgroundDeliveries)
    case .setSourceOrder: visitor.visit(RequestTable.setSourceOrder)
    case .saveCorrelations: visitor.visit(RequestTable.saveCorrelations)
    case .correlationQuery: visitor.visit(RequestTable.correlationQuery)
    case .importCorrelations: visitor.visit(RequestTable.importCorrelations)
    case .storedCorrelations: visitor.visit(RequestTable.storedCorrelations)
    }
  }

  /// The definition of the request with this opcode.
  package var definition: any AnyRequestDefinition {
    var erase = ErasingVisitor()
    return visitDefinition(&erase)
  }

  /// Reads the fields that follow this opcode and builds the request, specialized for the opcode's row.
  /// - Throws: ``DecodeError`` at the first bad byte.
  package func readFields(from r: inout BinaryReader) throws(DecodeError) -> Request {
    if self == .save { return try RequestTable.readSave(from: &r) }
    var reading = ReadingVisitor(reader: r)
    let result = visitDefinition(&reading)
    r = reading.reader
    return try result.get()
  }
}

extension Request {
  /// Writes this request's fields (after its opcode) as its row lays them out, specialized for the row.
  package func writeFields(into w: inout BinaryWriter) {
    if case .save(let bundleID, let samples) = self {
      RequestTable.writeSave(bundleID, samples, into: &w)
      return
    }
    // The visitor writes through a pointer to `w`: a copy of the writer would share, then copy, its buffer.
    withUnsafeMutablePointer(to: &w) { writer in
      var writing = WritingVisitor(request: self, writer: writer)
      opcode.visitDefinition(&writing)
    }
  }
}

/// Gives the definition as ``AnyRequestDefinition``.
private struct ErasingVisitor: RequestDefinitionVisitor {
  func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>)
    -> any AnyRequestDefinition
  { definition }
}

/// Reads a request's fields with its row's codecs.
private struct ReadingVisitor: RequestDefinitionVisitor {
  var reader: BinaryReader
  mutating func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>)
    -> Result<Request, DecodeError>
  {
    do throws(DecodeError) { return .success(try definition.readFields(from: &reader)) } catch {
      return .failure(error)
    }
  }
}

/// Writes a request's fields with its row's codecs.
private struct WritingVisitor: RequestDefinitionVisitor {
  let request: Request
  /// The caller's writer, valid for the visit.
  let writer: UnsafeMutablePointer<BinaryWriter>
  func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>) {
    definition.writeFields(of: request, into: &writer.pointee)
  }
}

extension Request {
  /// This request's definition in ``RequestTable``.
  package var definition: any AnyRequestDefinition { opcode.definition }
}

/// Every request, defined once (docs/protocol.md describes the same layouts in prose). A row names the opcode, the
/// codecs of the fields in wire order, the answer, the `Request` case and its inverse.
package enum RequestTable {
  /// Opens a session: the protocol version and a client name for logs.
  package static let hello = RequestDefinition(
    .hello, Codec.U16.self, Codec.ClientName.self, answer: .hello, make: Request.hello,
    match: { if case .hello(let v, let c) = $0 { (v, c) } else { nil } })
  /// Installs or updates an app (its record, then its entitlements).
  package static let installApp = RequestDefinition(
    .installApp, Codec.App.self, Codec.Entitlements.self, answer: .ok,
    make: { app, entitlements in
      var app = app
      app.entitlements = entitlements
      return .installApp(app)
    },
    match: { if case .installApp(let a) = $0 { (a, a.entitlements) } else { nil } })
  /// Uninstalls an app.
  package static let uninstallApp = RequestDefinition(
    .uninstallApp, Codec.Bundle.self, answer: .ok, make: Request.uninstallApp,
    match: { if case .uninstallApp(let b) = $0 { b } else { nil } })
  /// `requestAuthorization(toShare:read:)`.
  package static let requestAuthorization = RequestDefinition(
    .requestAuthorization, Codec.Bundle.self, Codec.Many<Codec.SampleTypeCode>.self,
    Codec.Many<Codec.SampleTypeCode>.self, answer: .authorization, make: Request.requestAuthorization,
    match: { if case .requestAuthorization(let b, let s, let r) = $0 { (b, s, r) } else { nil } })
  /// The user answers a sheet (a given one, an app's, or the frontmost).
  package static let answerPrompt = RequestDefinition(
    .answerPrompt, Codec.Optional<Codec.U64>.self, Codec.Optional<Codec.Bundle>.self, Codec.Answer.self,
    answer: .ok, make: Request.answerPrompt,
    match: { if case .answerPrompt(let p, let b, let a) = $0 { (p, b, a) } else { nil } })
  /// `authorizationStatus(for:)`.
  package static let authorizationStatus = RequestDefinition(
    .authorizationStatus, Codec.Bundle.self, Codec.SampleTypeCode.self, answer: .status,
    make: Request.authorizationStatus,
    match: { if case .authorizationStatus(let b, let t) = $0 { (b, t) } else { nil } })
  /// `getRequestStatusForAuthorization(toShare:read:)`.
  package static let requestStatus = RequestDefinition(
    .requestStatus, Codec.Bundle.self, Codec.Many<Codec.SampleTypeCode>.self, Codec.Many<Codec.SampleTypeCode>.self,
    answer: .requestStatus, make: Request.requestStatus,
    match: { if case .requestStatus(let b, let s, let r) = $0 { (b, s, r) } else { nil } })
  /// Saves samples, all or nothing.
  package static let save = RequestDefinition(
    .save, Codec.Bundle.self, Codec.Many<Codec.NewSample>.self, answer: .ok, make: Request.save,
    match: { if case .save(let b, let s) = $0 { (b, s) } else { nil } })
  // `save`, the request a test makes most, is also written and read by its codecs called directly (below): a row's
  // field pack, even specialized, calls each codec through its witness table and walks an array's elements through
  // an unspecialized iterator — about a quarter of a client's CPU per save (docs/history/performance.md, "Session 7:
  // the save path"). `RequestTableTests` pins these two to the row's own encoding.
  /// Writes a `save`'s fields as its row lays them out, with the row's codecs.
  static func writeSave(_ bundleID: String, _ samples: [SampleInput], into w: inout BinaryWriter) {
    Codec.Bundle.write(bundleID, into: &w)
    // `Codec.Many`'s layout (a count, then each element), looped here: its generic `BinaryWriter.array` stayed
    // unspecialized in a profile.
    w.u32(UInt32(samples.count))
    for sample in samples { Codec.NewSample.write(sample, into: &w) }
  }
  /// Reads a `save`'s fields as its row lays them out, with the row's codecs.
  static func readSave(from r: inout BinaryReader) throws(DecodeError) -> Request {
    let bundleID = try Codec.Bundle.read(from: &r)
    return .save(bundleID: bundleID, samples: try Codec.Many<Codec.NewSample>.read(from: &r))
  }
  /// Deletes the app's objects, all or nothing.
  package static let delete = RequestDefinition(
    .delete, Codec.Bundle.self, Codec.Many<Codec.Identifier>.self, answer: .ok, make: Request.delete,
    match: { if case .delete(let b, let u) = $0 { (b, u) } else { nil } })
  /// Deletes the app's objects of a type in a date range; answers how many.
  package static let deleteMatching = RequestDefinition(
    .deleteMatching, Codec.Bundle.self, Codec.SampleTypeCode.self, Codec.Optional<Codec.Range>.self,
    answer: .count, make: Request.deleteMatching,
    match: { if case .deleteMatching(let b, let t, let r) = $0 { (b, t, r) } else { nil } })
  /// Stages a batch of an import.
  package static let importBatch = RequestDefinition(
    .importBatch, Codec.ImportID.self, Codec.ImportedSamples.self, answer: .ok, make: Request.importBatch,
    match: { if case .importBatch(let i, let s) = $0 { (i, s) } else { nil } })
  /// Commits an import with its characteristics.
  package static let importCommit = RequestDefinition(
    .importCommit, Codec.ImportID.self, Codec.Characteristics.self, answer: .imported, make: Request.importCommit,
    match: { if case .importCommit(let i, let c) = $0 { (i, c) } else { nil } })
  /// Gives an import up.
  package static let importAbort = RequestDefinition(
    .importAbort, Codec.ImportID.self, answer: .ok, make: Request.importAbort,
    match: { if case .importAbort(let i) = $0 { i } else { nil } })
  /// `HKSampleQuery`.
  package static let sampleQuery = RequestDefinition(
    .sampleQuery, Codec.Bundle.self, Codec.Query.self, answer: .samples, make: Request.sampleQuery,
    match: { if case .sampleQuery(let b, let q) = $0 { (b, q) } else { nil } })
  /// `HKStatisticsQuery`.
  package static let statistics = RequestDefinition(
    .statistics, Codec.Bundle.self, Codec.StatisticsRequest.self, answer: .statistics, make: Request.statistics,
    match: { if case .statistics(let b, let q) = $0 { (b, q) } else { nil } })
  /// `HKStatisticsCollectionQuery`.
  package static let statisticsCollection = RequestDefinition(
    .statisticsCollection, Codec.Bundle.self, Codec.StatisticsRequest.self, answer: .collection,
    make: Request.statisticsCollection,
    match: { if case .statisticsCollection(let b, let q) = $0 { (b, q) } else { nil } })
  /// `HKAnchoredObjectQuery`.
  package static let anchoredQuery = RequestDefinition(
    .anchoredQuery, Codec.Bundle.self, Codec.SampleTypeCode.self, Codec.U64.self, Codec.Optional<Codec.Range>.self,
    Codec.Count.self, answer: .anchored, make: Request.anchoredQuery,
    match: { if case .anchoredQuery(let b, let t, let a, let r, let l) = $0 { (b, t, a, r, l) } else { nil } })
  /// Settings → Privacy → Health.
  package static let changeSettings = RequestDefinition(
    .changeSettings, Codec.Bundle.self, Codec.Settings.self, answer: .ok, make: Request.changeSettings,
    match: { if case .changeSettings(let b, let c) = $0 { (b, c) } else { nil } })
  /// The iPhone's Watch app.
  package static let watchSettings = RequestDefinition(
    .watchSettings, Codec.Bundle.self, Codec.Settings.self, answer: .ok, make: Request.watchSettings,
    match: { if case .watchSettings(let b, let c) = $0 { (b, c) } else { nil } })
  /// Sets (or clears) the virtual clock.
  package static let setClock = RequestDefinition(
    .setClock, Codec.Optional<Codec.Instant>.self, answer: .date, make: Request.setClock,
    match: { if case .setClock(let d) = $0 { d } else { nil } })
  /// Advances the virtual clock.
  package static let advanceClock = RequestDefinition(
    .advanceClock, Codec.F64.self, answer: .date, make: Request.advanceClock,
    match: { if case .advanceClock(let s) = $0 { s } else { nil } })
  /// Replaces the device policy.
  package static let setPolicy = RequestDefinition(
    .setPolicy, Codec.Policy.self, answer: .ok, make: Request.setPolicy,
    match: { if case .setPolicy(let p) = $0 { p } else { nil } })
  /// The daemon's full state.
  package static let dump = RequestDefinition(
    .dump, answer: .snapshot, make: { Request.dump }, match: { if case .dump = $0 { () } else { nil } })
  /// A page of the raw store.
  package static let storedSamples = RequestDefinition(
    .storedSamples, Codec.Optional<Codec.SampleTypeCode>.self, Codec.Cursor.self, Codec.Count.self,
    answer: .stored, make: Request.storedSamples,
    match: { if case .storedSamples(let t, let f, let l) = $0 { (t, f, l) } else { nil } })
  /// Chooses the events the connection receives.
  package static let subscribe = RequestDefinition(
    .subscribe, Codec.Events.self, answer: .ok, make: Request.subscribe,
    match: { if case .subscribe(let m) = $0 { m } else { nil } })
  /// `earliestPermittedSampleDate()`.
  package static let earliestPermittedSampleDate = RequestDefinition(
    .earliestPermittedSampleDate, answer: .date, make: { Request.earliestPermittedSampleDate },
    match: { if case .earliestPermittedSampleDate = $0 { () } else { nil } })
  /// Controls the peer link.
  package static let link = RequestDefinition(
    .link, Codec.Link.self, answer: .link, make: Request.link,
    match: { if case .link(let c) = $0 { c } else { nil } })
  /// A round trip that changes nothing.
  package static let ping = RequestDefinition(
    .ping, answer: .ok, make: { Request.ping }, match: { if case .ping = $0 { () } else { nil } })
  /// Locks or unlocks the device (the watch: off or on the wrist).
  package static let setLocked = RequestDefinition(
    .setLocked, Codec.Flag.self, answer: .ok, make: Request.setLocked,
    match: { if case .setLocked(let l) = $0 { l } else { nil } })
  /// An app reads a characteristic.
  package static let readCharacteristic = RequestDefinition(
    .readCharacteristic, Codec.Bundle.self, Codec.SampleTypeCode.self, answer: .characteristic,
    make: Request.readCharacteristic,
    match: { if case .readCharacteristic(let b, let t) = $0 { (b, t) } else { nil } })
  /// `preferredUnits(for:)`.
  package static let preferredUnits = RequestDefinition(
    .preferredUnits, Codec.Bundle.self, Codec.Many<Codec.SampleTypeCode>.self, answer: .units,
    make: Request.preferredUnits,
    match: { if case .preferredUnits(let b, let t) = $0 { (b, t) } else { nil } })
  /// The user changes a value in the Health app.
  package static let changeUserSetting = RequestDefinition(
    .changeUserSetting, Codec.Setting.self, answer: .ok, make: Request.changeUserSetting,
    match: { if case .changeUserSetting(let s) = $0 { s } else { nil } })
  /// `enableBackgroundDelivery(for:frequency:)`.
  package static let enableBackgroundDelivery = RequestDefinition(
    .enableBackgroundDelivery, Codec.Bundle.self, Codec.SampleTypeCode.self, Codec.Frequency.self, answer: .ok,
    make: Request.enableBackgroundDelivery,
    match: { if case .enableBackgroundDelivery(let b, let t, let f) = $0 { (b, t, f) } else { nil } })
  /// `disableBackgroundDelivery(for:)`; every type when the type is absent.
  package static let disableBackgroundDelivery = RequestDefinition(
    .disableBackgroundDelivery, Codec.Bundle.self, Codec.Optional<Codec.SampleTypeCode>.self, answer: .ok,
    make: Request.disableBackgroundDelivery,
    match: { if case .disableBackgroundDelivery(let b, let t) = $0 { (b, t) } else { nil } })
  /// An observer query's completion handler.
  package static let completeBackgroundDelivery = RequestDefinition(
    .completeBackgroundDelivery, Codec.Bundle.self, Codec.U64.self, answer: .ok,
    make: Request.completeBackgroundDelivery,
    match: { if case .completeBackgroundDelivery(let b, let d) = $0 { (b, d) } else { nil } })
  /// The background delivery registrations and recent events.
  package static let backgroundDeliveries = RequestDefinition(
    .backgroundDeliveries, Codec.Optional<Codec.Bundle>.self, answer: .backgroundDeliveries,
    make: Request.backgroundDeliveries,
    match: { if case .backgroundDeliveries(let b) = $0 { b } else { nil } })
  /// The user orders a type's data sources.
  package static let setSourceOrder = RequestDefinition(
    .setSourceOrder, Codec.SampleTypeCode.self, Codec.Many<Codec.Source>.self, answer: .ok,
    make: Request.setSourceOrder,
    match: { if case .setSourceOrder(let t, let s) = $0 { (t, s) } else { nil } })
  /// Saves correlations with their members, and plain samples, all or nothing.
  package static let saveCorrelations = RequestDefinition(
    .saveCorrelations, Codec.Bundle.self, Codec.Many<Codec.NewCorrelation>.self, Codec.Many<Codec.NewSample>.self,
    answer: .ok, make: Request.saveCorrelations,
    match: { if case .saveCorrelations(let b, let c, let s) = $0 { (b, c, s) } else { nil } })
  /// `HKCorrelationQuery`.
  package static let correlationQuery = RequestDefinition(
    .correlationQuery, Codec.Bundle.self, Codec.CorrelationRequest.self, answer: .correlations,
    make: Request.correlationQuery,
    match: { if case .correlationQuery(let b, let q) = $0 { (b, q) } else { nil } })
  /// Stages correlations of an import.
  package static let importCorrelations = RequestDefinition(
    .importCorrelations, Codec.ImportID.self, Codec.Many<Codec.StoredCorrelation>.self, answer: .ok,
    make: Request.importCorrelations,
    match: { if case .importCorrelations(let i, let c) = $0 { (i, c) } else { nil } })
  /// Every live correlation on the device.
  package static let storedCorrelations = RequestDefinition(
    .storedCorrelations, Codec.Optional<Codec.SampleTypeCode>.self, answer: .correlations,
    make: Request.storedCorrelations,
    match: { if case .storedCorrelations(let t) = $0 { t } else { nil } })
}

// MARK: - Answers

extension ReplyShape where Value == Void {
  /// `ok`.
  package static var ok: Self { Self(tag: .ok) { if case .ok = $0 { () } else { nil } } }
}

extension ReplyShape where Value == HelloInfo {
  /// `hello`: the daemon's version, device and pid.
  package static var hello: Self { Self(tag: .hello) { if case .hello(let i) = $0 { i } else { nil } } }
}

extension ReplyShape where Value == AuthorizationCallResult {
  /// `authorization`: the completion of `requestAuthorization`.
  package static var authorization: Self {
    Self(tag: .authorization) { if case .authorization(let r) = $0 { r } else { nil } }
  }
}

extension ReplyShape where Value == AuthorizationStatus {
  /// `status`.
  package static var status: Self { Self(tag: .status) { if case .status(let s) = $0 { s } else { nil } } }
}

extension ReplyShape where Value == AuthorizationRequestStatus {
  /// `requestStatus`.
  package static var requestStatus: Self {
    Self(tag: .requestStatus) { if case .requestStatus(let s) = $0 { s } else { nil } }
  }
}

extension ReplyShape where Value == [Sample] {
  /// `samples`.
  package static var samples: Self { Self(tag: .samples) { if case .samples(let s) = $0 { s } else { nil } } }
}

extension ReplyShape where Value == Statistics {
  /// `statistics`.
  package static var statistics: Self {
    Self(tag: .statistics) { if case .statistics(let s) = $0 { s } else { nil } }
  }
}

extension ReplyShape where Value == (statistics: [Statistics], timeZone: String) {
  /// `collection`: the buckets and the time zone they were computed in.
  package static var collection: Self {
    Self(tag: .collection) { if case .collection(let c, let zone) = $0 { (c, zone) } else { nil } }
  }
}

extension ReplyShape where Value == AnchoredResult {
  /// `anchored`.
  package static var anchored: Self { Self(tag: .anchored) { if case .anchored(let a) = $0 { a } else { nil } } }
}

extension ReplyShape where Value == DaemonSnapshot {
  /// `snapshot`.
  package static var snapshot: Self { Self(tag: .snapshot) { if case .snapshot(let s) = $0 { s } else { nil } } }
}

extension ReplyShape where Value == (samples: [Sample], tombstones: [Tombstone], next: StoredCursor?) {
  /// `stored`: one page of the raw store and where the next starts.
  package static var stored: Self {
    Self(tag: .stored) { if case .stored(let s, let t, let next) = $0 { (s, t, next) } else { nil } }
  }
}

extension ReplyShape where Value == Date {
  /// `date`: the device's time.
  package static var date: Self { Self(tag: .date) { if case .date(let d) = $0 { d } else { nil } } }
}

extension ReplyShape where Value == LinkStatus {
  /// `link`.
  package static var link: Self { Self(tag: .link) { if case .link(let l) = $0 { l } else { nil } } }
}

extension ReplyShape where Value == Int {
  /// `count`.
  package static var count: Self { Self(tag: .count) { if case .count(let n) = $0 { n } else { nil } } }
}

extension ReplyShape where Value == ImportOutcome {
  /// `imported`.
  package static var imported: Self { Self(tag: .imported) { if case .imported(let o) = $0 { o } else { nil } } }
}

extension ReplyShape where Value == CharacteristicValue? {
  /// `characteristic`: the value, nil when not set (or the read is denied).
  package static var characteristic: Self {
    Self(tag: .characteristic) { if case .characteristic(_, let value) = $0 { .some(value) } else { nil } }
  }
}

extension ReplyShape where Value == [SampleType: String] {
  /// `units`.
  package static var units: Self { Self(tag: .units) { if case .units(let u) = $0 { u } else { nil } } }
}

extension ReplyShape where Value == (registrations: [BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent]) {
  /// `backgroundDeliveries`.
  package static var backgroundDeliveries: Self {
    Self(tag: .backgroundDeliveries) {
      if case .backgroundDeliveries(let list, let history) = $0 { (list, history) } else { nil }
    }
  }
}

extension ReplyShape where Value == [CorrelationResult] {
  /// `correlations`.
  package static var correlations: Self {
    Self(tag: .correlations) { if case .correlations(let c) = $0 { c } else { nil } }
  }
}

// MARK: - Field codecs

/// The codecs of request fields, one per kind of value on the wire.
package enum Codec {
  /// An unsigned 16-bit integer.
  package enum U16: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UInt16, into w: inout BinaryWriter) { w.u16(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UInt16 { try r.u16() }
  }
  /// An unsigned 64-bit integer.
  package enum U64: FieldCodec {
    /// Eight bytes.
    package static var minimumSize: Int { 8 }
    /// Writes `value`.
    package static func write(_ value: UInt64, into w: inout BinaryWriter) { w.u64(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UInt64 { try r.u64() }
  }
  /// A double.
  package enum F64: FieldCodec {
    /// Eight bytes.
    package static var minimumSize: Int { 8 }
    /// Writes `value`.
    package static func write(_ value: Double, into w: inout BinaryWriter) { w.f64(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Double { try r.f64() }
  }
  /// A boolean byte.
  package enum Flag: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: Bool, into w: inout BinaryWriter) { w.bool(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Bool { try r.bool() }
  }
  /// A count or limit: `u32`, clamped when written.
  package enum Count: FieldCodec {
    /// Four bytes.
    package static var minimumSize: Int { 4 }
    /// Writes `value`, clamped to 32 bits.
    package static func write(_ value: Int, into w: inout BinaryWriter) { w.u32(UInt32(clamping: value)) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Int { Int(try r.u32()) }
  }
  /// A client's name in `hello` (at most 256 bytes).
  package enum ClientName: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: String, into w: inout BinaryWriter) { w.string(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> String {
      try r.string(maxLength: 256)
    }
  }
  /// A bundle identifier (at most 1,024 bytes).
  package enum Bundle: FieldCodec {
    /// A length and at least one byte.
    package static var minimumSize: Int { 4 }
    /// Writes `value`.
    package static func write(_ value: String, into w: inout BinaryWriter) { w.string(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> String { try r.bundle() }
  }
  /// A sample type's catalog code.
  package enum SampleTypeCode: FieldCodec {
    /// Two bytes.
    package static var minimumSize: Int { 2 }
    /// Writes `value`.
    package static func write(_ value: SampleType, into w: inout BinaryWriter) { w.sampleType(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleType { try r.sampleType() }
  }
  /// A UUID.
  package enum Identifier: FieldCodec {
    /// Sixteen bytes.
    package static var minimumSize: Int { 16 }
    /// Writes `value`.
    package static func write(_ value: UUID, into w: inout BinaryWriter) { w.uuid(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UUID { try r.uuid() }
  }
  /// A date.
  package enum Instant: FieldCodec {
    /// Eight bytes.
    package static var minimumSize: Int { 8 }
    /// Writes `value`.
    package static func write(_ value: Date, into w: inout BinaryWriter) { w.date(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Date { try r.date() }
  }
  /// A date range.
  package enum Range: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: DateRange, into w: inout BinaryWriter) { w.dateRange(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> DateRange { try r.dateRange() }
  }
  /// An import's identity (never zero).
  package enum ImportID: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UInt64, into w: inout BinaryWriter) { w.u64(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UInt64 { try r.importIdentity() }
  }
  /// A sample an app saves.
  package enum NewSample: FieldCodec {
    /// The smallest encoded sample input.
    package static var minimumSize: Int { 43 }
    /// Writes `value`.
    package static func write(_ value: SampleInput, into w: inout BinaryWriter) { w.sampleInput(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleInput { try r.sampleInput() }
  }
  /// An import's batch of stored samples (with its own source table).
  package enum ImportedSamples: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: [Sample], into w: inout BinaryWriter) { w.importSamples(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [Sample] { try r.importSamples() }
  }
  /// Characteristic values by type.
  package enum Characteristics: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: [SampleType: CharacteristicValue], into w: inout BinaryWriter) {
      w.characteristics(value)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [SampleType: CharacteristicValue] {
      try r.characteristics()
    }
  }
  /// A sample query.
  package enum Query: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SampleQuery, into w: inout BinaryWriter) { w.sampleQuery(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleQuery { try r.sampleQuery() }
  }
  /// A statistics query.
  package enum StatisticsRequest: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: StatisticsQuery, into w: inout BinaryWriter) { w.statisticsQuery(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> StatisticsQuery {
      try r.statisticsQuery()
    }
  }
  /// A change in the privacy settings.
  package enum Settings: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SettingsChange, into w: inout BinaryWriter) { w.settingsChange(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SettingsChange {
      try r.settingsChange()
    }
  }
  /// A device policy.
  package enum Policy: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: DevicePolicy, into w: inout BinaryWriter) { w.policy(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> DevicePolicy { try r.policy() }
  }
  /// Where a page of the raw store starts.
  package enum Cursor: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: StoredCursor, into w: inout BinaryWriter) { w.storedCursor(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> StoredCursor {
      try r.storedCursor()
    }
  }
  /// The events a connection subscribes to (`u32` mask).
  package enum Events: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: EventMask, into w: inout BinaryWriter) { w.u32(value.rawValue) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> EventMask {
      EventMask(rawValue: try r.u32())
    }
  }
  /// A command to the peer link: `u8` 0 connect | 1 disconnect | 2 hold | 3 release | 4 latency f64 |
  /// 5 reconnect now.
  package enum Link: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: LinkCommand, into w: inout BinaryWriter) {
      switch value {
      case .connect: w.u8(0)
      case .disconnect: w.u8(1)
      case .hold: w.u8(2)
      case .release: w.u8(3)
      case .latency(let s):
        w.u8(4)
        w.f64(s)
      case .reconnectNow: w.u8(5)
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> LinkCommand {
      switch try r.u8() {
      case 0: .connect
      case 1: .disconnect
      case 2: .hold
      case 3: .release
      case 4: .latency(try r.f64())
      case 5: .reconnectNow
      case let t: throw r.error("unknown link command \(t)")
      }
    }
  }
  /// The user's answer to a sheet.
  package enum Answer: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: PromptAnswer, into w: inout BinaryWriter) { w.promptAnswer(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> PromptAnswer {
      try r.promptAnswer()
    }
  }
  /// A value the user changes in the Health app.
  package enum Setting: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UserSetting, into w: inout BinaryWriter) { w.userSetting(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UserSetting { try r.userSetting() }
  }
  /// An `HKUpdateFrequency` raw value.
  package enum Frequency: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UpdateFrequency, into w: inout BinaryWriter) { w.u8(value.rawValue) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UpdateFrequency {
      try r.updateFrequency()
    }
  }
  /// A data source.
  package enum Source: FieldCodec {
    /// The smallest encoded source.
    package static var minimumSize: Int { 5 }
    /// Writes `value`.
    package static func write(_ value: SampleSource, into w: inout BinaryWriter) { w.source(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleSource { try r.source() }
  }
  /// An app record (its entitlements travel in their own field).
  package enum App: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: AppRecord, into w: inout BinaryWriter) { w.app(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AppRecord { try r.app() }
  }
  /// An app's entitlements.
  package enum Entitlements: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: Set<Entitlement>, into w: inout BinaryWriter) { w.entitlements(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Set<Entitlement> {
      try r.entitlements()
    }
  }
  /// A correlation an app saves: identifier, type, dates, metadata and its new members.
  package enum NewCorrelation: FieldCodec {
    /// The smallest encoded correlation input.
    package static var minimumSize: Int { 42 }
    /// Writes `value`.
    package static func write(_ value: CorrelationInput, into w: inout BinaryWriter) {
      w.uuid(value.uuid)
      w.sampleType(value.type)
      w.date(value.start)
      w.date(value.end)
      w.metadata(value.metadata)
      Many<NewSample>.write(value.members, into: &w)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> CorrelationInput {
      CorrelationInput(
        uuid: try r.uuid(), type: try r.sampleType(), start: try r.date(), end: try r.date(),
        metadata: try r.metadata(), members: try Many<NewSample>.read(from: &r))
    }
  }
  /// A stored correlation (of an import).
  package enum StoredCorrelation: FieldCodec {
    /// The smallest encoded correlation.
    package static var minimumSize: Int { 47 }
    /// Writes `value`.
    package static func write(_ value: Correlation, into w: inout BinaryWriter) { w.correlation(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Correlation { try r.correlation() }
  }
  /// A correlation query: the sample query of the correlations, then the conditions on their members.
  package enum CorrelationRequest: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: CorrelationQuery, into w: inout BinaryWriter) {
      w.sampleQuery(value.base)
      w.array(value.members) { w, m in
        w.sampleType(m.type)
        w.optional(m.range) { $0.dateRange($1) }
        w.optional(m.filter) { $0.sampleFilter($1) }
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> CorrelationQuery {
      let base = try r.sampleQuery()
      let members = try r.array(minElementSize: 4) { r throws(DecodeError) in
        CorrelationQuery.MemberCondition(
          type: try r.sampleType(), range: try r.optional { r throws(DecodeError) in try r.dateRange() },
          filter: try r.optional { r throws(DecodeError) in try r.sampleFilter() })
      }
      return CorrelationQuery(base: base, members: members)
    }
  }
  /// An optional field: a flag byte (0 absent, 1 present) and the value.
  package enum Optional<Wrapped: FieldCodec>: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: Wrapped.Value?, into w: inout BinaryWriter) {
      w.optional(value) { Wrapped.write($1, into: &$0) }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Wrapped.Value? {
      try r.optional { r throws(DecodeError) in try Wrapped.read(from: &r) }
    }
  }
  /// An array: a `u32` count and the elements; a count the remaining bytes cannot hold is refused before reading.
  package enum Many<Element: FieldCodec>: FieldCodec {
    /// A count.
    package static var minimumSize: Int { 4 }
    /// Writes `value`.
    package static func write(_ value: [Element.Value], into w: inout BinaryWriter) {
      w.array(value) { Element.write($1, into: &$0) }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [Element.Value] {
      try r.array(minElementSize: Element.minimumSize) { r throws(DecodeError) in try Element.read(from: &r) }
    }
  }
}
