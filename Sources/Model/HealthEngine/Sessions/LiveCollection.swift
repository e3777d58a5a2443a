import FoundationEssentials
import HealthModel

/// What an `HKLiveWorkoutDataSource` collects: each type in `typesToCollect` with the predicate
/// `enableCollection(for:predicate:)` gave it (nil: every sample of the type).
package struct LiveCollection: Hashable, Sendable {
  /// The collected types and their predicates.
  package private(set) var predicates: [SampleType: SampleFilter?]
  /// Whether the app changed the set (then activities no longer swap it; see ``defaults(for:)``).
  package private(set) var customized: Bool

  /// The defaults for `configuration` (``defaults(for:)``), or nothing for a data source made without one.
  package init(configuration: WorkoutConfiguration?) {
    predicates = [:]
    customized = false
    if let configuration { for type in Self.defaults(for: configuration) { predicates[type] = .some(nil) } }
  }

  /// `typesToCollect`, by type code.
  package var types: [SampleType] { predicates.keys.sorted() }

  /// `enableCollection(for:predicate:)`: adds the type, or replaces its predicate (DOCS
  /// `hkliveworkoutdatasource/enablecollection(for:predicate:)`, workouts.md §2.6).
  package mutating func enable(_ type: SampleType, predicate: SampleFilter?) {
    predicates[type] = .some(predicate)
    customized = true
  }

  /// `disableCollection(for:)`: removes the type.
  package mutating func disable(_ type: SampleType) {
    predicates[type] = nil
    customized = true
  }

  /// Whether `sample` is collected: its type is enabled and its predicate (if any) matches.
  package func collects(_ sample: Sample) -> Bool {
    guard let entry = predicates[sample.type] else { return false }
    guard let filter = entry else { return true }
    return filter.matches(sample)
  }

  /// The activity's defaults replace the set when a new activity begins (the data source swaps `typesToCollect` per
  /// activity of a multisport workout; workouts.md §1.4, §6.1), unless the app customized it (HealthPair model).
  package mutating func activityBegan(_ configuration: WorkoutConfiguration) {
    guard !customized else { return }
    predicates = [:]
    for type in Self.defaults(for: configuration) { predicates[type] = .some(nil) }
  }

  /// The types a live data source collects by default for a configuration, in type order: the sensor model's table
  /// (``SensorModel/defaultCollectedTypes(_:)``, workouts.md §6.1), so what is collected is what the watch produces.
  package static func defaults(for configuration: WorkoutConfiguration) -> [SampleType] {
    SensorModel.defaultCollectedTypes(configuration).sorted()
  }
}
