/// A JSON value with deterministic rendering (object keys keep insertion order), for `--json` outputs.
package indirect enum JSON: Sendable, Equatable {
  /// `null`.
  case null
  /// `true` / `false`.
  case bool(Bool)
  /// A number (integers print without a fraction; exact up to 2^53).
  case number(Double)
  /// An unsigned integer, printed exactly (seeds and other 64-bit values a Double would round).
  case unsigned(UInt64)
  /// A string.
  case string(String)
  /// An array.
  case array([JSON])
  /// An object; keys keep the order given.
  case object([(String, JSON)])

  /// Equality (objects compare key order too).
  package static func == (a: JSON, b: JSON) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.unsigned(let x), .unsigned(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x == y
    case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// An integer number.
  package static func int(_ v: Int) -> JSON { .number(Double(v)) }
  /// An optional string (null when nil).
  package static func optional(_ v: String?) -> JSON { v.map { .string($0) } ?? .null }

  /// Renders compactly (`pretty` = false) or indented with two spaces.
  package func render(pretty: Bool = true) -> String {
    var out = ""
    write(into: &out, indent: pretty ? 0 : nil)
    return out
  }

  private func write(into out: inout String, indent: Int?) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n):
      if n.isFinite, n == n.rounded(), abs(n) < 1e15 {
        out += String(Int64(n))
      } else if n.isFinite {
        out += String(n)
      } else {
        out += "null"
      }
    case .unsigned(let n): out += String(n)
    case .string(let s): JSON.escape(s, into: &out)
    case .array(let items):
      if items.isEmpty {
        out += "[]"
        return
      }
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        if let indent { out += "\n" + String(repeating: "  ", count: indent + 1) }
        item.write(into: &out, indent: indent.map { $0 + 1 })
      }
      if let indent { out += "\n" + String(repeating: "  ", count: indent) }
      out += "]"
    case .object(let fields):
      if fields.isEmpty {
        out += "{}"
        return
      }
      out += "{"
      for (i, (key, value)) in fields.enumerated() {
        if i > 0 { out += "," }
        if let indent { out += "\n" + String(repeating: "  ", count: indent + 1) }
        JSON.escape(key, into: &out)
        out += indent == nil ? ":" : ": "
        value.write(into: &out, indent: indent.map { $0 + 1 })
      }
      if let indent { out += "\n" + String(repeating: "  ", count: indent) }
      out += "}"
    }
  }

  private static func escape(_ s: String, into out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
  }
}
