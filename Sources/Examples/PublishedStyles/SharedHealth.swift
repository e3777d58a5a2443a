// The Sendable singleton style: one store for the process, immutable state only, usable from any task or thread.

import Foundation
import HealthKit

/// The process's HealthKit access point.
public final class SharedHealth: Sendable {
  /// The one instance.
  public static let shared = SharedHealth()

  /// The store every feature uses.
  public let store = HKHealthStore()

  /// The types the app asks for on first launch, including the special types apps list in authorization sets.
  public let readTypes: Set<HKObjectType> = [
    HKQuantityType(.stepCount), HKQuantityType(.heartRate), HKObjectType.workoutType(),
    HKObjectType.activitySummaryType(), HKObjectType.electrocardiogramType(), HKObjectType.audiogramSampleType(),
    HKSeriesType.workoutRoute(),
  ]

  /// The types the app writes.
  public let shareTypes: Set<HKSampleType> = [HKObjectType.workoutType(), HKQuantityType(.stepCount)]

  private init() {}

  /// Whether HealthKit exists on this device.
  public var isAvailable: Bool { HKHealthStore.isHealthDataAvailable() }

  /// Asks for everything at once (async form).
  public func requestEverything() async throws {
    try await store.requestAuthorization(toShare: shareTypes, read: readTypes)
  }

  /// Whether the app may write workouts.
  public func canWriteWorkouts() -> Bool {
    store.authorizationStatus(for: HKObjectType.workoutType()) == .sharingAuthorized
  }
}
