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

/// The client connections' transport: accepting, reading frames under the turn's quota, writing replies with
/// backpressure and closing. What a request means, and when a silent connection is closed, is the core's.
extension DeviceDaemon {
  func acceptClients() {
    while let accepted = acceptSameUser(clientListener, "client") {
      let pid = accepted.pid
      if clients.count >= options.maxClients {
        log.log(.warning, "refused a client: \(options.maxClients) connections already open", ["pid": "\(pid)"])
        let refusal = Frame.response(id: 0, .failure(.simulator("too many connections (limit \(options.maxClients))")))
          .framed()
        refusal.withUnsafeBytes { _ = try? Posix.sendSome(accepted.socket.rawValue, $0) }
        continue  // the refused socket closes here
      }
      let id = nextClientID
      nextClientID += 1
      let connection = ClientConnection(id: id, socket: accepted.take(), pid: pid)
      let fd = connection.fd
      clients[id] = connection
      step(.accepted(connection: id, pid: pid, at: Posix.monotonicNanoseconds()))
      do {
        try Posix.epollControl(
          epoll, .add, fd, events: Posix.PollEvents.readable | Posix.PollEvents.peerClosed, token: id)
      } catch {
        log.log(.error, "cannot watch client: \(error)")
        dropClient(connection, reason: nil)
      }
      log.log(.debug, "client connected", ["client": "\(id)", "pid": "\(pid)"])
    }
  }

  func clientReady(_ id: UInt64, _ events: UInt32) {
    guard let connection = clients[id] else { return }
    if events & Posix.PollEvents.writable != 0 {
      if !connection.outbox.drain(to: connection.fd) {
        dropClient(connection, reason: "write failed")
        return
      }
    }
    // Buffered frames first: read nothing more until they are served (the socket buffer pushes back).
    if connection.framesPending { return }
    guard
      events
        & (Posix.PollEvents.readable | Posix.PollEvents.hangUp | Posix.PollEvents.error | Posix.PollEvents.peerClosed)
        != 0
    else { return }
    var budget = 4
    // A connection being closed after an error reply gets nothing more read (nor a second error reply).
    while budget > 0 && !connection.closeAfterFlush {
      budget -= 1
      let result = readBuffer.withUnsafeMutableBytes { buffer in
        catching { () throws(SystemError) in try Posix.read(connection.fd, into: buffer) }
      }
      switch result {
      case .success(.bytes(let n)):
        readBuffer.withUnsafeBytes { connection.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        if !processFrames(connection) { return }
        if n < readBuffer.count || connection.framesPending { return }
      case .success(.wouldBlock):
        return
      case .success(.endOfFile):
        do { try connection.decoder.finish() } catch {
          log.log(.warning, "client vanished mid-frame: \(error)", ["client": "\(id)"])
        }
        dropClient(connection, reason: nil)
        return
      case .failure(let error):
        dropClient(connection, reason: "read failed: \(error)")
        return
      }
    }
  }

  /// Serves, once per turn, the connections whose buffered frames an earlier turn left.
  func servePendingFrames() {
    guard !pendingFrames.isEmpty else { return }
    for id in pendingFrames.sorted() {
      guard let connection = clients[id] else {
        pendingFrames.remove(id)
        continue
      }
      _ = processFrames(connection)
    }
  }

  /// Handles the complete frames buffered for a connection — at most `framesPerTurn`, and none while its unsent
  /// replies exceed the backlog limit (they are written after this turn's commit; a client still over the limit
  /// then is dropped as too slow). Returns false when the connection was dropped.
  func processFrames(_ connection: ClientConnection) -> Bool {
    var served = 0
    defer {
      if connection.framesPending { pendingFrames.insert(connection.id) } else { pendingFrames.remove(connection.id) }
    }
    connection.framesPending = false
    while true {
      if !ClientQuota.mayServe(
        served: served, backlog: connection.outbox.count, maxBacklog: options.maxClientBacklog)
      {
        connection.framesPending = connection.decoder.hasCompleteFrame
        return true
      }
      served += 1
      let body: [UInt8]?
      do { body = try connection.decoder.next() } catch {
        log.log(.warning, "closing client: \(error)", ["client": "\(connection.id)"])
        connection.send(.response(id: 0, .failure(.simulator("\(error); closing the connection"))))
        connection.closeAfterFlush = true
        step(.closing(connection: connection.id))
        return true
      }
      guard let body else { return true }
      let frame: Frame
      do { frame = try Frame.decode(body) } catch {
        let id =
          body.count >= 5
          ? body[1...4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) } : 0
        log.log(.warning, "malformed message: \(error)", ["client": "\(connection.id)"])
        connection.send(.response(id: id, .failure(.simulator("malformed message: \(error)"))))
        continue
      }
      guard case .request(let id, let request) = frame else {
        log.log(.warning, "client sent a non-request frame", ["client": "\(connection.id)"])
        connection.send(.response(id: 0, .failure(.simulator("clients may only send requests"))))
        continue
      }
      handle(connection, id: id, request, body: body)
      if connection.closeAfterFlush { return true }
    }
  }

  func dropClient(_ connection: ClientConnection, reason: String?) {
    if let reason { log.log(.info, "client closed: \(reason)", ["client": "\(connection.id)"]) }
    step(.closed(connection: connection.id))
    pendingFrames.remove(connection.id)
    _ = try? Posix.epollControl(epoll, .remove, connection.fd, events: 0, token: connection.id)
    connection.hangUp()
    clients[connection.id] = nil
    resumeAccepting(descriptorFreed: true)
  }

  var wall: Date { Date(timeIntervalSince1970: Posix.wallClockSeconds()) }

  /// Handles one request; `body` is its frame body, as it arrived.
  func handle(_ connection: ClientConnection, id: UInt32, _ request: Request, body: [UInt8]) {
    step(.request(connection: connection.id, id: id, request, body: body))
  }

  /// Commits the turn by the core's plan (``DeviceCore``): journal, replies, sync, background delivery, pushed events.
  /// False on a journal failure: the daemon must stop, since its memory is ahead of its disk.
  func commit() -> Bool { step(.commit) && step(.repliesWritten) }

  /// Writes every client's queued output (and drops the connections closed after an error reply).
  func flushClients() {
    for connection in clients.values where !connection.outbox.isEmpty || connection.closeAfterFlush {
      flushClient(connection)
    }
  }

  func flushClient(_ connection: ClientConnection) {
    guard connection.outbox.drain(to: connection.fd) else {
      dropClient(connection, reason: "write failed")
      return
    }
    if connection.outbox.isEmpty {
      if connection.closeAfterFlush {
        dropClient(connection, reason: "closed after an error reply")
        return
      }
      if connection.watchingWrites {
        connection.watchingWrites = false
        _ = try? Posix.epollControl(
          epoll, .modify, connection.fd, events: Posix.PollEvents.readable | Posix.PollEvents.peerClosed,
          token: connection.id)
      }
    } else if connection.outbox.count > options.maxClientBacklog {
      log.log(.warning, "client too slow: \(connection.outbox.count) bytes unsent", ["client": "\(connection.id)"])
      dropClient(connection, reason: "backlog over \(options.maxClientBacklog) bytes")
    } else if !connection.watchingWrites {
      connection.watchingWrites = true
      _ = try? Posix.epollControl(
        epoll, .modify, connection.fd,
        events: Posix.PollEvents.readable | Posix.PollEvents.writable | Posix.PollEvents.peerClosed,
        token: connection.id)
    }
  }
}
