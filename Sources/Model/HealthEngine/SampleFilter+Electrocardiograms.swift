import FoundationEssentials
import HealthModel

/// Which property of an electrocardiogram a ``SampleFilter/electrocardiogram(_:_:)`` condition reads.
package enum ECGProperty: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// `HKPredicateKeyPathECGClassification`.
  case classification = 0
  /// `HKPredicateKeyPathECGSymptomsStatus`.
  case symptomsStatus = 1

  /// The property's raw value in `ecg`.
  package func value(of ecg: Electrocardiogram) -> Int {
    switch self {
    case .classification: ecg.classification.rawValue
    case .symptomsStatus: ecg.symptomsStatus.rawValue
    }
  }

  /// The key path a predicate format names.
  package var description: String {
    switch self {
    case .classification: "classification"
    case .symptomsStatus: "symptomsStatus"
    }
  }
}

extension SampleFilter {
  /// Whether `ecg` passes the filter: the electrocardiogram conditions, and every condition a sample without a
  /// value of its own passes (identifiers, dates, sources, metadata, devices); value, quantity and workout
  /// conditions match no recording.
  package func matches(_ ecg: Electrocardiogram) -> Bool {
    switch self {
    case .electrocardiogram(let property, let raws): return raws.contains(property.value(of: ecg))
    case .and(let parts): return parts.allSatisfy { $0.matches(ecg) }
    case .or(let parts): return parts.contains { $0.matches(ecg) }
    case .not(let part): return !part.matches(ecg)
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField, .medication:
      return false
    case .constant, .dates, .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return matches(
        Sample(
          uuid: ecg.uuid, type: SpecialObjectStore.electrocardiogramType, value: .quantity(.nan), start: ecg.start,
          end: ecg.end, metadata: ecg.metadata, source: ecg.source))
    }
  }
}
