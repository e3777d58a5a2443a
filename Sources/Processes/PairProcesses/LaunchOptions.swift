import Posix

/// Options for launching daemons.
package struct LaunchOptions: Sendable {
  /// `--fsync`.
  package var fsync = false
  /// `--log-level`.
  package var logLevel = "info"
  /// Let the processes outlive the launcher (`healthpair up`). Otherwise each daemon stops when the launching
  /// process exits, even if it crashes. Either way daemons run in a process group of their own, so a terminal's
  /// SIGINT reaches only the launcher, which stops them in order (``Interruption``).
  package var detach = false
  /// How long to wait for a daemon's ready line, seconds.
  package var readyTimeout = 20.0
  /// Extra arguments for both daemons.
  package var extraArguments: [String] = []
  /// Fork daemons from a ``DaemonZygote`` (when ``DaemonZygote/isEnabled(_:)`` and not ``detach``); false always
  /// spawns (`exec`), which the start-up benchmark measures as the cold start.
  package var useZygote = true
  /// Creates default options.
  package init() {}

  /// The options `record(in:)` wrote for the pair in `layout` (defaults for those it did not write).
  package static func recorded(in layout: PairLayout) -> LaunchOptions {
    var options = LaunchOptions()
    guard let bytes = try? Posix.readOwnFile(layout.launchOptions, limit: 4096) else { return options }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2 else { continue }
      switch parts[0] {
      case "fsync": options.fsync = parts[1] == "true"
      case "log-level": options.logLevel = parts[1]
      default: continue
      }
    }
    return options
  }

  /// Writes the options a restart must reuse (`fsync`, `log-level`) to ``PairLayout/launchOptions``.
  package func record(in layout: PairLayout) throws(SystemError) {
    let text = "fsync=\(fsync)\nlog-level=\(logLevel)\n"
    try Posix.writeFileAtomically(layout.launchOptions, Array(text.utf8), mode: 0o600)
  }
}
