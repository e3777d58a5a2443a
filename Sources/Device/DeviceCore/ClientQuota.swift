/// How much of a loop turn one client connection may take (the shell applies it while it reads frames).
package enum ClientQuota {
  /// Requests served per connection per loop turn: one client pipelining thousands of costly requests delays every
  /// other client by at most this many of them (`DeviceCoreTests`, "a connection is served at most framesPerTurn
  /// requests a turn, none while over its backlog").
  package static let framesPerTurn = 16

  /// Whether a connection that was served `served` requests this turn, with `backlog` bytes still unsent, is served
  /// another now: not past the quota, and not while its unsent replies exceed `maxBacklog` (they are written after
  /// the commit; a client still over the limit then is dropped as too slow).
  package static func mayServe(served: Int, backlog: Int, maxBacklog: Int) -> Bool {
    served < framesPerTurn && backlog <= maxBacklog
  }
}
