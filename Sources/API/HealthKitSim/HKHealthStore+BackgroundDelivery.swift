import Foundation
import HealthEngine
import HealthModel
import HealthPairClient

/// How often background delivery may wake the app (`HKUpdateFrequency`), with Apple's raw values.
public enum HKUpdateFrequency: Int, Sendable, Hashable {
  /// Every time a change is detected.
  case immediate = 1
  /// At most once an hour.
  case hourly = 2
  /// At most once a day.
  case daily = 3
  /// At most once a week.
  case weekly = 4

  /// The engine's frequency.
  var simulated: UpdateFrequency { UpdateFrequency(rawValue: UInt8(rawValue))! }
}

extension HKHealthStore {
  /// Registers the app to be woken when samples of `type` are saved or deleted — by this app, another app, the
  /// other device (sync) or the watch's retention window — at most once per `frequency` on the device's clock
  /// (some types at most hourly: docs/behavior.md B3). While registered, the app's observer queries of the type
  /// fire on deliveries, and each delivery waits for the completion handler their update handler receives: not
  /// called within the response window, it is retried with back-off, and after three misses in a row delivery of
  /// the type stops until the app registers again.
  /// - Throws: `HKError.errorAuthorizationDenied` when the app lacks the
  ///   `com.apple.developer.healthkit.background-delivery` entitlement (install it with the entitlement);
  ///   `errorInvalidArgument` for a correlation type; ``HealthKitSimError``.
  public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency) async throws {
    let api = "HKHealthStore.enableBackgroundDelivery(for:frequency:)"
    let session = try await Session.connected(api: api)
    try await session.performAsync(
      .enableBackgroundDelivery(session.bundleID, try type.simulatedType(), frequency: frequency.simulated), api: api)
  }

  /// Completion-handler form of ``enableBackgroundDelivery(for:frequency:)``; `completion` runs on a background
  /// queue.
  public func enableBackgroundDelivery(
    for type: HKObjectType, frequency: HKUpdateFrequency,
    withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let api = "HKHealthStore.enableBackgroundDelivery(for:frequency:withCompletion:)"
    send(api, completion) { session in
      .enableBackgroundDelivery(session.bundleID, try type.simulatedType(), frequency: frequency.simulated)
    }
  }

  /// Unregisters the app from background delivery of `type` (nothing registered is a success).
  /// - Throws: ``HealthKitSimError``.
  public func disableBackgroundDelivery(for type: HKObjectType) async throws {
    let api = "HKHealthStore.disableBackgroundDelivery(for:)"
    let session = try await Session.connected(api: api)
    try await session.performAsync(.disableBackgroundDelivery(session.bundleID, try type.simulatedType()), api: api)
  }

  /// Completion-handler form of ``disableBackgroundDelivery(for:)``.
  public func disableBackgroundDelivery(
    for type: HKObjectType, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let api = "HKHealthStore.disableBackgroundDelivery(for:withCompletion:)"
    send(api, completion) { session in
      .disableBackgroundDelivery(session.bundleID, try type.simulatedType())
    }
  }

  /// Unregisters the app from background delivery of every type.
  /// - Throws: ``HealthKitSimError``.
  public func disableAllBackgroundDelivery() async throws {
    let api = "HKHealthStore.disableAllBackgroundDelivery()"
    let session = try await Session.connected(api: api)
    try await session.performAsync(.disableBackgroundDelivery(session.bundleID, nil), api: api)
  }

  /// Completion-handler form of ``disableAllBackgroundDelivery()``.
  public func disableAllBackgroundDelivery(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    let api = "HKHealthStore.disableAllBackgroundDelivery(completion:)"
    send(api, completion) { session in .disableBackgroundDelivery(session.bundleID, nil) }
  }

  /// Sends the operation `make` builds now (on the calling thread, so the target is the caller's) and reports
  /// success or the error to `completion` on a background queue.
  private func send(
    _ api: String, _ completion: @escaping @Sendable (Bool, (any Error)?) -> Void,
    _ make: (Session) throws -> DeviceOperation<Void>
  ) {
    let started = Result { () throws -> (Session, PendingOperation<Void>) in
      let session = try Session.current(api: api)
      return (session, try session.start(try make(session), api: api))
    }
    deliver({
      let (session, pending) = try started.get()
      try await session.value(of: pending, api: api)
    }) { result in completion(result.isSuccess, result.failure) }
  }
}
