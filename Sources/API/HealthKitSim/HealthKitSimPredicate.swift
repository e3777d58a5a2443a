import Foundation
import HealthEngine
import HealthModel

/// Whether `predicate` is `NSPredicate(value: true)` (or, with `value: false`, `NSPredicate(value: false)`).
/// swift-corelibs-foundation deprecates `predicateFormat` and evaluating a block predicate would run app code, so
/// this reads the predicate's stored kind (`boolean(true)`).
func isConstantPredicate(_ predicate: NSPredicate, value: Bool = true) -> Bool {
  guard type(of: predicate) == NSPredicate.self else { return false }
  let kind = Mirror(reflecting: predicate).children.first { $0.label == "kind" }?.value
  return kind.map { String(describing: $0) } == "boolean(\(value))"
}

/// Whether `predicate` is `NSPredicate(value: true)`.
func isTruePredicate(_ predicate: NSPredicate) -> Bool { isConstantPredicate(predicate, value: true) }

/// The `NSPredicate` that `HKQuery`'s factory methods return: it carries the structured condition the daemon
/// applies (``SampleFilter``), and evaluates it on `HKSample`s the same way.
final class HealthKitSimPredicate: NSPredicate {
  /// The condition.
  let node: SampleFilter

  init(_ node: SampleFilter) {
    self.node = node
    super.init(value: true)
  }

  /// A predicate over a date range and source filter.
  convenience init(_ filter: QueryFilter) {
    var parts: [SampleFilter] = []
    if let range = filter.range { parts.append(.dates(range)) }
    if let sources = filter.sources { parts.append(.sources(sources)) }
    if let extra = filter.extra { parts.append(extra) }
    self.init(parts.count == 1 ? parts[0] : .and(parts))
  }

  required init?(coder: NSCoder) { nil }

  /// Evaluates the condition against an `HKSample` or `HKWorkout` (anything else does not match).
  override func evaluate(with object: Any?) -> Bool {
    if let workout = object as? HKWorkout {
      return workout.engineWorkout.map { node.matches($0) } ?? false
    }
    guard let sample = (object as? HKSample)?.engineSample else { return false }
    return node.matches(sample)
  }

  /// Evaluates the condition; substitution variables do not apply.
  override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
    evaluate(with: object)
  }

  /// A readable form of the condition, close to the format HealthKit's predicates print.
  override var predicateFormat: String { Self.format(node) }

  /// The predicate format.
  override var description: String { predicateFormat }

  private static func format(_ node: SampleFilter) -> String {
    switch node {
    case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
    case .and(let parts): return parts.isEmpty ? "TRUEPREDICATE" : parts.map(format).joined(separator: " AND ")
    case .or(let parts): return "(" + parts.map(format).joined(separator: " OR ") + ")"
    case .not(let part): return "NOT (\(format(part)))"
    case .dates(let range):
      var parts: [String] = []
      if let start = range.start {
        parts.append(range.options.contains(.strictStartDate) ? "startDate >= \(start)" : "endDate >= \(start)")
      }
      if let end = range.end {
        parts.append(range.options.contains(.strictEndDate) ? "endDate <= \(end)" : "startDate < \(end)")
      }
      return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
    case .sources(let sources): return "source IN \(sources.sorted())"
    case .uuids(let uuids): return "UUID IN \(uuids.map(\.uuidString).sorted())"
    case .metadata(let key, .exists): return "metadata.\(key) != nil"
    case .metadata(let key, .oneOf(let values)): return "metadata.\(key) IN \(values)"
    case .metadata(let key, .compare(let op, let value)): return "metadata.\(key) \(op) \(value)"
    case .device(let property, let values): return "device.\(property.name) IN \(values.sorted())"
    case .value(let op, let value): return "value \(op) \(value)"
    case .quantity(let op, let value, let unit): return "quantity \(op) \(formatNumber(value)) \(unit)"
    case .notInCorrelation: return "correlation == nil"
    case .date(let field, let op, let instant):
      return "\(field == .start ? "startDate" : "endDate") \(op) \(Date(timeIntervalSinceReferenceDate: instant))"
    case .workoutActivityType(let raws):
      let sorted = raws.sorted()
      return sorted.count == 1
        ? "workoutType == \(sorted[0])" : "workoutType IN {\(sorted.map(String.init).joined(separator: ", "))}"
    case .workoutDuration(let op, let seconds): return "duration \(op) \(formatNumber(seconds))"
    case .workoutStatistic(let type, let kind, let op, let value):
      return "\(kind)Quantity.\(type.identifier) \(op) \(formatNumber(value))"
    case .workoutActivity(let inner): return "ANY workoutActivities MATCH (\(format(inner)))"
    case .associatedWith(let workout): return "workout == \(workout.uuidString)"
    case .electrocardiogram(let property, let raws):
      let sorted = raws.sorted()
      return sorted.count == 1
        ? "\(property) == \(sorted[0])" : "\(property) IN {\(sorted.map(String.init).joined(separator: ", "))}"
    case .stateOfMindValence(let op, let value): return "valence \(op) \(formatNumber(value))"
    case .stateOfMind(let field, let raw): return "\(field) == \(raw)"
    case .fhirResource(let type, let identifier):
      return "fhirResource.resourceType == \(type)" + (identifier.map { " AND fhirResource.identifier == \($0)" } ?? "")
    case .cdaField(let field, let text): return "\(field) == \"\(text)\""
    case .medication(.archived(let value)): return "isArchived == \(value ? "YES" : "NO")"
    case .medication(.hasSchedule(let value)): return "hasSchedule == \(value ? "YES" : "NO")"
    case .medication(.concepts(let ids)): return "medicationConceptIdentifier IN \(ids.sorted())"
    case .medication(.statuses(let raws)): return "status IN \(raws.sorted())"
    case .medication(.scheduledDates(let instants)):
      return "scheduledDate IN \(instants.sorted().map { Date(timeIntervalSinceReferenceDate: $0) })"
    case .medication(.scheduledRange(let start, let end)):
      let parts =
        (start.map { ["scheduledDate >= \(Date(timeIntervalSinceReferenceDate: $0))"] } ?? [])
        + (end.map { ["scheduledDate < \(Date(timeIntervalSinceReferenceDate: $0))"] } ?? [])
      return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
    }
  }
}

extension HKSample {
  /// The sample as the engine's predicates see it: quantities in the type's canonical unit. Nil for a sample whose
  /// type or unit HealthKitSim cannot interpret.
  var engineSample: Sample? {
    guard let type = try? sampleType.simulatedType(), case .valid(let metadata) = metadataPayload else { return nil }
    let value: SampleValue
    switch self {
    case let quantitySample as HKQuantitySample:
      guard let canonical = quantitySample.quantityType.canonicalUnit else { return nil }
      let amount = quantitySample.quantity.doubleValue(for: canonical)
      guard !amount.isNaN else { return nil }
      value = .quantity(amount)
    case let categorySample as HKCategorySample:
      value = .category(categorySample.value)
    default:
      return nil
    }
    let device: DeviceKind = sourceRevision.productType == "Watch" ? .watch : .phone
    // An imported sample's source keeps the device its export described (device predicates read it).
    let details = sourceRevision.exportDevice.map {
      SourceDetails(name: sourceRevision.source.name, version: sourceRevision.version, hardware: $0)
    }
    return Sample(
      uuid: uuid, type: type, value: value, start: startDate, end: endDate, metadata: metadata,
      source: SampleSource(bundleID: sourceRevision.source.bundleIdentifier, device: device, details: details))
  }
}
