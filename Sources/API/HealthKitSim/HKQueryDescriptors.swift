import Foundation
import HealthEngine
import HealthModel
import Posix

// Swift's query descriptors (iOS 15.4): every query kind run with `try await descriptor.result(for: store)` — no
// handler, no `HKQuery` subclass. They run the same queries as the handler API, so read privacy, predicates and
// errors are the same.

/// A sample type and a predicate, typed by the sample class the query returns.
///
/// `@unchecked Sendable`: `NSPredicate` and sort descriptors are not `Sendable` on Linux; it never mutates
/// them, and its own fields are copied with the value.
public struct HKSamplePredicate<Sample: HKSample>: @unchecked Sendable {
  /// The sample type.
  public let sampleType: HKSampleType
  /// The predicate, if any.
  public let nsPredicate: NSPredicate?
  /// What a sample query descriptor sends for it, worked out once for every run.
  @usableFromInline let fetch: SampleFetch

  init(_ sampleType: HKSampleType, _ predicate: NSPredicate?) {
    self.sampleType = sampleType
    self.nsPredicate = predicate
    self.fetch = SampleFetch(type: sampleType, predicate: predicate)
  }
}

/// One predicate of an ``HKSampleQueryDescriptor`` as its runs send it: the predicate decomposed and, for a type that
/// is not a correlation type, the daemon's query, made when the predicate is. Not generic, so that fetching is not
/// either: an app's module calls `result(for:)` specialized (it is inlinable) and this code without generic metadata
/// or copies of the decomposed predicate per call (`make bench` row 9d). Immutable.
@usableFromInline
final class SampleFetch: Sendable {
  private let type: HKSampleType
  private let filter: Result<QueryFilter, any Error>
  /// The daemon's query (nil for a correlation type, which is fetched with its members).
  private let query: Result<SampleQuery, any Error>?

  init(type: HKSampleType, predicate: NSPredicate?) {
    self.type = type
    self.filter = QueryFilter.decompose(predicate)
    if type is HKCorrelationType || WorkoutFetch.fetchesApart(type) {
      query = nil
    } else {
      query = Result { [filter] in try filter.get().sampleQuery(of: type, limit: HKObjectQueryNoLimit, sort: []) }
    }
  }

  /// The samples of every fetch, in order, from the current target; the task is suspended while the daemon answers
  /// (``Session/performAsync(_:api:)``).
  /// - Throws: what a sample query's handler would receive.
  @usableFromInline
  static func objects(_ fetches: [SampleFetch]) async throws -> [HKSample] {
    let session = try await Session.connected(api: "HKSampleQueryDescriptor.result(for:)")
    var samples: [HKSample] = []
    for fetch in fetches {
      let found = try await fetch.objects(session)
      if samples.isEmpty { samples = found } else { samples += found }
    }
    return samples
  }

  private func objects(_ session: Session) async throws -> [HKSample] {
    switch query {
    case .success(let query):
      return HKSample.make(
        try await session.performAsync(.sampleQuery(session.bundleID, query), api: HKSampleQuery.api))
    case .failure(let error): throw error
    case nil:
      // A correlation type is fetched with its members, in several requests, and a workout family type with its
      // own requests: on a thread of its own, so the task is suspended rather than a pool thread blocked.
      let (type, filter) = (type, try filter.get())
      return try await Posix.onOwnThread { () throws -> [HKSample] in
        if WorkoutFetch.fetchesApart(type) {
          return try WorkoutFetch.objects(
            session, type: type, filter: filter, limit: HKObjectQueryNoLimit, descriptors: [])
        }
        return try HKSampleQuery.fetch(session, type: type, filter: filter, limit: HKObjectQueryNoLimit, sort: [])
      }
    }
  }
}

extension HKSamplePredicate where Sample == HKQuantitySample {
  /// Quantity samples of `type` matching `predicate`.
  public static func quantitySample(type: HKQuantityType, predicate: NSPredicate? = nil) -> Self {
    Self(type, predicate)
  }
}

extension HKSamplePredicate where Sample == HKCategorySample {
  /// Category samples of `type` matching `predicate`.
  public static func categorySample(type: HKCategoryType, predicate: NSPredicate? = nil) -> Self {
    Self(type, predicate)
  }
}

extension HKSamplePredicate where Sample == HKCorrelation {
  /// Correlations of `type` matching `predicate` (iOS 15.4; docs/behavior.md T11).
  public static func correlation(type: HKCorrelationType, predicate: NSPredicate? = nil) -> Self {
    Self(type, predicate)
  }
}

extension HKSamplePredicate where Sample == HKWorkout {
  /// Workouts matching `predicate` (iOS 15.4).
  public static func workout(_ predicate: NSPredicate? = nil) -> Self { Self(HKObjectType.workoutType(), predicate) }
}

extension HKSamplePredicate where Sample == HKSample {
  /// Samples of any type matching `predicate`.
  public static func sample(type: HKSampleType, predicate: NSPredicate? = nil) -> Self { Self(type, predicate) }
}

/// Runs a handler query once and returns what its handler received.
private func run<T: Sendable>(
  _ store: HKHealthStore, _ make: (@escaping @Sendable (Result<T, any Error>) -> Void) -> HKQuery
) async throws -> T {
  try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
    store.execute(make { continuation.resume(with: $0) })
  }
}

/// A sample query (`HKSampleQuery`) as a value: `try await descriptor.result(for: store)`.
///
/// `@unchecked Sendable`: `NSPredicate` and sort descriptors are not `Sendable` on Linux; it never mutates
/// them, and its own fields are copied with the value.
public struct HKSampleQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
  /// The types and predicates; the results of every one are merged.
  public var predicates: [HKSamplePredicate<Sample>]
  /// How the merged results are ordered.
  public var sortDescriptors: [SortDescriptor<Sample>]
  /// The most samples returned; nil for no limit.
  public var limit: Int?

  /// Creates a descriptor.
  public init(
    predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil
  ) {
    self.predicates = predicates
    self.sortDescriptors = sortDescriptors
    self.limit = limit
  }

  /// The matching samples, sorted and limited.
  /// - Throws: what the sample query's handler would receive.
  ///
  /// Each query is one round trip awaited by the task itself (suspended until the connection's reader thread has the
  /// answer), not a handler on the query's queue resuming a continuation.
  @inlinable
  public func result(for healthStore: HKHealthStore) async throws -> [Sample] {
    var samples = Self.narrowed(try await SampleFetch.objects(predicates.map(\.fetch)))
    if !sortDescriptors.isEmpty { samples.sort(using: sortDescriptors) }
    if let limit, limit > 0, samples.count > limit { samples.removeLast(samples.count - limit) }
    return samples
  }

  /// The objects that are `Sample`s. A query of one type returns objects of one class, usually `Sample` itself
  /// (`HKQuantitySample` for a quantity type): those are taken by comparing classes, without a dynamic cast each
  /// (the generic `as? Sample` of every object was a measurable share of a 100-sample query; metric 9d).
  @usableFromInline
  static func narrowed(_ objects: [HKSample]) -> [Sample] {
    // The one class may be a subclass of `Sample` (HKCumulativeQuantitySample for HKQuantitySample).
    let wanted = objects.first.map { ObjectIdentifier(type(of: $0)) }
    if let first = objects.first, first is Sample, objects.allSatisfy({ ObjectIdentifier(type(of: $0)) == wanted }) {
      // Every element is a `Sample`: an array of class references has the same representation whatever its static
      // element class, so the array is reused as it is (no copy, no retain of each element).
      return unsafeBitCast(objects, to: [Sample].self)
    }
    var result: [Sample] = []
    result.reserveCapacity(objects.count)
    for object in objects {
      if let sample = object as? Sample { result.append(sample) }
    }
    return result
  }
}

/// An anchored object query as a value: `result(for:)` once, or `results(for:)` for the changes as they happen.
///
/// `@unchecked Sendable`: `NSPredicate` and sort descriptors are not `Sendable` on Linux; it never mutates
/// them, and its own fields are copied with the value.
public struct HKAnchoredObjectQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
  /// What one run returns.
  ///
  /// `@unchecked Sendable`: immutable, and its samples, deleted objects and anchor are immutable HealthKit objects.
  public struct Result: @unchecked Sendable {
    /// Samples added since the anchor.
    public let addedSamples: [Sample]
    /// Objects deleted since the anchor.
    public let deletedObjects: [HKDeletedObject]
    /// The anchor to continue from.
    public let newAnchor: HKQueryAnchor
  }

  /// The types and predicates (HealthKitSim runs the first).
  public var predicates: [HKSamplePredicate<Sample>]
  /// Where to start; nil for every current sample.
  public var anchor: HKQueryAnchor?
  /// The most changes in the first result; nil for no limit.
  public var limit: Int?

  /// Creates a descriptor.
  public init(predicates: [HKSamplePredicate<Sample>], anchor: HKQueryAnchor?, limit: Int? = nil) {
    self.predicates = predicates
    self.anchor = anchor
    self.limit = limit
  }

  /// The changes since ``anchor``.
  /// - Throws: what the anchored query's handler would receive.
  public func result(for healthStore: HKHealthStore) async throws -> Result {
    guard let predicate = predicates.first else {
      return Result(addedSamples: [], deletedObjects: [], newAnchor: anchor ?? HKQueryAnchor(fromValue: 0))
    }
    let anchor = self.anchor
    let limit = self.limit ?? HKObjectQueryNoLimit
    return try await run(healthStore) { done in
      HKAnchoredObjectQuery(
        type: predicate.sampleType, predicate: predicate.nsPredicate, anchor: anchor, limit: limit
      ) { _, added, deleted, newAnchor, error in
        done(Self.result(added, deleted, newAnchor, error))
      }
    }
  }

  /// The changes since ``anchor``, then every later batch, until the task is cancelled.
  public func results(for healthStore: HKHealthStore) -> AsyncThrowingStream<Result, any Error> {
    AsyncThrowingStream { continuation in
      guard let predicate = predicates.first else {
        continuation.finish()
        return
      }
      let handler: HKAnchoredObjectQuery.Handler = { _, added, deleted, newAnchor, error in
        switch Self.result(added, deleted, newAnchor, error) {
        case .success(let result): continuation.yield(result)
        case .failure(let error): continuation.finish(throwing: error)
        }
      }
      let query = HKAnchoredObjectQuery(
        type: predicate.sampleType, predicate: predicate.nsPredicate, anchor: anchor,
        limit: limit ?? HKObjectQueryNoLimit, resultsHandler: handler)
      query.updateHandler = handler
      continuation.onTermination = { _ in healthStore.stop(query) }
      healthStore.execute(query)
    }
  }

  private static func result(
    _ added: [HKSample]?, _ deleted: [HKDeletedObject]?, _ newAnchor: HKQueryAnchor?, _ error: (any Error)?
  ) -> Swift.Result<Result, any Error> {
    if let error { return .failure(error) }
    return .success(
      Result(
        addedSamples: (added ?? []).compactMap { $0 as? Sample }, deletedObjects: deleted ?? [],
        newAnchor: newAnchor ?? HKQueryAnchor(fromValue: 0)))
  }
}

/// A statistics query as a value.
///
/// `@unchecked Sendable`: `NSPredicate` and sort descriptors are not `Sendable` on Linux; it never mutates
/// them, and its own fields are copied with the value.
public struct HKStatisticsQueryDescriptor: @unchecked Sendable {
  /// The quantity type and predicate.
  public var predicate: HKSamplePredicate<HKQuantitySample>
  /// The statistics to compute.
  public var options: HKStatisticsOptions

  /// Creates a descriptor.
  public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions = []) {
    self.predicate = predicate
    self.options = options
  }

  /// The statistics, or nil when no sample matched (`errorNoData`).
  /// - Throws: what the statistics query's handler would receive, but `errorNoData`.
  public func result(for healthStore: HKHealthStore) async throws -> HKStatistics? {
    guard let type = predicate.sampleType as? HKQuantityType else { return nil }
    let (nsPredicate, options) = (predicate.nsPredicate, self.options)
    do {
      return try await run(healthStore) { done in
        HKStatisticsQuery(quantityType: type, quantitySamplePredicate: nsPredicate, options: options) {
          _, statistics, error in
          done(error.map { .failure($0) } ?? .success(statistics))
        }
      }
    } catch let error as HKError where error.code == .errorNoData {
      return nil
    }
  }
}

/// A statistics collection query as a value.
///
/// `@unchecked Sendable`: `NSPredicate` and sort descriptors are not `Sendable` on Linux; it never mutates
/// them, and its own fields are copied with the value.
public struct HKStatisticsCollectionQueryDescriptor: @unchecked Sendable {
  /// The quantity type and predicate.
  public var predicate: HKSamplePredicate<HKQuantitySample>
  /// The statistics to compute.
  public var options: HKStatisticsOptions
  /// The date intervals are aligned to.
  public var anchorDate: Date
  /// The length of each interval.
  public var intervalComponents: DateComponents

  /// Creates a descriptor.
  public init(
    predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions, anchorDate: Date,
    intervalComponents: DateComponents
  ) {
    self.predicate = predicate
    self.options = options
    self.anchorDate = anchorDate
    self.intervalComponents = intervalComponents
  }

  private func query() -> HKStatisticsCollectionQuery? {
    guard let type = predicate.sampleType as? HKQuantityType else { return nil }
    return HKStatisticsCollectionQuery(
      quantityType: type, quantitySamplePredicate: predicate.nsPredicate, options: options, anchorDate: anchorDate,
      intervalComponents: intervalComponents)
  }

  /// The collection.
  /// - Throws: what the initial results handler would receive.
  public func result(for healthStore: HKHealthStore) async throws -> HKStatisticsCollection {
    guard let query = query() else { throw HKError(.errorInvalidArgument, message: "not a quantity type") }
    return try await withCheckedThrowingContinuation { continuation in
      query.initialResultsHandler = { _, collection, error in
        if let collection {
          continuation.resume(returning: collection)
        } else {
          continuation.resume(throwing: error ?? HKError(.unknownError))
        }
      }
      healthStore.execute(query)
    }
  }

  /// The collection, then the recomputed collection after each change, until the task is cancelled.
  public func results(for healthStore: HKHealthStore) -> AsyncThrowingStream<HKStatisticsCollection, any Error> {
    AsyncThrowingStream { continuation in
      guard let query = query() else {
        continuation.finish(throwing: HKError(.errorInvalidArgument, message: "not a quantity type"))
        return
      }
      query.initialResultsHandler = { _, collection, error in
        if let collection {
          continuation.yield(collection)
        } else {
          continuation.finish(throwing: error ?? HKError(.unknownError))
        }
      }
      query.statisticsUpdateHandler = { _, _, collection, error in
        if let collection { continuation.yield(collection) } else if let error { continuation.finish(throwing: error) }
      }
      continuation.onTermination = { _ in healthStore.stop(query) }
      healthStore.execute(query)
    }
  }
}

/// A source query as a value.
///
/// `@unchecked Sendable`: `NSPredicate` and sort descriptors are not `Sendable` on Linux; it never mutates
/// them, and its own fields are copied with the value.
public struct HKSourceQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
  /// The type and predicate.
  public var predicate: HKSamplePredicate<Sample>

  /// Creates a descriptor.
  public init(predicate: HKSamplePredicate<Sample>) { self.predicate = predicate }

  /// The apps that saved matching samples the app may see, sorted by name.
  /// - Throws: what the source query's handler would receive.
  public func result(for healthStore: HKHealthStore) async throws -> [HKSource] {
    let predicate = self.predicate
    let sources: Set<HKSource> = try await run(healthStore) { done in
      HKSourceQuery(sampleType: predicate.sampleType, samplePredicate: predicate.nsPredicate) { _, sources, error in
        done(error.map { .failure($0) } ?? .success(sources ?? []))
      }
    }
    return sources.sorted { $0.name < $1.name }
  }
}
