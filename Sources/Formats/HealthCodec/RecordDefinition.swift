// A durable record — a journal event, a sync payload, a snapshot's outbound entry — is a tag byte and a list of
// fields. `RecordDefinition` holds the three together, so the writer and the reader of a record kind are one value:
// the event table (EventTable.swift) and the sync payload table (SyncPayloadTable.swift) are lists of them.

/// How one field of a durable record is written and read: both halves of its layout in one value. The fields records
/// share are in ``Fields``.
package struct RecordField<Value>: Sendable {
  /// Writes a value.
  let write: @Sendable (inout BinaryWriter, Value) -> Void
  /// Reads a value, checking it as the layout requires.
  /// - Throws: ``DecodeError`` at the first bad byte.
  let read: @Sendable (inout BinaryReader) throws(DecodeError) -> Value

  /// A field written by `write` and read by `read`, which must read exactly what `write` wrote.
  init(
    write: @escaping @Sendable (inout BinaryWriter, Value) -> Void,
    read: @escaping @Sendable (inout BinaryReader) throws(DecodeError) -> Value
  ) {
    self.write = write
    self.read = read
  }
}

/// One kind of tagged record: its tag, its fields in the order they are written, and how the record is built from
/// them.
///
/// ``write(_:into:)`` writes the tag, then each field; ``read(from:)`` (called once the tag is read) reads the fields
/// in the same order and builds the record, so the writer and the reader cannot disagree. `Fields` is the fields'
/// values: one value, a tuple of two or three, or `Void`. The initializers and the two methods are inlined, so each
/// row's closures are specialized for its fields' types (a generic closure copies a tuple's values through witness
/// tables).
package struct RecordDefinition<Tag: RawRepresentable & Sendable, Record, Fields>: Sendable
where Tag.RawValue == UInt8 {
  /// The record's tag byte.
  package let tag: Tag
  /// Every field, in order, as one.
  let fields: RecordField<Fields>
  /// Builds the record from its fields.
  let make: @Sendable (Fields) -> Record

  /// A record of one field.
  init(_ tag: Tag, _ field: RecordField<Fields>, make: @escaping @Sendable (Fields) -> Record) {
    self.tag = tag
    self.fields = field
    self.make = make
  }

  /// A record of two fields, written in this order.
  @inline(__always) init<A, B>(
    _ tag: Tag, _ a: RecordField<A>, _ b: RecordField<B>, make: @escaping @Sendable (A, B) -> Record
  ) where Fields == (A, B) {
    self.tag = tag
    self.fields = RecordField(
      write: { w, v in
        a.write(&w, v.0)
        b.write(&w, v.1)
      },
      read: { r throws(DecodeError) in
        let first = try a.read(&r)
        return (first, try b.read(&r))
      })
    self.make = { make($0.0, $0.1) }
  }

  /// A record of three fields, written in this order.
  @inline(__always) init<A, B, C>(
    _ tag: Tag, _ a: RecordField<A>, _ b: RecordField<B>, _ c: RecordField<C>,
    make: @escaping @Sendable (A, B, C) -> Record
  ) where Fields == (A, B, C) {
    self.tag = tag
    self.fields = RecordField(
      write: { w, v in
        a.write(&w, v.0)
        b.write(&w, v.1)
        c.write(&w, v.2)
      },
      read: { r throws(DecodeError) in
        let first = try a.read(&r)
        let second = try b.read(&r)
        return (first, second, try c.read(&r))
      })
    self.make = { make($0.0, $0.1, $0.2) }
  }

  /// A record of no fields: the tag alone.
  init(_ tag: Tag, make: @escaping @Sendable () -> Record) where Fields == Void {
    self.tag = tag
    self.fields = RecordField(write: { _, _ in }, read: { _ throws(DecodeError) in () })
    self.make = { _ in make() }
  }

  /// A record with the fields of `other` (another table's record that carries the same change), under its own tag:
  /// the two layouts are one definition.
  init<OtherTag, OtherRecord>(
    _ tag: Tag, fieldsOf other: RecordDefinition<OtherTag, OtherRecord, Fields>,
    make: @escaping @Sendable (Fields) -> Record
  ) {
    self.tag = tag
    self.fields = other.fields
    self.make = make
  }

  /// Writes the tag, then the fields.
  @inline(__always) func write(_ values: Fields, into w: inout BinaryWriter) {
    w.u8(tag.rawValue)
    fields.write(&w, values)
  }

  /// Reads the fields that follow the tag and builds the record.
  /// - Throws: ``DecodeError`` at the first bad byte.
  @inline(__always) func read(from r: inout BinaryReader) throws(DecodeError) -> Record { make(try fields.read(&r)) }
}
