import Dispatch
import HealthModel
import HealthPairClient
import Posix
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// What ``restartDaemon(_:layout:daemon:options:)`` did.
package struct RestartReport: Sendable {
  /// The pid of the daemon it stopped first, when one was running.
  package var stopped: Int32?
  /// The pid of the daemon it started.
  package var started: Int32
  /// Whether the other device was running, and so whether the link was waited for.
  package var peerRunning: Bool
}

/// Starts `device`'s daemon alone, in the background, in the existing pair at `layout` — stopping it first
/// (SIGTERM) if it is running — and waits until it is ready and, when the other device runs, linked to it. For a
/// pair started with `healthpair up` whose daemon crashed or was killed.
package func restartDaemon(
  _ device: DeviceKind, layout: PairLayout, daemon: String? = nil, options: LaunchOptions
) throws(PairError) -> RestartReport {
  guard Posix.exists(layout.pairingKey) else { throw .notAPair(root: layout.root) }
  do { try layout.checkOwned() } catch { throw .system(error) }
  let executable: String
  if let daemon { executable = daemon } else { executable = try locateDaemon() }
  let stopped = layout.runningDaemon(device)
  if let pid = stopped {
    try? Posix.kill(pid, SIGTERM)
    guard Posix.waitForExit(pid, timeoutMilliseconds: 10_000) else {
      throw .timeout("the running \(device) daemon (pid \(pid)) to stop")
    }
  }
  var options = options
  options.detach = true
  let process = try DaemonProcess.start(device, layout: layout, daemon: executable, options: options)
  // Detached, it outlives this process once linked; interrupted before, it is stopped.
  defer { Interruption.launched(process.pid) }
  let peerRunning = layout.runningDaemon(device.peer) != nil
  if peerRunning {
    let client: DeviceClient
    do { client = try DeviceClient(socketPath: layout.socket(device), clientName: "healthpair restart") } catch {
      throw .client(error)
    }
    defer { client.close() }
    try waitForLink(client, timeout: options.readyTimeout)
  }
  return RestartReport(stopped: stopped, started: process.pid, peerRunning: peerRunning)
}

/// Waits until `client`'s daemon reports its peer link up, re-checking whenever it pushes a link event.
package func waitForLink(_ client: DeviceClient, timeout: Double) throws(PairError) {
  let gate = DispatchSemaphore(value: 0)
  let token = client.addListener { event in
    if case .linkChanged = event { gate.signal() }
  }
  defer { client.removeListener(token) }
  let deadline = DispatchTime.now() + timeout
  do { try client.subscribe(.link) } catch { throw .client(error) }
  func connected() throws(PairError) -> Bool {
    do { return try client.link(.reconnectNow).connected } catch { throw .client(error) }
  }
  while true {
    if try connected() { return }
    if gate.wait(timeout: deadline) == .timedOut {
      if try connected() { return }
      throw .timeout("the peer link")
    }
  }
}
