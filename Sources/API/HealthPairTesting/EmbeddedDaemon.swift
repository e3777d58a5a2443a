import Daemon

/// `healthpaird`'s main, embedded in every binary that links HealthPairTesting — not for apps or tests to call.
///
/// A package that depends on HealthPair builds its test binary but not the `healthpaird` executable (SwiftPM builds
/// only the products a target depends on). So when no `healthpaird` binary is found, the harness launches the test
/// binary itself as the daemon, with `HEALTHPAIRD_EMBEDDED=1` in its environment: CPosix's start-up hook (a C
/// constructor, run before the test runner's main) sees the variable, calls this function through a weak
/// reference, and exits with its status. Binaries that do not link HealthPairTesting have no such symbol, and the
/// hook does nothing.
/// - Parameters:
///   - argc: The argument count, program name included.
///   - argv: The arguments, program name first.
/// - Returns: The daemon's exit status.
@_cdecl("healthpair_embedded_daemon_main")
public func _healthPairEmbeddedDaemonMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
  -> Int32
{
  var arguments: [String] = []
  for index in 1..<max(1, Int(argc)) {
    if let argument = argv[index] { arguments.append(String(cString: argument)) }
  }
  return DaemonMain.main(arguments)
}
