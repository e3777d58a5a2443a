import Posix

/// Terminal styling that is applied only when standard output is a terminal and `NO_COLOR` is unset.
package struct Style: Sendable {
  /// Whether escape codes are emitted.
  package let enabled: Bool

  /// Decides from the environment: colour only on a terminal, never when `NO_COLOR` is set.
  package static func forStandardOutput() -> Style {
    Style(enabled: Posix.isTerminal(1) && Posix.environment("NO_COLOR") == nil)
  }

  /// Creates a style.
  package init(enabled: Bool) { self.enabled = enabled }

  private func wrap(_ code: String, _ text: String) -> String { enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
  /// Green.
  package func pass(_ text: String) -> String { wrap("32", text) }
  /// Red.
  package func fail(_ text: String) -> String { wrap("31", text) }
  /// Yellow.
  package func warn(_ text: String) -> String { wrap("33", text) }
  /// Bold.
  package func bold(_ text: String) -> String { wrap("1", text) }
  /// Dim.
  package func dim(_ text: String) -> String { wrap("2", text) }
}

/// Renders two columns side by side (phone | watch) with a header row.
package func sideBySide(left: [String], right: [String], leftTitle: String = "phone", rightTitle: String = "watch")
  -> String
{
  let width = max(leftTitle.count, left.map(\.count).max() ?? 0)
  var lines = [
    "  " + leftTitle.padded(width) + " | " + rightTitle,
    "  " + String(repeating: "-", count: width) + "-+-"
      + String(repeating: "-", count: max(rightTitle.count, right.map(\.count).max() ?? 0)),
  ]
  for i in 0..<max(left.count, right.count) {
    let l = i < left.count ? left[i] : ""
    let r = i < right.count ? right[i] : ""
    lines.append("  " + l.padded(width) + " | " + r)
  }
  return lines.joined(separator: "\n")
}

/// Renders rows as an aligned table.
package func table(_ rows: [[String]]) -> String {
  guard let columns = rows.map(\.count).max() else { return "" }
  var widths = [Int](repeating: 0, count: columns)
  for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
  return rows.map { row in
    row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell.padded(widths[i]) }.joined(separator: "  ")
  }.joined(separator: "\n")
}

extension String {
  /// Pads with spaces to `width` characters.
  package func padded(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
