import FoundationEssentials
import HealthModel

/// Which property of a State of Mind a ``SampleFilter/stateOfMind(_:_:)`` condition reads.
package enum StateOfMindField: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The kind (`reflectiveInterval` in HealthKit's predicate).
  case kind = 0
  /// One of the labels.
  case label = 1
  /// One of the associations (`domains` in HealthKit's predicate).
  case association = 2

  /// The key path a predicate format names.
  package var description: String {
    switch self {
    case .kind: "reflectiveInterval"
    case .label: "labels"
    case .association: "domains"
    }
  }
}

extension SampleFilter {
  /// Whether `state` passes the filter: the State of Mind conditions, and every condition a sample without a value
  /// of its own passes (identifiers, dates, sources, metadata, devices); value, quantity, workout and
  /// electrocardiogram conditions match none.
  package func matches(_ state: StateOfMind) -> Bool {
    switch self {
    case .stateOfMindValence(let op, let value): return op.holds(Self.sign(state.valence, value, converted: false))
    case .stateOfMind(.kind, let raw): return state.kind.rawValue == raw
    case .stateOfMind(.label, let raw): return state.labels.contains(raw)
    case .stateOfMind(.association, let raw): return state.associations.contains(raw)
    case .and(let parts): return parts.allSatisfy { $0.matches(state) }
    case .or(let parts): return parts.contains { $0.matches(state) }
    case .not(let part): return !part.matches(state)
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .electrocardiogram, .fhirResource, .cdaField, .medication:
      return false
    case .constant, .dates, .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return matches(
        Sample(
          uuid: state.uuid, type: SpecialObjectStore.stateOfMindType, value: .quantity(.nan), start: state.date,
          end: state.date, metadata: state.metadata, source: state.source))
    }
  }
}
