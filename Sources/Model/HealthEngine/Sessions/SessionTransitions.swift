import FoundationEssentials
import HealthModel

/// A call on an `HKWorkoutSession` (workouts.md §2.2, §1.4). Dates the API takes are in the command; calls without
/// one (`prepare`, `pause`, `resume`, `end`) happen at the `now` they are applied with.
package enum SessionCommand: Hashable, Sendable {
  /// `prepare()`.
  case prepare
  /// `startActivity(with:)`.
  case startActivity(Date)
  /// `pause()`.
  case pause
  /// `resume()`.
  case resume
  /// `stopActivity(with:)`.
  case stopActivity(Date)
  /// `end()`.
  case end
  /// `beginNewActivity(configuration:date:metadata:)`; `uuid` is the new `HKWorkoutActivity`'s identifier.
  case beginNewActivity(WorkoutConfiguration, date: Date, metadata: Metadata, uuid: UUID)
  /// `endCurrentActivity(on:)`.
  case endCurrentActivity(Date)

  /// The API's name, for messages.
  package var name: String {
    switch self {
    case .prepare: "prepare"
    case .startActivity: "startActivity"
    case .pause: "pause"
    case .resume: "resume"
    case .stopActivity: "stopActivity"
    case .end: "end"
    case .beginNewActivity: "beginNewActivity"
    case .endCurrentActivity: "endCurrentActivity"
    }
  }
}

/// One `HKWorkoutSessionDelegate` callback (workouts.md §2.3), as a value the device hands to the app's proxy.
package enum SessionCallback: Hashable, Sendable {
  /// `workoutSession(_:didChangeTo:from:date:)`; `date` is when the change happened, however late it is delivered.
  case didChange(to: WorkoutSessionState, from: WorkoutSessionState, date: Date)
  /// `workoutSession(_:didFailWithError:)`: always before the state change it causes.
  case didFail(HealthError)
  /// `workoutSession(_:didGenerate:)`.
  case didGenerate(WorkoutEvent)
  /// `workoutSession(_:didBeginActivityWith:date:)`.
  case didBeginActivity(WorkoutActivity, date: Date)
  /// `workoutSession(_:didEndActivityWith:date:)`.
  case didEndActivity(WorkoutActivity, date: Date)
  /// `workoutSession(_:didReceiveDataFromRemoteWorkoutSession:)`: the data in received order.
  case didReceiveData([Data])
  /// `workoutSession(_:didDisconnectFromRemoteDeviceWithError:)`: after it the mirrored object is dead.
  case didDisconnect(HealthError)
}

extension WorkoutSession {
  /// Applies `command` at `now` and returns the delegate callbacks, in Apple's order. The legal transitions are
  /// workouts.md §2.2's table:
  ///
  /// - `prepare`: notStarted → prepared. `startActivity(d)`: notStarted or prepared → running, `startDate = d`.
  /// - `pause`: running → paused, generating a `pause` event at `now`; `resume`: paused → running, generating a
  ///   `resume` event (`HKWorkoutSession.h`). The state change is reported first, then the event (HealthPair model:
  ///   Apple does not document the order).
  /// - `stopActivity(d)`: running → stopped, and paused → stopped (HealthPair model: the header says "if running",
  ///   Apple's WWDC23 sample ends from paused; workouts.md §7). `d` before `startDate` fails with code 3 and changes
  ///   nothing (HealthPair model, like healthd's "Activity start date before session start").
  /// - `end`: any state but ended → ended, `endDate = now`; an open activity ends first (workouts.md §1.4). From
  ///   notStarted or prepared this is HealthPair model (healthd's target-state machine reaches `ended` from any
  ///   state, e.g. when its client is lost).
  /// - `beginNewActivity` / `endCurrentActivity`: ``applyActivity(_:at:)``.
  ///
  /// Any other call is ignored: no callback, no change (HealthPair model, "illegal calls are silent"). Apple
  /// documents no error for the new API (workouts.md §2.2, §7); the decompiled healthd only logs, at debug level,
  /// "Failed to make progress toward requested target state", and Apple documents that a redundant pause or resume
  /// event "does not affect the workout's state" (`HKWorkoutEvent`). `stopped` and `ended` are terminal: a stopped
  /// session can only end, an ended one ignores everything (DOCS `hkworkoutsessionstate/stopped`, `/ended`).
  package mutating func apply(_ command: SessionCommand, at now: Date) -> [SessionCallback] {
    let from = state
    switch (command, from) {
    case (.prepare, .notStarted):
      state = .prepared
      return [.didChange(to: .prepared, from: from, date: now)]
    case (.startActivity(let date), .notStarted), (.startActivity(let date), .prepared):
      state = .running
      start = date
      return [.didChange(to: .running, from: from, date: date)]
    case (.pause, .running):
      state = .paused
      let event = WorkoutEvent(type: .pause, start: now)
      events.append(event)
      return [.didChange(to: .paused, from: from, date: now), .didGenerate(event)]
    case (.resume, .paused):
      state = .running
      let event = WorkoutEvent(type: .resume, start: now)
      events.append(event)
      return [.didChange(to: .running, from: from, date: now), .didGenerate(event)]
    case (.stopActivity(let date), .running), (.stopActivity(let date), .paused):
      if let start, date < start {
        return [
          .didFail(
            .healthKit(
              .errorInvalidArgument,
              "stopActivity: the date \(formatDate(date)) is before the session's startDate \(formatDate(start))"))
        ]
      }
      state = .stopped
      stop = date
      return [.didChange(to: .stopped, from: from, date: date)]
    case (.end, .notStarted), (.end, .prepared), (.end, .running), (.end, .paused), (.end, .stopped):
      var callbacks = closeCurrentActivity(at: max(stop ?? now, currentActivity?.start ?? now))
      state = .ended
      end = now
      callbacks.append(.didChange(to: .ended, from: from, date: now))
      return callbacks
    case (.beginNewActivity, _), (.endCurrentActivity, _):
      return applyActivity(command, at: now)
    case (.prepare, _), (.startActivity, _), (.pause, _), (.resume, _), (.stopActivity, _), (.end, _):
      return []
    }
  }

  /// `beginNewActivity(configuration:date:metadata:)` and `endCurrentActivity(on:)` (workouts.md §1.4):
  ///
  /// - Beginning needs a running or paused session, else code 3 "No active session to begin new activity"; a date
  ///   before `startDate` fails with code 3 "Activity start date before session start" (both healthd's errors,
  ///   decompiled; delivered through `didFailWithError` with no state change). An open activity ends at the new
  ///   one's date first (`didEndActivity`), then the new one begins (`didBeginActivity`).
  /// - Ending closes the open activity at the date (`didEndActivity`); a date before the activity's start fails with
  ///   code 3; with no open activity nothing happens (HealthPair model: illegal calls are silent).
  package mutating func applyActivity(_ command: SessionCommand, at now: Date) -> [SessionCallback] {
    switch command {
    case .beginNewActivity(let configuration, let date, let metadata, let uuid):
      guard state == .running || state == .paused else {
        return [.didFail(.healthKit(.errorInvalidArgument, "No active session to begin new activity"))]
      }
      if let start, date < start {
        return [.didFail(.healthKit(.errorInvalidArgument, "Activity start date before session start"))]
      }
      if let current = currentActivity, date < current.start {
        return [.didFail(.healthKit(.errorInvalidArgument, "Activity start date before the current activity's"))]
      }
      var callbacks = closeCurrentActivity(at: date)
      let activity = WorkoutActivity(
        uuid: uuid, configuration: configuration, start: date, end: nil, metadata: metadata)
      activities.append(activity)
      callbacks.append(.didBeginActivity(activity, date: date))
      return callbacks
    case .endCurrentActivity(let date):
      guard let current = currentActivity, state != .ended else { return [] }
      guard date >= current.start else {
        return [
          .didFail(
            .healthKit(
              .errorInvalidArgument,
              "endCurrentActivity: the date \(formatDate(date)) is before the activity's start "
                + formatDate(current.start)))
        ]
      }
      return closeCurrentActivity(at: date)
    case .prepare, .startActivity, .pause, .resume, .stopActivity, .end:
      return apply(command, at: now)
    }
  }

  /// A failure the system reports (another session started, the wearer's session ended by the system):
  /// `didFailWithError` first, then the open activity's end, then `didChangeTo ended` (workouts.md §2.2: "the failure
  /// always arrives before the state change"). An ended session reports nothing.
  package mutating func fail(_ error: HealthError, at now: Date) -> [SessionCallback] {
    guard state != .ended else { return [] }
    let from = state
    var callbacks: [SessionCallback] = [.didFail(error)]
    callbacks += closeCurrentActivity(at: max(stop ?? now, currentActivity?.start ?? now))
    state = .ended
    end = now
    callbacks.append(.didChange(to: .ended, from: from, date: now))
    return callbacks
  }

  /// Ends the open activity at `date`, if there is one.
  private mutating func closeCurrentActivity(at date: Date) -> [SessionCallback] {
    guard let current = currentActivity else { return [] }
    activities[activities.count - 1].end = date
    var ended = current
    ended.end = date
    return [.didEndActivity(ended, date: date)]
  }
}
