import FoundationEssentials
import HealthModel
import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// Log severities. `fault` means a bug in HealthPair; `error` bad input or a failed operation; `warning` something
/// a user should look at (a refused connection, a torn journal tail, an app call that would terminate the app);
/// `info` lifecycle (start, stop, link up/down), sheets, Settings, and one line per app call with its outcome;
/// `debug` every request.
package enum LogLevel: Int, Comparable, Sendable, CaseIterable {
  /// Every request.
  case debug = 0
  /// Lifecycle.
  case info = 1
  /// Something to look at.
  case warning = 2
  /// Bad input or a failed operation.
  case error = 3
  /// A bug in HealthPair.
  case fault = 4

  /// Parses `debug`, `info`, `warning`, `error`, `fault`.
  package init?(name: String) {
    guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
    self = level
  }

  /// The level's name, upper-cased in log lines.
  package var name: String {
    switch self {
    case .debug: "debug"
    case .info: "info"
    case .warning: "warning"
    case .error: "error"
    case .fault: "fault"
    }
  }

  /// Orders by severity.
  package static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A one-line-per-event logger writing to a file: `2026-11-29T14:15:58.123Z INFO    phone: message key=value`;
/// while the device's virtual clock is set, its reading follows the wall clock:
/// `2026-11-29T14:15:58.123Z [virtual 2026-01-05T08:00:00Z] INFO    phone: …`.
package final class Logger {
  /// The log file, closed when the logger goes.
  private let file: FileDescriptor
  private let label: String
  /// The lowest level written.
  package let threshold: LogLevel
  /// Reads the device's virtual clock (nil: not set) for each line.
  package var virtualClock: () -> Date? = { nil }

  /// Opens (appends to) `path`, creating it; a symbolic link there is refused, never followed.
  package init(path: String, label: String, threshold: LogLevel) throws(SystemError) {
    file = FileDescriptor(try Posix.openOwnFile(path, O_WRONLY | O_APPEND, mode: 0o600))
    self.label = label
    self.threshold = threshold
  }

  /// Whether `level` would be written.
  package func enabled(_ level: LogLevel) -> Bool { level >= threshold }

  /// Writes one line with `key=value` metadata.
  package func log(
    _ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]
  ) {
    guard level >= threshold else { return }
    write(level, message(), metadata)
  }

  /// Writes one line with `key=value` fields in the given order.
  package func log(_ level: LogLevel, _ message: String, fields: [RequestCore.Field]) {
    guard level >= threshold else { return }
    write(level, message, fields.map { (key: $0.key, value: $0.value) })
  }

  private func write(_ level: LogLevel, _ message: String, _ metadata: some Sequence<(key: String, value: String)>) {
    var line = formatDate(Date(timeIntervalSince1970: Posix.wallClockSeconds())) + " "
    if let virtual = virtualClock() { line += "[virtual \(formatDate(virtual))] " }
    line += level.name.uppercased().padding(toLength: 8) + label + ": " + message
    for (key, value) in metadata { line += " \(key)=\(value.contains(" ") ? "\"\(value)\"" : value)" }
    line += "\n"
    let bytes = Array(line.utf8)
    bytes.withUnsafeBytes { _ = try? Posix.writeAll(file.rawValue, $0) }
  }
}

extension String {
  fileprivate func padding(toLength n: Int) -> String {
    count >= n ? self : self + String(repeating: " ", count: n - count)
  }
}
