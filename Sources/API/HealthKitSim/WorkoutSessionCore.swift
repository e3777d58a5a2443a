import Dispatch
import Foundation
import HealthEngine
import HealthModel
import HealthPairClient
import Synchronization
import Wire

/// A weak reference, to keep behind a `Mutex`.
struct WeakBox<T: AnyObject> {
  /// The object, while it lives.
  weak var value: T?
}

/// A value carried out of a `Mutex` although it is not `Sendable` (an app's delegate or closure): the app owns its
/// thread-safety, as HealthKit leaves it to the app.
struct Carried<T>: @unchecked Sendable {
  /// The value.
  let value: T
}

/// The process side of one `HKWorkoutSession` object (the session itself lives in the device): its connection, the
/// listener that receives its pushed callbacks, the serial queue its delegates are called on, and what its
/// properties read.
///
/// The listener runs on the event connection's reader thread and only hops to ``queue`` (it never calls the
/// daemon). On the queue, each callback first updates the snapshot and then reaches the delegate, so a delegate
/// reads properties that agree with what it is told — except the callbacks a mirrored session held for its first
/// delegate: they updated the snapshot when they came, so that delegate hears the history while the properties
/// read the present. The session's state comes from the first status and the
/// `didChangeTo` callbacks only (a call's reply does not change it): as in HealthKit, every call is asynchronous and
/// the new state arrives through the delegate (workouts.md §2.2). Start and end dates, activities and events are
/// also taken from replies, as they are set once.
///
/// `@unchecked Sendable`: mutable state sits behind `Mutex`es.
final class SessionCore: @unchecked Sendable {
  /// The device, app and connection of the session.
  let session: Session
  /// The session object on the device.
  let id: WorkoutSessionID
  /// The serial queue of the session's and its builder's delegate callbacks.
  let queue: DispatchQueue
  private let events: DeviceClient
  private let token = Mutex<UInt64?>(nil)
  private let status: Mutex<SessionStatus?>
  private let ownerBox = Mutex(WeakBox<HKWorkoutSession>())
  private let builderBox = Mutex(WeakBox<HKLiveWorkoutBuilder>())
  private let sends = Mutex(Sends())
  /// The callbacks of a mirrored session object whose app has not set a delegate yet, held for the first delegate
  /// (docs/healthkit-api.md, "Differences", 21); nil for a primary session and once that delegate has heard them.
  private let undelegated = Mutex<[SessionCallback]?>(nil)

  private struct Sends {
    var waiting: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    var done: [UInt64: HealthError?] = [:]
  }

  /// Starts listening for the callbacks of `id` (before the call that creates or reveals it is answered, so none
  /// is missed). With `activate: false` callbacks wait until ``activate(_:)`` (a mirrored session whose status is
  /// still being read).
  /// - Throws: ``HealthKitSimError/unreachable(socketPath:reason:)``.
  init(session: Session, id: WorkoutSessionID, activate: Bool = true) throws(HealthKitSimError) {
    self.session = session
    self.id = id
    self.status = Mutex(nil)
    self.events = try session.events()
    self.queue = DispatchQueue(label: "HealthKitSim.HKWorkoutSession", attributes: .initiallyInactive)
    let listener = events.addListener { [weak self] event in self?.receive(event) }
    token.withLock { $0 = listener }
    if activate { queue.activate() }
  }

  deinit {
    if let listener = token.withLock({ $0 }) { events.removeListener(listener) }
  }

  /// Lets held callbacks run, once the session object exists with its first status.
  func activate(_ owner: HKWorkoutSession) {
    ownerBox.withLock { $0.value = owner }
    queue.activate()
  }

  /// The session object the callbacks go to.
  var owner: HKWorkoutSession? {
    get { ownerBox.withLock { $0.value } }
    set { ownerBox.withLock { $0.value = newValue } }
  }

  /// The live builder whose delegate gets the builder callbacks.
  var builder: HKLiveWorkoutBuilder? {
    get { builderBox.withLock { $0.value } }
    set { builderBox.withLock { $0.value = newValue } }
  }

  /// The session as last known.
  var snapshot: SessionStatus? { status.withLock { $0 } }

  // MARK: - Calls

  /// Makes `call` and waits for the device's answer, blocking this thread (the session's synchronous API).
  /// - Throws: the request's error, translated.
  @discardableResult
  func call(_ call: SessionCall, api: String) throws -> SessionStatus {
    let answer = try session.perform(.workoutSession(session.bundleID, call), api: api)
    absorb(answer)
    return answer
  }

  /// Makes `call` and awaits the device's answer.
  /// - Throws: the request's error, translated.
  @discardableResult
  func callAsync(_ call: SessionCall, api: String) async throws -> SessionStatus {
    let answer = try await session.performAsync(.workoutSession(session.bundleID, call), api: api)
    absorb(answer)
    return answer
  }

  /// Makes `call` for an API that cannot report an error (`pause()`, a property's setter): an error goes to
  /// ``HealthKitSim/issueHandler``.
  func callReporting(_ call: SessionCall, api: String) {
    do { try self.call(call, api: api) } catch { Self.report(error, api: api) }
  }

  /// Reports an error an API cannot return.
  static func report(_ error: any Error, api: String) {
    switch error {
    case let issue as HealthKitSimError: HealthKitSim.reportIssue(issue)
    case let termination as HKSimulatedTermination: HealthKitSim.reportTermination(termination)
    default: HealthKitSim.reportIssue(.misuse("\(api) failed: \(error)"))
    }
  }

  /// Sets the first status (the state included), or merges a reply's set-once fields into the snapshot.
  func absorb(_ answer: SessionStatus, first: Bool = false) {
    if first, answer.type == .mirrored { undelegated.withLock { $0 = [] } }
    status.withLock { current in
      guard var known = current, !first else {
        current = answer
        return
      }
      known.configuration = answer.configuration
      known.start = known.start ?? answer.start
      known.end = known.end ?? answer.end
      for activity in answer.activities { Self.merge(activity, into: &known.activities) }
      for event in answer.events where !known.events.contains(event) { known.events.append(event) }
      known.builder = answer.builder ?? known.builder
      current = known
    }
  }

  private static func merge(_ activity: WorkoutActivity, into activities: inout [WorkoutActivity]) {
    if let index = activities.firstIndex(where: { $0.uuid == activity.uuid }) {
      if activities[index].end == nil { activities[index] = activity }
    } else {
      activities.append(activity)
    }
  }

  // MARK: - Data sends

  /// Waits for the completion of the accepted send `sequence` (its `workoutDataSent` event).
  /// - Throws: the send's error, translated.
  func completion(ofSend sequence: UInt64, api: String) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let early = sends.withLock { s -> HealthError?? in
        if let done = s.done.removeValue(forKey: sequence) { return .some(done) }
        s.waiting[sequence] = continuation
        return .none
      }
      if case .some(let error) = early {
        if let error {
          continuation.resume(throwing: Session.translate(error, api: api))
        } else {
          continuation.resume()
        }
      }
    }
  }

  private func sent(_ sequence: UInt64, _ error: HealthError?) {
    let waiter = sends.withLock { s -> CheckedContinuation<Void, any Error>? in
      if let waiter = s.waiting.removeValue(forKey: sequence) { return waiter }
      s.done[sequence] = .some(error)
      return nil
    }
    guard let waiter else { return }
    if let error {
      waiter.resume(throwing: Session.translate(error, api: "HKWorkoutSession.sendToRemoteWorkoutSession(data:)"))
    } else {
      waiter.resume()
    }
  }

  // MARK: - Callbacks

  /// On the reader thread: keeps this object's events, hopping to the queue.
  private func receive(_ event: DaemonEvent) {
    switch event {
    case .workoutSession(let app, let session, let callback) where app == self.session.bundleID && session == id:
      queue.async { self.deliver(callback) }
    case .workoutBuilder(let app, let session, let callback) where app == self.session.bundleID && session == id:
      queue.async { self.deliver(callback) }
    case .workoutDataSent(let app, let session, let sequence, let error)
    where app == self.session.bundleID && session == id:
      sent(sequence, error)
    default:
      return
    }
  }

  /// Applies a session callback to the snapshot, then tells the delegate (with the session's target bound, so
  /// HealthKit calls the delegate makes go to the same device and app) — or holds it, for a mirrored session whose
  /// app has not set one yet.
  private func deliver(_ callback: SessionCallback) {
    status.withLock { current in
      guard var known = current else { return }
      switch callback {
      case .didChange(let to, _, let date):
        known.state = to
        if to == .running { known.start = known.start ?? date }
        if to == .ended { known.end = known.end ?? date }
      case .didGenerate(let event): if !known.events.contains(event) { known.events.append(event) }
      case .didBeginActivity(let activity, _), .didEndActivity(let activity, _):
        Self.merge(activity, into: &known.activities)
      case .didFail, .didReceiveData, .didDisconnect: break
      }
      current = known
    }
    let held = undelegated.withLock { waiting -> Bool in
      guard waiting != nil else { return false }
      waiting?.append(callback)
      return true
    }
    if !held { tell(callback) }
  }

  /// The app set a delegate: the callbacks held for the first one reach it now, in order, on the queue (so those
  /// that arrive meanwhile follow them).
  func delegateAssigned() {
    queue.async {
      let waiting = self.undelegated.withLock { waiting -> [SessionCallback] in
        defer { waiting = nil }
        return waiting ?? []
      }
      for callback in waiting { self.tell(callback) }
    }
  }

  /// Tells the session's delegate, if it has one.
  private func tell(_ callback: SessionCallback) {
    guard let owner, let delegate = owner.delegate else { return }
    let api = "HKWorkoutSessionDelegate"
    HealthKitSim.withTarget(session.target) {
      switch callback {
      case .didChange(let to, let from, let date):
        delegate.workoutSession(owner, didChangeTo: .init(to), from: .init(from), date: date)
      case .didFail(let error):
        delegate.workoutSession(owner, didFailWithError: Session.translate(error, api: api))
      case .didGenerate(let event): delegate.workoutSession(owner, didGenerate: HKWorkoutEvent(event))
      case .didBeginActivity(let activity, let date):
        delegate.workoutSession(
          owner, didBeginActivityWith: HKWorkoutConfiguration(activity.configuration), date: date)
      case .didEndActivity(let activity, let date):
        delegate.workoutSession(owner, didEndActivityWith: HKWorkoutConfiguration(activity.configuration), date: date)
      case .didReceiveData(let data): delegate.workoutSession(owner, didReceiveDataFromRemoteWorkoutSession: data)
      case .didDisconnect(let error):
        delegate.workoutSession(owner, didDisconnectFromRemoteDeviceWithError: Session.translate(error, api: api))
      }
    }
  }

  /// Tells the builder's delegate.
  private func deliver(_ callback: BuilderCallback) {
    guard let builder, let delegate = builder.delegate else { return }
    let events = snapshot?.events ?? []
    HealthKitSim.withTarget(session.target) {
      switch callback {
      case .didCollectDataOf(let types):
        delegate.workoutBuilder(builder, didCollectDataOf: Set(types.map { HKObjectType.make($0) }))
      case .didCollectEvent: delegate.workoutBuilderDidCollectEvent(builder)
      case .didBeginActivity(let activity):
        delegate.workoutBuilder(builder, didBegin: HKWorkoutActivity(activity, events: events))
      case .didEndActivity(let activity):
        delegate.workoutBuilder(builder, didEnd: HKWorkoutActivity(activity, events: events))
      }
    }
  }
}
