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
