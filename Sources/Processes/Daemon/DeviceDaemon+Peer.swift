import DeviceCore
import FoundationEssentials
import HealthEngine
import HealthModel
import Posix
import Sync
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// The peer link's transport: accepting or connecting, reading messages, latency and writing. What a message means,
/// and when a connection stuck in its handshake is closed, is the core's (``DeviceCore``).
extension DeviceDaemon {
  func acceptPeer() {
    while let accepted = acceptSameUser(peerListener, "peer connection") {
      let pid = accepted.pid
      if let current = peer {
        // An authenticated link is never displaced; one still in its handshake is, so a process that connected
        // and went silent cannot keep the real peer out until its deadline.
        guard !current.authenticated && !core.peer.machine.isConnected else {
          log.log(.warning, "refused a second peer connection", ["pid": "\(pid)"])
          continue  // the refused socket closes here
        }
        log.log(
          .warning, "a new peer connection displaces one still in its handshake",
          ["pid": "\(pid)", "displaced_pid": current.pid.map { "\($0)" } ?? "?"])
        closePeer(reason: "displaced by a new connection before completing the handshake")
      }
      attachPeer(accepted.take(), pid: pid)
      step(.peerOpened(nonce: Posix.randomBytes(32), pid: pid, at: Posix.monotonicNanoseconds()))
    }
  }

  func attachPeer(_ socket: consuming FileDescriptor, pid: Int32? = nil) {
    let connection = PeerConnection(socket: socket, pid: pid)
    let fd = connection.fd
    Posix.setBufferSizes(fd, bytes: 4 << 20)
    peer = connection
    do {
      try Posix.epollControl(
        epoll, .add, fd, events: Posix.PollEvents.readable | Posix.PollEvents.peerClosed, token: Token.peer)
    } catch {
      log.log(.error, "cannot watch the peer: \(error)")
    }
  }

  /// Closes the peer transport and tells the core.
  func closePeer(reason: String?) {
    if closeTransport(reason: reason) { feed(.closed) }
  }

  /// Closes the peer transport, if any, without telling the core; true when there was one.
  func closeTransport(reason: String?) -> Bool {
    guard let connection = peer else { return false }
    if let reason { log.log(.info, "peer link closed: \(reason)") }
    _ = try? Posix.epollControl(epoll, .remove, connection.fd, events: 0, token: Token.peer)
    connection.hangUp()
    peer = nil
    timers.removeAll { $0.timer == .peerDelayed }
    return true
  }

  /// Feeds one input to the peer link and performs what the core returns.
  func feed(_ input: SyncMachine.Input) { step(.peer(input)) }

  func peerReady(_ events: UInt32) {
    guard let connection = peer else { return }
    if events & Posix.PollEvents.writable != 0 {
      if !connection.outbox.drain(to: connection.fd) {
        closePeer(reason: "write failed")
        return
      }
    }
    var budget = 64
    while budget > 0, let connection = peer {
      budget -= 1
      let result = readBuffer.withUnsafeMutableBytes { buffer in
        catching { () throws(SystemError) in try Posix.read(connection.fd, into: buffer) }
      }
      switch result {
      case .success(.bytes(let n)):
        readBuffer.withUnsafeBytes { connection.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        while peer === connection {
          if !connection.authenticated && core.peer.machine.isConnected { peerAuthenticated(connection) }
          let body: [UInt8]?
          do { body = try connection.decoder.next() } catch {
            let when = connection.authenticated ? "" : ", before the pairing handshake completed"
            closePeer(reason: "\(error)\(when)")
            return
          }
          guard let body else { break }
          let message: PeerMessage
          do { message = try PeerMessage.decode(body) } catch {
            log.log(.warning, "malformed peer message: \(error)")
            closePeer(reason: "malformed message")
            return
          }
          feed(.received(message))
        }
      case .success(.wouldBlock): return
      case .success(.endOfFile):
        closePeer(reason: "peer went away")
        return
      case .failure(let error):
        closePeer(reason: "read failed: \(error)")
        return
      }
    }
  }

  func queuePeer(_ message: PeerMessage, latency: Double) {
    guard let connection = peer else { return }
    let bytes = FrameDecoder.frame(message.encoded())
    if latency > 0 || !connection.delayed.isEmpty {
      let now = Posix.monotonicNanoseconds()
      let due = max(connection.delayed.last?.due ?? 0, Self.deadline(after: latency, from: now))
      connection.delayed.append((due, bytes))
      rescheduleDelayed()
    } else {
      connection.outbox.append(bytes)
    }
  }

  func rescheduleDelayed() {
    timers.removeAll { $0.timer == .peerDelayed }
    if let first = peer?.delayed.first { timers.append((first.due, .peerDelayed)) }
  }

  func flushPeer() {
    guard let connection = peer, !connection.outbox.isEmpty else { return }
    guard connection.outbox.drain(to: connection.fd) else {
      closePeer(reason: "write failed")
      return
    }
    let want =
      connection.outbox.isEmpty
      ? Posix.PollEvents.readable | Posix.PollEvents.peerClosed
      : Posix.PollEvents.readable | Posix.PollEvents.writable | Posix.PollEvents.peerClosed
    let watching = !connection.outbox.isEmpty
    if watching != connection.watchingWrites {
      connection.watchingWrites = watching
      _ = try? Posix.epollControl(epoll, .modify, connection.fd, events: want, token: Token.peer)
    }
  }

  /// The handshake completed on `connection`: lift the small pre-handshake frame limit.
  func peerAuthenticated(_ connection: PeerConnection) {
    connection.authenticated = true
    connection.decoder.maxFrameLength = WireProtocol.maxPeerFrame
  }

  /// Connects to the peer socket (the watch) and feeds the outcome; nothing when a transport is open.
  func connectPeer() {
    guard peer == nil, let path = options.peerSocket else { return }
    let socket: FileDescriptor
    do { socket = try Posix.connectUnix(path) } catch {
      log.log(.debug, "peer not reachable: \(error)")
      feed(.closed)
      return
    }
    Posix.setNonBlocking(socket.rawValue)
    log.log(.debug, "connected to the peer socket")
    attachPeer(socket)
    step(.peerOpened(nonce: Posix.randomBytes(32), pid: nil, at: Posix.monotonicNanoseconds()))
  }
}
