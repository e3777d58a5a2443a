import Foundation
import HealthEngine
import HealthModel
import Synchronization
import Wire

/// What a live workout builder collects (watchOS 5 / iOS 26; workouts.md §2.6): ``typesToCollect``, each with an
/// optional predicate. Made with a configuration, it starts with that configuration's defaults (the sensor model's
/// table, workouts.md §6.1: heart rate, active energy, distance… as the watch produces them for the activity);
/// without one, empty.
///
/// It does nothing until it is assigned to `HKLiveWorkoutBuilder.dataSource`: then the device collects exactly its
/// types (the calls made before are applied at that moment), and later calls reach the device at once. Errors the
/// device gives a call (none in normal use) go to ``HealthKitSim/issueHandler``.
///
/// `@unchecked Sendable`: its state sits behind a `Mutex`.
public class HKLiveWorkoutDataSource: NSObject, @unchecked Sendable {
  private struct State {
    var predicates: [SampleType: SampleFilter?]
    var core: SessionCore?
  }
  private let state: Mutex<State>

  /// A data source with the defaults of `configuration` (none when nil).
  public init(healthStore: HKHealthStore, workoutConfiguration configuration: HKWorkoutConfiguration?) {
    var predicates: [SampleType: SampleFilter?] = [:]
    if let configuration {
      for type in LiveCollection.defaults(for: configuration.simulated) { predicates[type] = .some(nil) }
    }
    state = Mutex(State(predicates: predicates, core: nil))
    super.init()
  }

  /// The types collected.
  public var typesToCollect: Set<HKSampleType> {
    Set(state.withLock { $0.predicates.keys }.map { HKObjectType.make($0) })
  }

  /// Collects `quantityType` (samples matching `predicate`, or all), replacing its predicate if it was collected.
  public func enableCollection(for quantityType: HKQuantityType, predicate: NSPredicate?) {
    let api = "HKLiveWorkoutDataSource.enableCollection(for:predicate:)"
    do {
      let type = try quantityType.simulatedType()
      let filter = try predicate.map { try QueryFilter.node(of: $0) }
      let core = state.withLock { s -> SessionCore? in
        s.predicates[type] = .some(filter)
        return s.core
      }
      try core?.call(.enableCollection(core!.id, type, filter), api: api)
    } catch {
      SessionCore.report(error, api: api)
    }
  }

  /// Stops collecting `quantityType`.
  public func disableCollection(for quantityType: HKQuantityType) {
    let api = "HKLiveWorkoutDataSource.disableCollection(for:)"
    do {
      let type = try quantityType.simulatedType()
      let core = state.withLock { s -> SessionCore? in
        s.predicates[type] = nil
        return s.core
      }
      try core?.call(.disableCollection(core!.id, type), api: api)
    } catch {
      SessionCore.report(error, api: api)
    }
  }

  /// Attaches the data source to a builder whose device collects `deviceTypes`: the device is made to collect this
  /// source's types with their predicates, and nothing else.
  func attach(_ core: SessionCore, deviceTypes: [SampleType]) {
    let api = "HKLiveWorkoutBuilder.dataSource"
    let predicates = state.withLock { s -> [SampleType: SampleFilter?] in
      s.core = core
      return s.predicates
    }
    do {
      for type in deviceTypes where predicates[type] == nil {
        try core.call(.disableCollection(core.id, type), api: api)
      }
      for (type, filter) in predicates.sorted(by: { $0.key < $1.key })
      where filter != nil || !deviceTypes.contains(type) {
        try core.call(.enableCollection(core.id, type, filter ?? nil), api: api)
      }
    } catch {
      SessionCore.report(error, api: api)
    }
  }
}
