import DeviceCore
import FoundationEssentials
import HealthModel
import Posix

#if canImport(Glibc)
  import Glibc
#endif

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
