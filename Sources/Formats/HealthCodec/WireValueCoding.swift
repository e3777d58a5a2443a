import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of the values only the client protocol carries: errors, date ranges, permission sheets
// (docs/protocol.md).

extension BinaryWriter {
  /// `u8` kind, `u8` code, message, optional exception name.
  package mutating func healthError(_ e: HealthError) {
    u8(e.kind.rawValue)
    u8(UInt8(e.code.rawValue))
    string(e.message)
    optional(e.exception) { $0.string($1) }
  }
  /// optional start, optional end, `u32` options.
  package mutating func dateRange(_ r: DateRange) {
    optional(r.start) { $0.date($1) }
    optional(r.end) { $0.date($1) }
    u32(r.options.rawValue)
  }
  /// id, bundle, permissions, shownAt.
  package mutating func prompt(_ p: Prompt) {
    u64(p.id)
    string(p.bundleID)
    array(p.permissions) { $0.permission($1) }
    date(p.shownAt)
    optional(p.objects) { $0.uuids($1) }
  }
}

extension BinaryReader {
  /// Reads a HealthError.
  package mutating func healthError() throws(DecodeError) -> HealthError {
    let rawKind = try u8()
    guard let kind = HealthError.Kind(rawValue: rawKind) else { throw error("unknown error kind \(rawKind)") }
    let rawCode = try u8()
    guard let code = HealthErrorCode(rawValue: Int(rawCode)) else {
      throw error("unknown HealthKit error code \(rawCode)")
    }
    return HealthError(
      kind: kind, code: code, message: try string(),
      exception: try optional { r throws(DecodeError) in try r.string(maxLength: 256) })
  }
  /// Reads a date range.
  package mutating func dateRange() throws(DecodeError) -> DateRange {
    DateRange(
      start: try optional { r throws(DecodeError) in try r.date() },
      end: try optional { r throws(DecodeError) in try r.date() },
      options: QueryOptions(rawValue: try u32()))
  }
  /// Reads a prompt.
  package mutating func prompt() throws(DecodeError) -> Prompt {
    Prompt(
      id: try u64(), bundleID: try string(maxLength: 1024),
      permissions: try array(minElementSize: 3) { r throws(DecodeError) in try r.permission() }, shownAt: try date(),
      objects: try optional { r throws(DecodeError) in
        try r.array(minElementSize: 16) { r throws(DecodeError) in
          try r.uuid()
        }
      })
  }
}
