import HealthModel

/// Which statistics a statistics query computes, with Apple's bit values.
///
/// Cumulative types refuse `discreteAverage`, `discreteMin` and `discreteMax`; discrete types refuse
/// `cumulativeSum`; `mostRecent`, `duration` and `separateBySource` suit both (HealthKit's
/// `supportsStatisticOptions:`, behavior.md Q3). A refused option raises an exception on a device: the query's
/// handler receives ``HKSimulatedTermination``.
public struct HKStatisticsOptions: OptionSet, Hashable, Sendable {
  /// The raw bit mask.
  public let rawValue: UInt
  /// Creates options from Apple's bit mask.
  public init(rawValue: UInt) { self.rawValue = rawValue }

  /// Per-source results as well (`1 << 0`).
  public static let separateBySource = HKStatisticsOptions(rawValue: 1 << 0)
  /// Average of a discrete type (`1 << 1`).
  public static let discreteAverage = HKStatisticsOptions(rawValue: 1 << 1)
  /// Minimum of a discrete type (`1 << 2`).
  public static let discreteMin = HKStatisticsOptions(rawValue: 1 << 2)
  /// Maximum of a discrete type (`1 << 3`).
  public static let discreteMax = HKStatisticsOptions(rawValue: 1 << 3)
  /// Sum of a cumulative type (`1 << 4`).
  public static let cumulativeSum = HKStatisticsOptions(rawValue: 1 << 4)
  /// Most recent value (`1 << 5`).
  public static let mostRecent = HKStatisticsOptions(rawValue: 1 << 5)
  /// Apple's deprecated name for ``mostRecent``.
  @available(*, deprecated, renamed: "mostRecent")
  public static var discreteMostRecent: HKStatisticsOptions { .mostRecent }
  /// Total duration the samples cover (`1 << 6`).
  public static let duration = HKStatisticsOptions(rawValue: 1 << 6)

  /// The engine's options.
  var simulated: StatisticsOptions { StatisticsOptions(rawValue: UInt32(truncatingIfNeeded: rawValue)) }
}
