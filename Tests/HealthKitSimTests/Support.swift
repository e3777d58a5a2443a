import Dispatch
import Foundation
import HealthKitSim
import HealthPairTesting
import Synchronization
import Testing

// Apps installed by the tests, with their Info.plist usage descriptions.
let waterID = "com.example.water"
let returnID = "com.example.return"
let dashboardID = "com.example.dashboard"
let otherID = "com.example.other"

let waterType = HKQuantityType(.dietaryWater)
let mindfulType = HKCategoryType(.mindfulSession)
let stepsType = HKQuantityType(.stepCount)
let heartRateType = HKQuantityType(.heartRate)

/// Monday 5 January 2026, 08:00 UTC: the virtual clock's start in tests that fix it.
let t0 = Date(timeIntervalSince1970: 1_767_600_000)

extension HealthDevice {
  /// Installs Water (read + write), Return (write only), a read-only dashboard and another writer of water.
  func installArticleApps() throws {
    try install(
      app: waterID, name: "Water", writeUsage: "Water logs what you drink.", readUsage: "Water shows today's total.")
    try install(app: returnID, name: "Return", writeUsage: "Return saves your sessions as Mindful Minutes.")
    try install(app: dashboardID, name: "Dashboard", readUsage: "Dashboard shows your health data.")
    try install(app: otherID, name: "Other", writeUsage: "Other logs water too.", readUsage: "Other reads water.")
  }

  /// Has `app` request `share`/`read` through HealthKitSim and the user answer with `answer` (allow all by default).
  func authorize(
    _ app: String, share: Set<HKSampleType> = [], read: Set<HKObjectType> = [],
    answer: @Sendable (SimulatedUser) async throws -> Void = { try await $0.allowAll() }
  ) async throws {
    try await use(app: app) {
      async let request: Void = HKHealthStore().requestAuthorization(toShare: share, read: read)
      try await answer(user)
      try await request
    }
  }
}

/// Launches a pair with the clock at `t0` and the article's apps on both devices.
@discardableResult
func withArticlePair<R>(
  isolation: isolated (any Actor)? = #isolation, _ body: (HealthPair) async throws -> R
) async throws -> R {
  try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
    try pair.phone.installArticleApps()
    try pair.watch.installArticleApps()
    return try await body(pair)
  }
}

func water(_ mL: Double, at date: Date = t0, metadata: [String: Any]? = nil) -> HKQuantitySample {
  HKQuantitySample(
    type: waterType, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: mL), start: date, end: date,
    metadata: metadata)
}

func session(minutes: Double, at date: Date = t0) -> HKCategorySample {
  HKCategorySample(
    type: mindfulType, value: HKCategoryValue.notApplicable.rawValue, start: date,
    end: date.addingTimeInterval(minutes * 60))
}

/// Whether `error` is an `HKError` with `code`.
func isHKError(_ error: any Error, _ code: HKError.Code) -> Bool { (error as? HKError)?.code == code }

/// Things handed over from handlers on background queues, awaited with a deadline (never by sleeping).
final class Mailbox<T: Sendable>: Sendable {
  private struct State {
    var items: [T] = []
    var taken = 0
    var waiter: (id: UInt64, continuation: CheckedContinuation<T?, Never>)?
    var nextID: UInt64 = 0
  }
  private let state = Mutex(State())

  /// Hands over an item.
  func post(_ item: T) {
    let waiter = state.withLock { s -> (CheckedContinuation<T?, Never>, T)? in
      s.items.append(item)
      guard let waiter = s.waiter else { return nil }
      s.waiter = nil
      s.taken += 1
      return (waiter.continuation, s.items[s.taken - 1])
    }
    if let (continuation, item) = waiter { continuation.resume(returning: item) }
  }

  /// Everything posted so far.
  var all: [T] { state.withLock { $0.items } }

  /// The next item not yet taken, waiting up to `timeout` seconds.
  func next(timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
    let item: T? = await withCheckedContinuation { continuation in
      let ready = state.withLock { s -> T?? in
        if s.taken < s.items.count {
          s.taken += 1
          return .some(s.items[s.taken - 1])
        }
        s.nextID += 1
        let id = s.nextID
        s.waiter = (id, continuation)
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
          let expired = state.withLock { s -> CheckedContinuation<T?, Never>? in
            guard let waiter = s.waiter, waiter.id == id else { return nil }
            s.waiter = nil
            return waiter.continuation
          }
          expired?.resume(returning: nil)
        }
        return .none
      }
      if case .some(let item) = ready { continuation.resume(returning: item) }
    }
    return try #require(item, "nothing arrived within \(timeout) s", sourceLocation: sourceLocation)
  }
}

/// Runs a one-shot query and awaits its handler's result.
func run<T: Sendable>(
  _ store: HKHealthStore, _ make: (@escaping @Sendable (Result<T, any Error>) -> Void) -> HKQuery
) async throws -> T {
  let box = Mailbox<Result<T, any Error>>()
  store.execute(make { box.post($0) })
  return try await box.next().get()
}

/// The samples an `HKSampleQuery` returns.
func samples(
  _ store: HKHealthStore, _ type: HKSampleType, predicate: NSPredicate? = nil, limit: Int = HKObjectQueryNoLimit,
  sort: [NSSortDescriptor]? = nil
) async throws -> [HKSample] {
  try await run(store) { done in
    HKSampleQuery(sampleType: type, predicate: predicate, limit: limit, sortDescriptors: sort) { _, samples, error in
      done(samples.map { .success($0) } ?? .failure(error!))
    }
  }
}

/// The statistics an `HKStatisticsQuery` returns.
func statistics(
  _ store: HKHealthStore, _ type: HKQuantityType, predicate: NSPredicate? = nil, options: HKStatisticsOptions
) async throws -> HKStatistics {
  try await run(store) { done in
    HKStatisticsQuery(quantityType: type, quantitySamplePredicate: predicate, options: options) { _, result, error in
      done(result.map { .success($0) } ?? .failure(error!))
    }
  }
}

/// Serializes the tests that set HealthKitSim's process-wide target (``HealthDevice/useGlobally(app:)``) or need it
/// unset: every other test binds its target task-locally and is not affected.
actor ProcessWideTarget {
  /// The one lock.
  static let lock = ProcessWideTarget()
  private var busy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  /// Waits until no other test holds the lock, then holds it.
  func acquire() async {
    guard busy else {
      busy = true
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  /// Hands the lock to the next waiting test, or frees it.
  func release() {
    if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
  }
}

/// A UserDefaults suite of its own, for code that persists anchors; ``remove()`` deletes it.
struct TemporaryDefaults {
  /// The suite's name.
  let name = "HealthPairTests-\(UUID().uuidString)"

  /// The suite.
  var defaults: UserDefaults { UserDefaults(suiteName: name)! }

  /// Removes the suite's contents (and its file, if it was written).
  func remove() { defaults.removePersistentDomain(forName: name) }
}
