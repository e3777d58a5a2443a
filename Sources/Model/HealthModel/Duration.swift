/// Parses a duration such as `250ms`, `30s`, `10m`, `2h`, `7d`, `1w` or `1h30m` into seconds; nil when malformed.
package func parseDuration(_ text: String) -> Double? {
  let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604_800)]
  var rest = Substring(text)
  var total = 0.0
  guard !rest.isEmpty else { return nil }
  while !rest.isEmpty {
    let number = rest.prefix { $0.isNumber || $0 == "." }
    guard !number.isEmpty, let value = Double(number) else { return nil }
    rest = rest.dropFirst(number.count)
    guard let unit = units.first(where: { rest.hasPrefix($0.0) && !(($0.0 == "m") && rest.hasPrefix("ms")) }) else {
      return nil
    }
    rest = rest.dropFirst(unit.0.count)
    total += value * unit.1
  }
  return total.isFinite && total < 1e12 ? total : nil
}

/// Formats seconds compactly (`10m`, `1h30m`, `7d`, `1.5s`, `250ms`).
package func formatDuration(_ seconds: Double) -> String {
  if seconds == 0 { return "0s" }
  guard seconds.isFinite, abs(seconds) < 1e12, seconds > 0 else { return formatNumber(seconds) + "s" }
  if seconds < 1 { return formatNumber(seconds * 1000) + "ms" }
  if seconds != seconds.rounded() { return formatNumber(seconds) + "s" }
  var rest = Int(seconds)
  var parts = ""
  for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
    parts += "\(rest / size)\(unit)"
    rest %= size
  }
  return parts
}
