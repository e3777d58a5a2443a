import Foundation
import HealthEngine
import HealthModel

/// What a comparison means: the key path's subject, and the ``SampleFilter`` a comparison or an `IN` of it with a
/// value makes (or why it makes none).
extension PredicateFormat.Parser {
  /// The comparison an operator symbol names (`==` and `=` are equality).
  static func comparison(_ op: String) -> ComparisonOperator {
    switch op {
    case "<": .lessThan
    case "<=", "=<": .lessThanOrEqualTo
    case ">": .greaterThan
    case ">=", "=>": .greaterThanOrEqualTo
    case "!=", "<>": .notEqualTo
    default: .equalTo
    }
  }

  /// What a key path names.
  enum Subject {
    case date(SampleDateField)
    case uuid
    case source
    case bundleIdentifier
    case metadata(String)
    case quantity
    case categoryValue
    case device(DeviceProperty)
    case correlation
    /// `workout` (HKPredicateKeyPathWorkout): the samples associated with a workout.
    case workout
    /// `workoutType` (HKPredicateKeyPathWorkoutType): a workout's activity type raw value.
    case workoutType
    /// `duration` (HKPredicateKeyPathWorkoutDuration): a workout's duration in seconds.
    case workoutDuration
    /// `totalEnergyBurned`, `totalDistance`, … (the deprecated totals): a workout's sum of these types.
    case workoutTotal([String])
    /// `sumQuantity.<type>`, `averageQuantity.<type>`, … (iOS 16 workout and activity statistics key paths, the
    /// quantity type's identifier after the dot): that statistic of a workout or an activity.
    case workoutStatistic(WorkoutStatisticKind, SampleType)
    /// `workoutActivity.<activity key path>`: a workout with at least one activity the rest of the path matches.
    indirect case workoutActivity([String])
    /// `count` (HKPredicateKeyPathCount): a quantity sample's number of quantities, always 1 in HealthPair.
    case sampleCount
    /// `title`, `patient_name`, `author_name`, `custodian_name` (HKPredicateKeyPathCDATitle …): a CDA document's
    /// extracted header field.
    case cdaField(CDAField)
    /// `isArchived`, `hasSchedule` (HKUserAnnotatedMedicationPredicateKeyPath…): a medication's flag.
    case medicationFlag(archived: Bool)
    /// `medicationConceptIdentifier`: a medication's or dose event's concept.
    case medicationConcept
    /// `status` (HKPredicateKeyPathStatus): a dose event's log status raw value.
    case doseStatus
    /// `scheduledDate` (HKPredicateKeyPathScheduledDate): a dose event's scheduled date.
    case scheduledDate
  }

  /// What `path` names; a `%K` component holding dots is split, a metadata key after `metadata` kept whole.
  static func subject(_ path: [String], at offset: Int) throws(Failure) -> Subject {
    // A %K argument may be a whole path ("metadata.HKWasUserEntered"); a metadata key after the root is kept
    // whole, dots and all (`metadata.%K` with "com.example.key").
    var components = path
    if let first = components.first, first.contains(".") {
      components =
        first.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        + components.dropFirst()
    }
    let root = components[0]
    let rest = Array(components.dropFirst())
    switch (root, rest.count) {
    case ("startDate", 0): return .date(.start)
    case ("endDate", 0): return .date(.end)
    case ("UUID", 0), ("uuid", 0): return .uuid
    case ("source", 0), ("sourceRevision", 0): return .source
    case ("sourceRevision", 1) where rest[0] == "source": return .source
    case ("source", 1) where rest[0] == "bundleIdentifier": return .bundleIdentifier
    case ("sourceRevision", 2) where rest == ["source", "bundleIdentifier"]: return .bundleIdentifier
    case ("metadata", 1...) where !rest.joined().isEmpty: return .metadata(rest.joined(separator: "."))
    case ("quantity", 0): return .quantity
    case ("value", 0): return .categoryValue
    case ("device", 1):
      let named = DeviceProperty.allCases.first { $0.name == rest[0] }
      guard let property = named ?? DeviceProperty(key: rest[0]) else {
        throw Failure(message: "unknown device property '\(rest[0])'", offset: offset)
      }
      return .device(property)
    case ("correlation", 0): return .correlation
    case ("workout", 0): return .workout
    case ("workoutType", 0): return .workoutType
    case ("duration", 0): return .workoutDuration
    case ("totalEnergyBurned", 0): return .workoutTotal(["activeEnergyBurned"])
    case ("totalDistance", 0): return .workoutTotal(HKWorkout.distanceTypes)
    case ("totalSwimmingStrokeCount", 0): return .workoutTotal(["swimmingStrokeCount"])
    case ("totalFlightsClimbed", 0): return .workoutTotal(["flightsClimbed"])
    // The activity key paths (iOS 16) read as the workout ones: a workout predicate of them matches as the
    // predicateForWorkoutActivities factories' do, alone or inside predicateForWorkouts(activityPredicate:).
    case ("activityType", 0): return .workoutType
    case ("activityDuration", 0): return .workoutDuration
    case ("activityStartDate", 0): return .date(.start)
    case ("activityEndDate", 0): return .date(.end)
    case ("workoutActivity", 1...): return .workoutActivity(rest)
    case (let name, 1) where statisticKinds[name] != nil:
      guard let type = SampleType.lookup(name: rest[0]), type.isQuantity else {
        throw Failure(message: "'\(rest[0])' after \(name) is not a quantity type identifier", offset: offset)
      }
      return .workoutStatistic(statisticKinds[name]!, type)
    case (let name, 0) where statisticKinds[name] != nil:
      throw Failure(
        message: "the key path '\(name)' needs a quantity type identifier after it (\(name).%K, with "
          + "HKQuantityTypeIdentifier….rawValue)",
        offset: offset)
    // The quantity sample key paths (iOS 12/13): a HealthPair sample holds one quantity (count 1), so its sum,
    // minimum, maximum, average and most recent quantity are its quantity, its most recent dates its own.
    case ("sum", 0), ("min", 0), ("max", 0), ("average", 0), ("mostRecent", 0): return .quantity
    case ("mostRecentStartDate", 0): return .date(.start)
    case ("mostRecentEndDate", 0): return .date(.end)
    case ("count", 0): return .sampleCount
    case ("isArchived", 0): return .medicationFlag(archived: true)
    case ("hasSchedule", 0): return .medicationFlag(archived: false)
    case ("medicationConceptIdentifier", 0): return .medicationConcept
    case ("status", 0): return .doseStatus
    case ("scheduledDate", 0): return .scheduledDate
    case (let name, 0) where CDAField.allCases.contains { $0.description == name }:
      return .cdaField(CDAField.allCases.first { $0.description == name }!)
    default:
      throw Failure(
        message: "the key path '\(components.joined(separator: "."))' is not one HealthKitSim reads (startDate, "
          + "endDate, UUID, source, sourceRevision, metadata.<key>, quantity, value, device.<property>, correlation, "
          + "workout, workoutType, duration, totalEnergyBurned, totalDistance, totalSwimmingStrokeCount, "
          + "totalFlightsClimbed, sumQuantity.<type> and the other statistics, the activity key paths, "
          + "workoutActivity.<activity key path>, sum, min, max, average, mostRecent, mostRecentStartDate, "
          + "mostRecentEndDate, count, title, patient_name, author_name, custodian_name for CDA documents, and "
          + "isArchived, hasSchedule, medicationConceptIdentifier, status, scheduledDate for medications)",
        offset: offset)
    }
  }

  /// The statistic each iOS 16 statistics key path names, workout (`sumQuantity`) and activity
  /// (`activitySumQuantity`) alike: an activity's statistics are matched by ``SampleFilter/matches(activity:)``.
  static let statisticKinds: [String: WorkoutStatisticKind] = [
    HKPredicateKeyPathWorkoutSumQuantity: .sum, HKPredicateKeyPathWorkoutMinimumQuantity: .minimum,
    HKPredicateKeyPathWorkoutMaximumQuantity: .maximum, HKPredicateKeyPathWorkoutAverageQuantity: .average,
    HKPredicateKeyPathWorkoutActivitySumQuantity: .sum, HKPredicateKeyPathWorkoutActivityMinimumQuantity: .minimum,
    HKPredicateKeyPathWorkoutActivityMaximumQuantity: .maximum,
    HKPredicateKeyPathWorkoutActivityAverageQuantity: .average,
  ]

  /// `path op value`.
  static func condition(_ path: [String], at offset: Int, _ op: ComparisonOperator, _ value: Value) throws(Failure)
    -> SampleFilter
  {
    func equality(_ filter: SampleFilter) throws(Failure) -> SampleFilter {
      switch op {
      case .equalTo: return filter
      case .notEqualTo: return .not(filter)
      default: throw Failure(message: "\(path.joined(separator: ".")) compares only with == and !=", offset: offset)
      }
    }
    func mismatch(_ expected: String) -> Failure {
      Failure(
        message: "\(path.joined(separator: ".")) compares with \(expected), not \(describe(value))", offset: offset)
    }
    switch try subject(path, at: offset) {
    case .date(let field):
      guard case .date(let date) = value else { throw mismatch("a date") }
      let range: DateRange? =
        switch (field, op) {
        case (.start, .greaterThanOrEqualTo): DateRange(start: date, end: nil, options: .strictStartDate)
        case (.start, .lessThan): DateRange(start: nil, end: date, options: [])
        case (.end, .greaterThanOrEqualTo): DateRange(start: date, end: nil, options: [])
        case (.end, .lessThanOrEqualTo): DateRange(start: nil, end: date, options: .strictEndDate)
        default: nil
        }
      return range.map { .dates($0) } ?? .date(field, op, date.timeIntervalSinceReferenceDate)
    case .uuid:
      guard case .uuid(let uuid) = value else { throw mismatch("a UUID") }
      return try equality(.uuids([uuid]))
    case .source:
      guard case .source(let bundle) = value else { throw mismatch("an HKSource") }
      return try equality(.sources([bundle]))
    case .bundleIdentifier:
      guard case .string(let bundle) = value else { throw mismatch("a string") }
      return try equality(.sources([bundle]))
    case .metadata(let key):
      if case .null = value {
        return try equality(.not(.metadata(key: key, .exists)))
      }
      guard let converted = metadataValue(value) else { throw mismatch("a number, string, date or HKQuantity") }
      return .metadata(key: key, .compare(op, converted))
    case .quantity:
      guard case .quantity(let quantity) = value, quantity.unit.parsed != nil else { throw mismatch("an HKQuantity") }
      return .quantity(op, quantity.value, unit: quantity.unit.unitString)
    case .categoryValue:
      // An NSNumber 0 or 1 reads as a Boolean on Linux (`as? Bool` takes it): a category value compares as 0 or 1.
      switch value {
      case .number(let number): return .value(op, number)
      case .bool(let flag): return .value(op, flag ? 1 : 0)
      default: throw mismatch("a number")
      }
    case .device(let property):
      guard case .string(let text) = value else { throw mismatch("a string") }
      return try equality(.device(property, [text]))
    case .correlation:
      guard case .null = value else { throw mismatch("nil") }
      return try equality(.notInCorrelation)
    case .workout:
      guard case .uuid(let uuid) = value else { throw mismatch("an HKWorkout or its UUID") }
      return try equality(.associatedWith(uuid))
    case .workoutType:
      guard case .number(let raw) = value, raw >= 0, raw == raw.rounded() else {
        throw mismatch("an HKWorkoutActivityType raw value")
      }
      return try equality(.workoutActivityType([UInt(raw)]))
    case .workoutDuration:
      guard case .number(let seconds) = value else { throw mismatch("a number of seconds") }
      return .workoutDuration(op, seconds)
    case .workoutTotal(let names):
      guard case .quantity(let quantity) = value else { throw mismatch("an HKQuantity") }
      let parts = names.compactMap { name -> SampleFilter? in
        guard let type = SampleType.lookup(name: name),
          let unit = HKQuantityType(HKQuantityTypeIdentifier(type.identifier)).canonicalUnit,
          quantity.is(compatibleWith: unit)
        else { return nil }
        return .workoutStatistic(type, .sum, op, quantity.doubleValue(for: unit))
      }
      guard !parts.isEmpty else { throw mismatch("an HKQuantity of the total's dimension") }
      return parts.count == 1 ? parts[0] : .or(parts)
    case .workoutStatistic(let kind, let type):
      // A plain number is in the type's canonical unit, as the factories' predicateFormat prints it.
      if case .number(let canonical) = value { return .workoutStatistic(type, kind, op, canonical) }
      guard case .quantity(let quantity) = value,
        let unit = HKQuantityType(HKQuantityTypeIdentifier(type.identifier)).canonicalUnit,
        quantity.is(compatibleWith: unit)
      else { throw mismatch("an HKQuantity of \(type.name)'s dimension") }
      return .workoutStatistic(type, kind, op, quantity.doubleValue(for: unit))
    case .workoutActivity(let rest):
      return .workoutActivity(try condition(rest, at: offset, op, value))
    case .sampleCount:
      guard case .number(let count) = value else { throw mismatch("a number") }
      return .constant(op.holds(1 < count ? -1 : (1 == count ? 0 : 1)))
    case .cdaField(let field):
      guard case .string(let text) = value else { throw mismatch("a string") }
      return try equality(.cdaField(field, text))
    case .medicationFlag(let archived):
      let flag: Bool
      switch value {
      case .bool(let b): flag = b
      case .number(let n) where n == 0 || n == 1: flag = n == 1
      default: throw mismatch("a Boolean")
      }
      return try equality(.medication(archived ? .archived(flag) : .hasSchedule(flag)))
    case .medicationConcept:
      guard case .string(let concept) = value else { throw mismatch("an HKHealthConceptIdentifier") }
      return try equality(.medication(.concepts([concept])))
    case .doseStatus:
      guard case .number(let raw) = value, raw == raw.rounded(), raw.magnitude < 2_147_483_648 else {
        throw mismatch("a LogStatus raw value")
      }
      return try equality(.medication(.statuses([Int(raw)])))
    case .scheduledDate:
      guard case .date(let date) = value else { throw mismatch("a date") }
      let instant = date.timeIntervalSinceReferenceDate
      switch op {
      case .equalTo: return .medication(.scheduledDates([instant]))
      case .notEqualTo: return .not(.medication(.scheduledDates([instant])))
      case .greaterThanOrEqualTo: return .medication(.scheduledRange(start: instant, end: nil))
      case .lessThan: return .medication(.scheduledRange(start: nil, end: instant))
      default: throw Failure(message: "scheduledDate compares with ==, !=, >= and <", offset: offset)
      }
    }
  }

  /// `path IN collection`.
  static func membership(_ path: [String], at offset: Int, _ value: Value) throws(Failure) -> SampleFilter {
    guard case .list(let items) = value else {
      throw Failure(
        message: "IN takes a collection ({…}, an array or a set), not \(describe(value))", offset: offset)
    }
    switch try subject(path, at: offset) {
    case .uuid:
      var uuids = Set<UUID>()
      for item in items {
        guard case .uuid(let u) = item else { throw Failure(message: "IN of UUID takes UUIDs", offset: offset) }
        uuids.insert(u)
      }
      return .uuids(uuids)
    case .source, .bundleIdentifier:
      var bundles = Set<String>()
      for item in items {
        switch item {
        case .source(let b), .string(let b): bundles.insert(b)
        default: throw Failure(message: "IN of sources takes HKSources or bundle identifiers", offset: offset)
        }
      }
      return .sources(bundles)
    case .metadata(let key):
      var values: [MetadataValue] = []
      for item in items {
        guard let v = metadataValue(item) else {
          throw Failure(message: "IN of metadata takes numbers, strings, dates or quantities", offset: offset)
        }
        values.append(v)
      }
      return .metadata(key: key, .oneOf(values))
    case .device(let property):
      var texts = Set<String>()
      for item in items {
        guard case .string(let t) = item else {
          throw Failure(message: "IN of a device property takes strings", offset: offset)
        }
        texts.insert(t)
      }
      return .device(property, texts)
    default:
      return .or(try items.map { item throws(Failure) in try condition(path, at: offset, .equalTo, item) })
    }
  }
}

extension ComparisonOperator {
  /// The operator with its operands swapped (`5 < x` is `x > 5`).
  var mirrored: ComparisonOperator {
    switch self {
    case .lessThan: .greaterThan
    case .lessThanOrEqualTo: .greaterThanOrEqualTo
    case .greaterThan: .lessThan
    case .greaterThanOrEqualTo: .lessThanOrEqualTo
    case .equalTo, .notEqualTo: self
    }
  }
}
