import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of audiograms, shared by the wire protocol, the journal and snapshots (docs/journal.md).
//
// audiogram       := uuid | start date | end date | [audiogram-point] | metadata | source
// audiogram-input := uuid | start date | end date | [audiogram-point] | metadata   (what an app saves)
// audiogram-point := frequency f64 (Hz) | [audiogram-test]
// audiogram-test  := sensitivity f64 (dBHL) | masked bool | side u8 (0 left, 1 right) | clampLower f64?
//                    | clampUpper f64?

/// The smallest encoded audiogram input: no points, no metadata.
package let minimumAudiogramInputSize = 16 + 8 + 8 + 4 + 4
/// The smallest encoded stored audiogram, from the shortest source.
package let minimumAudiogramSize = minimumAudiogramInputSize + 5

extension BinaryWriter {
  /// An audiogram's points.
  mutating func audiogramPoints(_ points: [AudiogramPoint]) {
    array(points) { w, point in
      w.f64(point.frequency)
      w.array(point.tests) { w, test in
        w.f64(test.sensitivity)
        w.bool(test.masked)
        w.u8(UInt8(test.side.rawValue))
        w.optional(test.clampLower) { $0.f64($1) }
        w.optional(test.clampUpper) { $0.f64($1) }
      }
    }
  }

  /// A stored audiogram (layout above).
  package mutating func audiogram(_ a: Audiogram) {
    audiogramInput(AudiogramInput(uuid: a.uuid, start: a.start, end: a.end, points: a.points, metadata: a.metadata))
    source(a.source)
  }

  /// An audiogram as an app saves it (layout above).
  package mutating func audiogramInput(_ a: AudiogramInput) {
    uuid(a.uuid)
    date(a.start)
    date(a.end)
    audiogramPoints(a.points)
    metadata(a.metadata)
  }
}

extension BinaryReader {
  /// Reads an audiogram's points: at most 30, each with at most two tests of a known side.
  mutating func audiogramPoints() throws(DecodeError) -> [AudiogramPoint] {
    let points = try array(minElementSize: 12) { r throws(DecodeError) -> AudiogramPoint in
      let frequency = try r.f64()
      let tests = try r.array(minElementSize: 12) { r throws(DecodeError) -> AudiogramTest in
        let sensitivity = try r.f64()
        let masked = try r.bool()
        let raw = try r.u8()
        guard let side = AudiogramSide(rawValue: Int(raw)) else { throw r.error("unknown audiogram test side \(raw)") }
        let lower = try r.optional { r throws(DecodeError) in try r.f64() }
        let upper = try r.optional { r throws(DecodeError) in try r.f64() }
        return AudiogramTest(sensitivity: sensitivity, side: side, masked: masked, clampLower: lower, clampUpper: upper)
      }
      guard tests.count <= 2 else { throw r.error("an audiogram point holds at most 2 tests, not \(tests.count)") }
      return AudiogramPoint(frequency: frequency, tests: tests)
    }
    guard points.count <= maxAudiogramPoints else { throw error("an audiogram holds at most 30 points") }
    return points
  }

  /// Reads an audiogram as an app sends it (numbers as sent: the device validates them).
  package mutating func audiogramInput() throws(DecodeError) -> AudiogramInput {
    AudiogramInput(
      uuid: try uuid(), start: try finiteDate("audiogram start date"), end: try finiteDate("audiogram end date"),
      points: try audiogramPoints(), metadata: try metadata(finite: true))
  }

  /// Reads a stored audiogram: one ``Audiogram/validate()`` accepts.
  package mutating func audiogram() throws(DecodeError) -> Audiogram {
    let start = offset
    let input = try audiogramInput()
    let source = try source()
    do { return try input.validated(source: source) } catch {
      throw DecodeError(offset: reportBase + start, "audiogram \(input.uuid) is not valid: \(error.message)")
    }
  }
}

extension Fields {
  /// `[audiogram]`.
  static let audiograms = RecordField<[Audiogram]>(
    write: { w, audiograms in w.array(audiograms) { $0.audiogram($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumAudiogramSize) { r throws(DecodeError) in try r.audiogram() }
    })
}
