import Dispatch
import Posix
import Wire

/// The read role: callers reading for their own answers, the reader thread, and handing what arrives to its owner.
extension DeviceClient {
  /// Waits for `ticket` as a caller (``Ticket/wait(timeout:)`` and ``Ticket/waitFirst(timeout:)`` come here).
  func waitForTicket(_ ticket: Ticket, timeout: Double, first: Bool) throws(ClientError) -> Ticket.First {
    let known = shared.withLock { s -> Bool in
      // A ticket sent for this wait (``startAwaitedHere(_:)``) is counted as waited already.
      let claimed = ticket.takeClaim()
      guard s.tickets[ticket.id] === ticket else {
        if claimed { Self.uncount(ticket.id, in: &s) }
        return false
      }
      if !claimed { s.waited[ticket.id, default: 0] += 1 }
      return true
    }
    // An answered (or failed) ticket: what it got is there already.
    guard known else {
      return first ? try ticket.waitFirstOnSignal(timeout: timeout) : .final(try ticket.waitOnSignal(timeout: timeout))
    }
    defer { unwait(ticket) }
    return try awaitRegistered(ticket, timeout: timeout, first: first)
  }

  /// Stops counting `ticket` as waited by this caller; wakes the reader thread if it now has work.
  func unwait(_ ticket: Ticket) {
    let wake = shared.withLock { s -> Bool in
      Self.uncount(ticket.id, in: &s)
      return wakesThread(&s)
    }
    if wake { threadWake.signal() }
  }

  /// One waiter fewer for request `id`.
  private static func uncount(_ id: UInt32, in s: inout Shared) {
    if let n = s.waited[id] { s.waited[id] = n > 1 ? n - 1 : nil }
  }

  private func arrived(_ ticket: Ticket, first: Bool) throws(ClientError) -> Ticket.First? {
    if let result = ticket.result { return .final(try result.get()) }
    if first, let interim = ticket.interims.first { return .interim(interim) }
    return nil
  }

  /// The caller's loop: take the socket when nobody reads it and read until the answer is there; otherwise wait to
  /// be handed the answer (or nudged when the socket is free again).
  func awaitRegistered(_ ticket: Ticket, timeout: Double, first: Bool) throws(ClientError) -> Ticket.First {
    let deadline = Posix.monotonicNanoseconds() &+ UInt64(max(0, timeout) * 1e9)
    while true {
      if let done = try arrived(ticket, first: first) { return done }
      let now = Posix.monotonicNanoseconds()
      guard now < deadline else { throw .timeout(request: ticket.name, seconds: timeout) }
      let mine = shared.withLock { s -> Bool in
        guard s.reading == .nobody, s.closed == nil else { return false }
        s.reading = .caller
        return true
      }
      if mine {
        defer { releaseRead() }
        while try arrived(ticket, first: first) == nil {
          let now = Posix.monotonicNanoseconds()
          guard now < deadline else { throw .timeout(request: ticket.name, seconds: timeout) }
          let waitMs = Int32(min(UInt64(Int32.max - 1), (deadline - now) / 1_000_000 + 1))
          guard Posix.waitReadable(core.fd, timeoutMilliseconds: waitMs) else { continue }
          if !readOnce() { break }
        }
      } else {
        let remaining = Double(deadline - now) / 1e9
        _ = ticket.signal.wait(timeout: .now() + remaining)
      }
    }
  }

  /// Gives up the read role: nudges another blocked caller (it may take the socket) and wakes the reader thread
  /// if it has work.
  private func releaseRead() {
    let (next, wake) = shared.withLock { s -> (Ticket?, Bool) in
      s.reading = .nobody
      var other: Ticket?
      for id in s.waited.keys where other == nil { other = s.tickets[id] }
      return (other, wakesThread(&s))
    }
    next?.nudge()
    if wake { threadWake.signal() }
  }

  /// Reads what is there once (the caller holds the read role) and dispatches every whole frame; false when the
  /// connection ended (everything pending has then failed).
  private func readOnce() -> Bool {
    switch core.readOnce() {
    case .frames(let frames):
      for frame in frames { dispatch(frame) }
      return true
    case .nothing:
      return true
    case .ended(let reason, let frames):
      for frame in frames { dispatch(frame) }
      finish(reason)
      return false
    }
  }

  /// The connection ended: close the descriptor, fail what is pending, let the reader thread exit.
  private func finish(_ reason: String) {
    socket.closeFromReader()
    // A refusal the daemon sent before closing is why the connection ended.
    let (failure, tickets, first) = shared.withLock { s -> (ClientError, [Ticket], Bool) in
      let failure = s.closed ?? s.refusal.map { ClientError.rejected($0) } ?? .disconnected(reason)
      let first = s.closed == nil
      s.closed = failure
      defer { s.tickets.removeAll() }
      return (failure, Array(s.tickets.values), first)
    }
    for ticket in tickets { ticket.deliver(.failure(failure)) }
    if first { closedGate.signal() }
    threadWake.signal()
  }

  /// The reader thread: parked until it has work and the socket is free, then reads one batch at a time.
  static func threadLoop(_ core: ReaderCore, handle: SocketHandle, owner: WeakClient, wake: DispatchSemaphore) {
    while true {
      enum Step {
        case read, park, exit
      }
      let step: Step
      if let client = owner.client {
        step = client.shared.withLock { s -> Step in
          if s.closed != nil { return .exit }
          guard s.reading == .nobody, s.threadNeeded else {
            s.threadParked = true
            return .park
          }
          s.reading = .thread
          s.threadParked = false
          return .read
        }
      } else {
        step = .exit
      }
      switch step {
      case .exit:
        if owner.client == nil { handle.closeFromReader() }
        return
      case .park:
        wake.wait()
      case .read:
        // Blocks until the daemon sends something or the connection ends; holds no reference to the client.
        let outcome = core.readOnce()
        guard let client = owner.client else {
          handle.closeFromReader()
          return
        }
        switch outcome {
        case .frames(let frames):
          for frame in frames { client.dispatch(frame) }
          client.releaseRead()
        case .nothing:
          client.releaseRead()
        case .ended(let reason, let frames):
          for frame in frames { client.dispatch(frame) }
          client.finish(reason)
          client.shared.withLock { $0.reading = .nobody }
          return
        }
      }
    }
  }

  private func dispatch(_ frame: Frame) {
    switch frame {
    case .response(let id, let result):
      let ticket = shared.withLock { $0.tickets.removeValue(forKey: id) }
      if let ticket {
        ticket.deliver(result.mapError { ClientError.rejected($0) })
      } else if case .failure(let error) = result {
        // An answer to no request: the daemon refused the connection (for example, too many clients).
        let failure = ClientError.rejected(error)
        let all = shared.withLock { s -> [Ticket] in
          s.refusal = error
          defer { s.tickets.removeAll() }
          return Array(s.tickets.values)
        }
        for t in all { t.deliver(.failure(failure)) }
      }
    case .interim(let id, let reply):
      shared.withLock { $0.tickets[id] }?.deliverInterim(reply)
    case .event(let event):
      let listeners = shared.withLock { s in
        if s.collecting { s.collected.append(event) }
        return Array(s.listeners.values)
      }
      for listener in listeners { listener(event) }
    case .request:
      break
    }
  }
}
