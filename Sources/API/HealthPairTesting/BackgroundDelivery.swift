import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient
import Wire

/// A HealthKit entitlement an app is installed with (its signed `.entitlements`).
public enum HealthEntitlement: Sendable, Hashable, CaseIterable {
  /// `com.apple.developer.healthkit.background-delivery`: needed by `enableBackgroundDelivery`.
  case backgroundDelivery
  /// `com.apple.developer.healthkit.access` with `health-records`: needed to request reading clinical records.
  case healthRecords

  var simulated: Entitlement {
    switch self {
    case .backgroundDelivery: .backgroundDelivery
    case .healthRecords: .healthRecords
    }
  }
}

/// One app's background delivery registration for a type, as the device sees it.
public struct BackgroundDeliveryInfo: Sendable, Equatable {
  /// The type's identifier.
  public var typeIdentifier: String
  /// The frequency the app asked for.
  public var frequency: HKUpdateFrequency
  /// The frequency the device applies (some types are at most hourly: behavior.md B3).
  public var effectiveFrequency: HKUpdateFrequency
  /// Whether delivery stopped after three misses in a row (until the app enables it again).
  public var isStopped: Bool
  /// Whether a delivery is waiting for the observer query's completion handler.
  public var isWaitingForCompletion: Bool
  /// Whether changes are waiting to be delivered (the frequency or a retry holds them).
  public var hasPendingChanges: Bool
  /// Wakes since the daemon started, retries included.
  public var wakes: Int
  /// Deliveries whose completion handler was called in time.
  public var completed: Int
  /// Misses in a row so far.
  public var missesInARow: Int
}

/// One background delivery event: the app woken, its completion handler called, a miss, delivery stopped.
public struct BackgroundDeliveryRecord: Sendable, Equatable {
  /// What happened.
  public enum Kind: String, Sendable {
    /// HealthKit woke the app for the type.
    case woken
    /// The app called the completion handler in time.
    case completed
    /// The response window passed without a call.
    case missed
    /// Three misses in a row: delivery stopped.
    case stopped
  }

  /// What happened.
  public var kind: Kind
  /// The delivery's number on the device.
  public var delivery: UInt64
  /// The type's identifier.
  public var typeIdentifier: String
  /// 1 for a first delivery, 2 and 3 for retries.
  public var attempt: Int
  /// When (the device's clock).
  public var date: Date
}

extension HealthDevice {
  private func deliveries(_ bundleIdentifier: String) throws(HealthPairTestingError) -> (
    [BackgroundDeliveryStatus], [BackgroundDeliveryEvent]
  ) {
    try control("backgroundDeliveries") { try $0.backgroundDeliveries(bundleIdentifier) }
  }

  /// `app`'s background delivery registrations on this device, sorted by type.
  /// - Throws: ``HealthPairTestingError``.
  public func backgroundDeliveries(app bundleIdentifier: String) throws(HealthPairTestingError)
    -> [BackgroundDeliveryInfo]
  {
    try deliveries(bundleIdentifier).0.map { status in
      BackgroundDeliveryInfo(
        typeIdentifier: status.key.type.identifier,
        frequency: HKUpdateFrequency(rawValue: Int(status.frequency.rawValue))!,
        effectiveFrequency: HKUpdateFrequency(rawValue: Int(status.effective.rawValue))!, isStopped: status.stopped,
        isWaitingForCompletion: status.waiting != nil, hasPendingChanges: status.pending, wakes: status.woken,
        completed: status.completed, missesInARow: status.misses)
    }
  }

  /// `app`'s registration for `type`, or nil when it has none.
  /// - Throws: ``HealthPairTestingError``.
  public func backgroundDelivery(app bundleIdentifier: String, of type: HKObjectType) throws(HealthPairTestingError)
    -> BackgroundDeliveryInfo?
  {
    try backgroundDeliveries(app: bundleIdentifier).first { $0.typeIdentifier == type.identifier }
  }

  /// Every background delivery event of `app` since the daemon started, oldest first.
  /// - Throws: ``HealthPairTestingError``.
  public func backgroundDeliveryHistory(app bundleIdentifier: String) throws(HealthPairTestingError)
    -> [BackgroundDeliveryRecord]
  {
    try deliveries(bundleIdentifier).1.map { event in
      let kind: BackgroundDeliveryRecord.Kind =
        switch event.kind {
        case .woken: .woken
        case .completed: .completed
        case .missed: .missed
        case .stopped: .stopped
        }
      return BackgroundDeliveryRecord(
        kind: kind, delivery: event.id, typeIdentifier: event.type.identifier, attempt: event.attempt, date: event.at)
    }
  }

  /// Blocks until `app`'s history holds at least `count` events of `kind` for `type` (woken, completed, missed,
  /// stopped), re-checking whenever the device pushes an event; throws a timeout at the deadline.
  /// - Throws: ``HealthPairTestingError``.
  @discardableResult
  public func waitForBackgroundDelivery(
    app bundleIdentifier: String, of type: HKObjectType, _ kind: BackgroundDeliveryRecord.Kind = .completed,
    count: Int = 1, timeout: Double? = nil
  ) throws(HealthPairTestingError) -> [BackgroundDeliveryRecord] {
    let what = "\(count) background deliveries \(kind) for \(bundleIdentifier) of \(type.identifier)"
    do {
      return try waiter.wait(for: what, timeout: timeout ?? self.timeout) {
        let matching = try backgroundDeliveryHistory(app: bundleIdentifier).filter {
          $0.kind == kind && $0.typeIdentifier == type.identifier
        }
        return matching.count >= count ? matching : nil
      }
    } catch let error as HealthPairTestingError { throw error } catch {
      throw .from(error, device: self.kind, operation: "waitForBackgroundDelivery")
    }
  }

  /// Awaits until `app`'s history holds at least `count` events of `kind` for `type`, without blocking a thread.
  /// - Throws: ``HealthPairTestingError``.
  @discardableResult
  public func waitForBackgroundDelivery(
    app bundleIdentifier: String, of type: HKObjectType, _ kind: BackgroundDeliveryRecord.Kind = .completed,
    count: Int = 1, timeout: Double? = nil
  ) async throws(HealthPairTestingError) -> [BackgroundDeliveryRecord] {
    let what = "\(count) background deliveries \(kind) for \(bundleIdentifier) of \(type.identifier)"
    let identifier = type.identifier
    do {
      return try await waiter.wait(for: what, timeout: timeout ?? self.timeout) { @Sendable in
        let matching = try self.backgroundDeliveryHistory(app: bundleIdentifier).filter {
          $0.kind == kind && $0.typeIdentifier == identifier
        }
        return matching.count >= count ? matching : nil
      }
    } catch let error as HealthPairTestingError { throw error } catch {
      throw .from(error, device: self.kind, operation: "waitForBackgroundDelivery")
    }
  }

  /// Sets the device's background delivery model: how long an app has to call its completion handler before a
  /// delivery counts as missed, and the delay before the first retry (doubling after each further miss).
  /// - Throws: ``HealthPairTestingError``.
  public func setBackgroundDeliveryModel(responseWindow: TimeInterval, retryDelay: TimeInterval)
    throws(HealthPairTestingError)
  {
    try control("setPolicy") { client in
      var policy = try client.dump().device.policy
      policy.background = BackgroundDeliveryModel(responseWindow: responseWindow, retryDelay: retryDelay)
      try client.setPolicy(policy)
    }
  }
}
