import FoundationEssentials
import HealthModel

/// The bookkeeping of `sendToRemoteWorkoutSession(data:)` on one device: each sending session's recent sends (for
/// the rate limit) and the sends waiting for the peer's answer.
package struct RemoteDataChannel: Hashable, Sendable {
  /// The most bytes one session may send in any ``window`` (the header's "100 KB per 10 s", workouts.md §3.3,
  /// §6.2, read as 100 × 1024 bytes: HealthPair model).
  package static let limit = 100 * 1024
  /// The window of the limit, in seconds.
  package static let window = 10.0

  /// One accepted send: when, and how many bytes.
  package struct Send: Hashable, Sendable {
    /// When it was accepted.
    package var date: Date
    /// Its size.
    package var bytes: Int
  }

  /// Accepted sends by session, within the last window.
  package private(set) var recent: [WorkoutSessionID: [Send]] = [:]
  /// Sends awaiting the peer's answer: the sequence number's app and session.
  package private(set) var awaiting: [UInt64: WorkoutSessionID] = [:]
  /// The next sequence number.
  package private(set) var nextSequence: UInt64 = 1

  /// An empty channel.
  package init() {}

  /// Bytes `id` sent in the sliding window ending at `now`: sends after `now − window`.
  package func bytesInWindow(_ id: WorkoutSessionID, at now: Date) -> Int {
    let from = now.addingTimeInterval(-Self.window)
    return (recent[id] ?? []).filter { $0.date > from }.reduce(0) { $0 + $1.bytes }
  }

  /// Records an accepted send and returns its sequence number.
  mutating func accept(_ id: WorkoutSessionID, bytes: Int, at now: Date) -> UInt64 {
    let from = now.addingTimeInterval(-Self.window)
    recent[id] = (recent[id] ?? []).filter { $0.date > from } + [Send(date: now, bytes: bytes)]
    let sequence = nextSequence
    nextSequence += 1
    awaiting[sequence] = id
    return sequence
  }

  /// The session of the answered send `sequence`, forgotten.
  mutating func answered(_ sequence: UInt64) -> WorkoutSessionID? { awaiting.removeValue(forKey: sequence) }
}

/// An accepted `sendToRemoteWorkoutSession(data:)`: its sequence number and the peer message that carries it.
package struct SentData: Hashable, Sendable {
  /// The send's sequence number; the completion names it.
  package var sequence: UInt64
  /// The peer message to send.
  package var directives: [SessionDirective]
}

extension SessionRegistry {
  /// `sendToRemoteWorkoutSession(data:)` from session `id` at `now`: an accepted send (its completion comes as
  /// ``SessionDirective/sendCompleted(app:id:sequence:error:)`` when the peer answers), or the error the completion
  /// gets at once:
  ///
  /// - empty data: code 11 "No data to send." (healthd, decompiled);
  /// - not mirroring — a primary that is not mirroring, a dead mirrored object, or the link down (HealthPair model:
  ///   the remote object is dead until the reconnection): code 3 "Workout session is not currently mirroring to the
  ///   companion device." (decompiled; DOCS: "sending while not mirroring returns an error");
  /// - more than ``RemoteDataChannel/limit`` bytes within the sliding ``RemoteDataChannel/window`` with the earlier
  ///   accepted sends: code 13 `errorDataSizeExceeded` (HealthPair model: Apple does not name the code, workouts.md
  ///   §7; a sliding window never lets more than the limit through in any 10 s). Refused sends do not count.
  package mutating func send(_ data: Data, from id: WorkoutSessionID, at now: Date) -> Result<SentData, HealthError> {
    guard !data.isEmpty else { return .failure(.healthKit(.errorNoData, "No data to send.")) }
    guard isLive(id), let session = sessions[id], linkUp,
      session.type == .mirrored || (mirroring[id.uuid] != nil && session.state != .ended)
    else {
      return .failure(
        .healthKit(.errorInvalidArgument, "Workout session is not currently mirroring to the companion device."))
    }
    let already = channel.bytesInWindow(id, at: now)
    guard already + data.count <= RemoteDataChannel.limit else {
      return .failure(
        .healthKit(
          .errorDataSizeExceeded,
          "sendToRemoteWorkoutSession: \(data.count) bytes after \(already) in the last 10 s exceed the limit of "
            + "\(RemoteDataChannel.limit) bytes per 10 s"))
    }
    let sequence = channel.accept(id, bytes: data.count, at: now)
    return .success(SentData(sequence: sequence, directives: [.peer(.data(id.uuid, sequence: sequence, data))]))
  }

  /// Data from the peer for workout `uuid`: on the phone its live mirrored object, on the watch its primary.
  ///
  /// - No such object: code 3 "Workout session is not currently mirroring to the companion device." back.
  /// - The object has no delegate, or a receiving primary is still `notStarted`: code 3 "Remote session delegate is
  ///   not set up." back to the sender (decompiled; [Observed] also while the primary is notStarted, nonstrict.eu).
  /// - Otherwise `didReceiveData` — delivered in order, held while the app is suspended and then delivered as one
  ///   array (DOCS `didReceiveDataFromRemoteWorkoutSession`) — and a success answer.
  mutating func receiveData(_ uuid: UUID, sequence: UInt64, _ data: Data, at now: Date) -> [SessionDirective] {
    let target = liveMirrored(uuid) ?? primary(uuid)
    guard let id = target, let session = sessions[id] else {
      let error = HealthError.healthKit(
        .errorInvalidArgument, "Workout session is not currently mirroring to the companion device.")
      return [.peer(.dataAnswer(uuid, sequence: sequence, error: error))]
    }
    guard delegates.contains(id), session.state != .notStarted || session.type == .mirrored else {
      let error = HealthError.healthKit(.errorInvalidArgument, "Remote session delegate is not set up.")
      return [.peer(.dataAnswer(uuid, sequence: sequence, error: error))]
    }
    return deliver([.session(app: session.app, id: id, .didReceiveData([data]))])
      + [.peer(.dataAnswer(uuid, sequence: sequence, error: nil))]
  }

  /// The peer answered send `sequence`: its completion, to the sending app.
  mutating func receiveAnswer(sequence: UInt64, error: HealthError?) -> [SessionDirective] {
    guard let id = channel.answered(sequence), let session = sessions[id] else { return [] }
    return deliver([.sendCompleted(app: session.app, id: id, sequence: sequence, error: error)])
  }
}
