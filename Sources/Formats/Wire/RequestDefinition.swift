import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// What a row of `RequestTable` is, and how the frame codec, the logs and the client reach a row at its concrete type.

/// How one field of a request (or one reply's payload) is written to and read from a frame.
///
/// The conforming types are the namespaces in ``Codec``; each forwards to the ``BinaryWriter``/``BinaryReader``
/// method of its value (those are shared with events and the journal).
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

/// One `key=value` of a log line.
package struct LogField: Sendable, Equatable {
  /// The key.
  package var key: String
  /// The value.
  package var value: String

  /// A field.
  package init(_ key: String, _ value: String) {
    self.key = key
    self.value = value
  }
}

/// An app's HealthKit call as its log line names it: the app, and what the call asked.
package struct AppCall: Sendable, Equatable {
  /// The calling app.
  package var bundleID: String
  /// What it asked, in order.
  package var fields: [LogField]

  /// A call of `bundleID` asking `fields`.
  package init(_ bundleID: String, _ fields: [LogField] = []) {
    self.bundleID = bundleID
    self.fields = fields
  }
}

/// A request's definition with its field types erased: what tests walking every row need.
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

/// One request: its opcode, its fields' codecs in wire order, its answer, the two functions between the `Request`
/// case and its fields (the case's constructor and its inverse), and what the logs say of it.
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
  /// The request's name in logs when it does not depend on its fields (the opcode's name unless the row says).
  let fixedName: String
  /// The request's name in logs from its fields, for a row whose name depends on them (`setLocked`: lock, unlock).
  let fieldName: (@Sendable (repeat (each Field).Value) -> String)?
  /// The app's call the request is, for the log; nil for a request that is not an app's HealthKit call.
  let call: (@Sendable (repeat (each Field).Value) -> AppCall)?

  /// A definition; `make` is normally the `Request` case itself, and `match` its inverse. `name` is the request's
  /// name in logs (the opcode's name when nil); `call`, for an app's HealthKit call, what its log line names.
  init(
    _ opcode: RequestOpcode, _ codecs: repeat (each Field).Type, answer: some ReplyKind<Answer>,
    make: @escaping @Sendable (repeat (each Field).Value) -> Request,
    match: @escaping @Sendable (Request) -> (repeat (each Field).Value)?,
    name: (@Sendable (repeat (each Field).Value) -> String)? = nil,
    call: (@Sendable (repeat (each Field).Value) -> AppCall)? = nil
  ) {
    self.opcode = opcode
    self.answer = answer.shape
    self.make = make
    self.fields = match
    self.fixedName = String(describing: opcode)
    self.fieldName = name
    self.call = call
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

  /// The name of `request` (this row's case) in logs.
  func name(of request: Request) -> String {
    guard let fieldName, let values = fields(request) else { return fixedName }
    return fieldName(repeat each values)
  }

  /// The app's call `request` (this row's case) is; nil when it is none.
  func appCall(of request: Request) -> AppCall? {
    guard let call, let values = fields(request) else { return nil }
    return call(repeat each values)
  }
}

/// Something done with one request's definition, at its concrete type.
///
/// ``RequestOpcode/visitDefinition(_:)`` hands a visitor the definition of an opcode as the `RequestDefinition` it
/// is (its answer and field codecs known to the compiler), not as ``AnyRequestDefinition``, so each row's reading
/// and writing is specialized for its fields instead of walking the field pack through witness tables.
package protocol RequestDefinitionVisitor {
  /// What a visit gives.
  associatedtype Outcome
  /// Visits `definition`.
  mutating func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>)
    -> Outcome
}

extension RequestOpcode {
  /// The definition of the request with this opcode.
  package var definition: any AnyRequestDefinition {
    var erase = ErasingVisitor()
    return visitDefinition(&erase)
  }

  /// Reads the fields that follow this opcode and builds the request, specialized for the opcode's row.
  /// - Throws: ``DecodeError`` at the first bad byte.
  package func readFields(from r: inout BinaryReader) throws(DecodeError) -> Request {
    var reading = ReadingVisitor(reader: r)
    let result = visitDefinition(&reading)
    r = reading.reader
    return try result.get()
  }
}

extension Request {
  /// This request's definition in ``RequestTable``.
  package var definition: any AnyRequestDefinition { opcode.definition }

  /// Writes this request's fields (after its opcode) as its row lays them out, specialized for the row.
  package func writeFields(into w: inout BinaryWriter) {
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

/// A request's name in logs, from its row.
struct NamingVisitor: RequestDefinitionVisitor {
  let request: Request
  func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>) -> String {
    definition.name(of: request)
  }
}

/// The app's call a request is, from its row.
struct AppCallVisitor: RequestDefinitionVisitor {
  let request: Request
  func visit<Answer, each Field: FieldCodec>(_ definition: RequestDefinition<Answer, repeat each Field>) -> AppCall? {
    definition.appCall(of: request)
  }
}
