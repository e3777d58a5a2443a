import Foundation
import HealthEngine
import HealthModel
import Posix
import Synchronization
import Wire

/// Fetches the activity summaries (one per day) matching a predicate of `predicateForActivitySummary(with:)` or
/// `predicate(forActivitySummariesBetweenStart:end:)` (nil: every day), day-ascending (iOS 9.3; workouts.md §1.9).
///
/// Without an ``updateHandler`` the query ends after the results. With one it runs until stopped: each time the
/// device's ring data changes (samples of active energy, move time, exercise time or stand hours saved, deleted or
/// synced), the update handler receives the summaries matching the predicate again (HealthPair model: all of them,
/// not only the changed days). Read privacy: the app must be allowed to read `activitySummaryType()`; otherwise
/// the results are empty, as denied reads look like no data.
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives; the update handler sits behind a `Mutex`.
public final class HKActivitySummaryQuery: HKQuery, @unchecked Sendable {
  private let resultsHandler: @Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void
  private let update = Mutex<(@Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void)?>(nil)

  /// A query; `handler` receives the summaries, or nil and an error.
  public init(
    predicate: NSPredicate?,
    resultsHandler handler: @escaping @Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void
  ) {
    self.resultsHandler = handler
    super.init(objectType: HKObjectType.activitySummaryType(), predicate: predicate)
  }

  /// Called with the summaries again after each change of ring data, until the query stops; set it before
  /// `execute`.
  public var updateHandler: (@Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void)? {
    get { update.withLock { $0 } }
    set { update.withLock { $0 = newValue } }
  }

  /// The ring data types whose changes re-run a long-running query.
  static let ringTypes: Set<String> = [
    "activeEnergyBurned", "appleMoveTime", "appleExerciseTime", "appleStandTime", "appleStandHour", "activitySummary",
  ]

  /// The summaries `predicate` names, from the device.
  /// - Throws: ``HealthKitSimError/unsupported(_:)`` for a predicate that is not an activity summary predicate.
  static func fetch(_ session: Session, predicate: NSPredicate?, api: String) throws -> [HKActivitySummary] {
    var from: LocalDay?
    var to: LocalDay?
    if let predicate, !isTruePredicate(predicate) {
      guard let days = predicate as? ActivitySummaryPredicate else {
        throw HealthKitSimError.unsupported(
          "an activity summary query takes predicateForActivitySummary(with:) or "
            + "predicate(forActivitySummariesBetweenStart:end:)")
      }
      guard let range = days.days else { return [] }
      (from, to) = (range.lowerBound, range.upperBound)
    }
    return try session.perform(.activitySummaryQuery(session.bundleID, from: from, to: to), api: api)
      .map(HKActivitySummary.init)
  }

  override func start(_ session: Session) {
    let api = "HKActivitySummaryQuery"
    let updates = update.withLock { $0 }
    let feed: ChangeFeed?
    do { feed = updates == nil ? nil : try ChangeFeed(session) } catch {
      fail(error)
      return
    }
    run.queue.async { [self] in
      let result = Result { try Self.fetch(session, predicate: predicate, api: api) }
      run.deliver {
        switch result {
        case .success(let summaries): resultsHandler(self, summaries, nil)
        case .failure(let error): resultsHandler(self, nil, error)
        }
      }
    }
    guard let feed, let updates else { return }
    feed.listen(
      run: run,
      accepts: { event in
        guard case .samplesChanged(let types, _, _, _) = event else { return false }
        return types.contains { Self.ringTypes.contains($0.name) }
      },
      onEvent: { [self] _ in
        let result = Result { try Self.fetch(session, predicate: predicate, api: api) }
        run.deliver {
          switch result {
          case .success(let summaries): updates(self, summaries, nil)
          case .failure(let error): updates(self, nil, error)
          }
        }
      })
  }

  override func fail(_ error: any Error) {
    run.deliver { resultsHandler(self, nil, error) }
  }
}

/// An activity summary query as a value (iOS 15.4): `try await descriptor.result(for: store)`.
///
/// `@unchecked Sendable`: `NSPredicate` is not `Sendable` on Linux; the descriptor never mutates it.
public struct HKActivitySummaryQueryDescriptor: @unchecked Sendable {
  /// The predicate (an activity summary predicate, or nil for every day).
  public var predicate: NSPredicate?

  /// A descriptor.
  public init(predicate: NSPredicate?) { self.predicate = predicate }

  /// The summaries, day-ascending.
  /// - Throws: as ``HKActivitySummaryQuery``'s handler would receive.
  public func result(for healthStore: HKHealthStore) async throws -> [HKActivitySummary] {
    let api = "HKActivitySummaryQueryDescriptor.result(for:)"
    let session = try await Session.connected(api: api)
    let predicate = UncheckedPredicate(predicate)
    return try await Posix.onOwnThread {
      try HKActivitySummaryQuery.fetch(session, predicate: predicate.value, api: api)
    }
  }
}

/// A predicate carried to another thread (predicates are never mutated).
struct UncheckedPredicate: @unchecked Sendable {
  let value: NSPredicate?
  init(_ value: NSPredicate?) { self.value = value }
}
