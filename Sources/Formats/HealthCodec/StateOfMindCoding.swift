import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of States of Mind, shared by the wire protocol, the journal and snapshots (docs/journal.md).
//
// state-of-mind-input := uuid | date | kind i64 | valence f64 | labels [i64] | associations [i64] | metadata
// state-of-mind       := state-of-mind-input's fields | source   (kind 1–2, valence −1…1, labels 1–38,
//                        associations 1–18: a reader refuses anything else)

/// The smallest encoded State of Mind input: no labels, associations or metadata.
package let minimumStateOfMindInputSize = 16 + 8 + 8 + 8 + 4 + 4 + 4
/// The smallest encoded stored State of Mind, from the shortest source.
package let minimumStateOfMindSize = minimumStateOfMindInputSize + 5

extension BinaryWriter {
  /// A State of Mind as an app saves it (layout above).
  package mutating func stateOfMindInput(_ s: StateOfMindInput) {
    uuid(s.uuid)
    date(s.date)
    i64(Int64(s.kind))
    f64(s.valence)
    array(s.labels) { $0.i64(Int64($1)) }
    array(s.associations) { $0.i64(Int64($1)) }
    metadata(s.metadata)
  }

  /// A stored State of Mind (layout above).
  package mutating func stateOfMind(_ s: StateOfMind) {
    stateOfMindInput(s.input)
    source(s.source)
  }
}

extension BinaryReader {
  /// Reads a State of Mind as an app sends it (numbers as sent, within Int's range: the device validates them).
  package mutating func stateOfMindInput() throws(DecodeError) -> StateOfMindInput {
    func small(_ r: inout BinaryReader) throws(DecodeError) -> Int {
      let v = try r.i64()
      guard v.magnitude <= 1 << 31 else { throw r.error("State of Mind value \(v) out of range") }
      return Int(v)
    }
    let uuid = try uuid()
    let date = try finiteDate("State of Mind date")
    let kind = try small(&self)
    let valence = try f64()
    let labels = try array(minElementSize: 8) { r throws(DecodeError) in try small(&r) }
    let associations = try array(minElementSize: 8) { r throws(DecodeError) in try small(&r) }
    return StateOfMindInput(
      uuid: uuid, date: date, kind: kind, valence: valence, labels: labels, associations: associations,
      metadata: try metadata(finite: true))
  }

  /// Reads a stored State of Mind: one ``StateOfMindInput/validated(source:)`` accepts.
  package mutating func stateOfMind() throws(DecodeError) -> StateOfMind {
    let start = offset
    let input = try stateOfMindInput()
    let source = try source()
    do { return try input.validated(source: source) } catch {
      throw DecodeError(offset: reportBase + start, "State of Mind \(input.uuid) is not valid: \(error.message)")
    }
  }
}

extension Fields {
  /// `[state-of-mind]`.
  static let statesOfMind = RecordField<[StateOfMind]>(
    write: { w, states in w.array(states) { $0.stateOfMind($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumStateOfMindSize) { r throws(DecodeError) in try r.stateOfMind() }
    })
}
