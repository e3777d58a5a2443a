import FoundationEssentials

/// The latest end date HealthPair accepts (`NSDate.distantFuture` is refused by HealthKit).
package let latestSampleDate = Date(timeIntervalSince1970: 32_503_680_000)  // 3000-01-01
/// The earliest start date HealthPair accepts.
package let earliestSampleDate = Date(timeIntervalSince1970: -62_135_769_600)  // 0001-01-01 (Julian): distantPast
/// The largest magnitude a quantity may have in its type's canonical unit (HealthPair model, docs/behavior.md D9).
///
/// Far below `Double.greatestFiniteMagnitude`, so sums and time-weighted averages over any store stay finite:
/// 1e250 × the longest interval (~1e11 s) × far more samples than fit in memory is still below 1e300.
package let largestQuantityMagnitude = 1e250

extension SampleInput {
  /// Checks the object the way HealthKit's initializers and `save` do, and converts it to a stored sample.
  ///
  /// Construction-time violations (dates out of order, an incompatible unit, an invalid category value, a missing
  /// required metadata key) raise exceptions on a device, so they come back as `wouldTerminate` errors. Values the
  /// object can hold but the store cannot (a quantity beyond ``largestQuantityMagnitude`` in the canonical unit, a
  /// non-finite or unparsable metadata value) fail `save` with `errorInvalidArgument`, after those checks.
  /// - Throws: ``HealthError`` describing the first violation.
  package func validated(source: SampleSource) throws(HealthError) -> Sample {
    let descriptor = type.descriptor
    guard start.timeIntervalSinceReferenceDate.isFinite, end.timeIntervalSinceReferenceDate.isFinite else {
      throw .invalidArgumentException("sample dates must be finite")
    }
    guard start <= end else {
      throw .invalidArgumentException(
        "startDate (\(formatDate(start))) must be equal to or earlier than endDate (\(formatDate(end)))")
    }
    guard end < latestSampleDate else {
      throw .validationException("Type HKSample can not have endDate of NSDate.distantFuture")
    }
    guard start >= earliestSampleDate else {
      throw .validationException(
        "Type HKSample can not have startDate before 0001-01-01 (was \(start.timeIntervalSince1970) s since 1970)")
    }
    if !descriptor.isCorrelation { try descriptor.checkDuration(start, end) }
    let stored: SampleValue
    var outOfRange: HealthError?
    switch (descriptor.kind, value) {
    case (.correlation, _):
      throw .healthKit(
        .errorInvalidArgument, "HealthPair does not store correlation objects (\(descriptor.identifier))")
    case (.characteristic, _):
      // HKCharacteristicType is not an HKSampleType: no sample initializer accepts one (behavior.md C1).
      throw .invalidArgumentException(
        "\(descriptor.identifier) is a characteristic type, not a sample type: its value is set by the user in the "
          + "Health app and cannot be saved as a sample")
    case (.object, _):
      throw .healthKit(
        .errorInvalidArgument, "HealthPair does not store objects of type \(descriptor.identifier)")
    case (.quantity(let canonical, _), .quantity(let amount, let unitText)):
      let unit: HealthUnit
      do { unit = try HealthUnit.cached(unitText) } catch {
        throw .invalidArgumentException("Unable to parse unit string '\(unitText)': \(error)")
      }
      let canonicalUnit = descriptor.canonicalUnit!
      _ = canonical
      guard unit.isCompatible(with: canonicalUnit) else {
        throw .invalidArgumentException(
          "Attempt to create a quantity sample of type \(descriptor.identifier) with incompatible unit '\(unit)' "
            + "(expected a unit compatible with '\(canonical)')")
      }
      guard amount.isFinite else { throw .invalidArgumentException("quantity value must be finite (was \(amount))") }
      // Checked after the conversion: a finite amount can overflow in the canonical unit (1e308 L is inf mL).
      // The object is valid on a device, so this is a `save` error, raised after the construction checks below.
      let converted = (try? unit.convert(amount, to: canonicalUnit)) ?? .nan
      if !converted.isFinite || abs(converted) > largestQuantityMagnitude {
        outOfRange = .healthKit(
          .errorInvalidArgument,
          "Quantity \(formatNumber(amount)) \(unitText) is out of range for \(descriptor.identifier): it is "
            + "\(formatNumber(converted)) \(canonical), beyond the largest magnitude 1e250 \(canonical)")
      }
      stored = .quantity(converted)
    case (.category(let values), .category(let raw)):
      guard values.contains(where: { $0.value == raw }) else {
        throw .validationException("Value \(raw) is not compatible with type \(descriptor.identifier)")
      }
      stored = .category(raw)
    case (.quantity, .category):
      throw .invalidArgumentException("\(descriptor.identifier) is a quantity type: a category sample cannot use it")
    case (.category, .quantity):
      throw .invalidArgumentException("\(descriptor.identifier) is a category type: a quantity sample cannot use it")
    }
    for key in descriptor.requiredMetadata where metadata[key] == nil {
      let required = descriptor.requiredMetadata.map { MetadataKey.constantName(of: $0) }.joined(separator: ", ")
      throw .validationException(
        "Type \(descriptor.identifier) is missing a required metadata key (required keys: \(required))")
    }
    if metadata[MetadataKey.syncVersion] != nil, metadata[MetadataKey.syncIdentifier] == nil {
      throw .validationException(
        "HKMetadataKeySyncVersion may not be provided if HKMetadataKeySyncIdentifier is not provided in the metadata")
    }
    // Apple: "If you add this key [the sync identifier] to an object's metadata, you must also add the
    // HKMetadataKeySyncVersion key"; the identifier is a string and the version a number.
    if let identifier = metadata[MetadataKey.syncIdentifier] {
      guard case .string = identifier else {
        throw .validationException("HKMetadataKeySyncIdentifier must be a string")
      }
      switch metadata[MetadataKey.syncVersion] {
      case .int?, .double?: break
      case nil:
        throw .validationException(
          "HKMetadataKeySyncVersion must be provided if HKMetadataKeySyncIdentifier is provided in the metadata")
      default: throw .validationException("HKMetadataKeySyncVersion must be a number")
      }
    }
    if let outOfRange { throw outOfRange }
    try metadata.checkValues()
    return Sample(uuid: uuid, type: type, value: stored, start: start, end: end, metadata: metadata, source: source)
  }
}

extension Dictionary where Key == String, Value == MetadataValue {
  /// Checks every value as `save` does: numbers, dates and quantities must be finite, and a quantity's unit
  /// must be one HKUnit parses. Keys are checked in sorted order, so the error names the same key every time.
  /// - Throws: ``HealthError`` with `errorInvalidArgument`, naming the key and the value.
  package func checkValues() throws(HealthError) {
    if isEmpty { return }  // most objects carry none
    for key in keys.sorted() {
      let value = self[key]!
      switch value {
      case .string, .bool, .int: continue
      case .double(let d) where d.isFinite: continue
      case .date(let d) where d.timeIntervalSinceReferenceDate.isFinite: continue
      case .quantity(let v, let unit) where v.isFinite:
        do { _ = try HealthUnit.cached(unit) } catch {
          throw .healthKit(
            .errorInvalidArgument,
            "Invalid value for metadata key: \(key). Unable to parse unit string '\(unit)': \(error)")
        }
      case .double, .date, .quantity:
        throw .healthKit(
          .errorInvalidArgument,
          "Invalid value \(value) for metadata key: \(key). Numbers, dates and quantities must be finite")
      }
    }
  }
}

extension MetadataKey {
  /// The Swift constant name for a key string (`HKMenstrualCycleStart` → `HKMetadataKeyMenstrualCycleStart`).
  package static func constantName(of key: String) -> String {
    byConstantName.first(where: { $0.value == key })?.key ?? key
  }
}

extension Sample {
  /// Checks a sample already in stored form (its quantity in the type's canonical unit) the way
  /// ``SampleInput/validated(source:)`` checks an app's object, with the same messages: finite, ordered dates within
  /// the range a sample may carry, a value of the type's kind (a finite quantity no larger than
  /// ``largestQuantityMagnitude``, or one of the type's category values), the required metadata keys, the sync
  /// identifier rules and finite, parsable metadata values. Imports use it: it converts nothing and reads the
  /// catalog through tables built once, so checking millions of samples costs a few comparisons each.
  /// - Throws: ``HealthError`` describing the first violation.
  package func check() throws(HealthError) {
    let startSeconds = start.timeIntervalSinceReferenceDate
    let endSeconds = end.timeIntervalSinceReferenceDate
    guard startSeconds.isFinite, endSeconds.isFinite else {
      throw .invalidArgumentException("sample dates must be finite")
    }
    guard start <= end else {
      throw .invalidArgumentException(
        "startDate (\(formatDate(start))) must be equal to or earlier than endDate (\(formatDate(end)))")
    }
    guard end < latestSampleDate else {
      throw .validationException("Type HKSample can not have endDate of NSDate.distantFuture")
    }
    guard start >= earliestSampleDate else {
      throw .validationException(
        "Type HKSample can not have startDate before 0001-01-01 (was \(start.timeIntervalSince1970) s since 1970)")
    }
    let tables = CheckTables.shared
    let code = Int(type.code)
    switch value {
    case .quantity(let amount):
      guard type.isQuantity else { throw checkFailure(amount: amount, raw: nil) }
      guard amount.isFinite, abs(amount) <= largestQuantityMagnitude else {
        throw checkFailure(amount: amount, raw: nil)
      }
    case .category(let raw):
      guard code < tables.categoryValues.count, let values = tables.categoryValues[code], values.contains(raw) else {
        throw checkFailure(amount: nil, raw: raw)
      }
    }
    if code < tables.requiredMetadata.count, let required = tables.requiredMetadata[code] {
      for key in required where metadata[key] == nil {
        let names = required.map { MetadataKey.constantName(of: $0) }.joined(separator: ", ")
        throw .validationException(
          "Type \(type.identifier) is missing a required metadata key (required keys: \(names))")
      }
    }
    if metadata.isEmpty { return }
    if metadata[MetadataKey.syncVersion] != nil, metadata[MetadataKey.syncIdentifier] == nil {
      throw .validationException(
        "HKMetadataKeySyncVersion may not be provided if HKMetadataKeySyncIdentifier is not provided in the metadata")
    }
    if let identifier = metadata[MetadataKey.syncIdentifier] {
      guard case .string = identifier else {
        throw .validationException("HKMetadataKeySyncIdentifier must be a string")
      }
      switch metadata[MetadataKey.syncVersion] {
      case .int?, .double?: break
      case nil:
        throw .validationException(
          "HKMetadataKeySyncVersion must be provided if HKMetadataKeySyncIdentifier is provided in the metadata")
      default: throw .validationException("HKMetadataKeySyncVersion must be a number")
      }
    }
    try metadata.checkValues()
  }

  /// The error for a value the type does not take (built from the catalog entry: the slow path).
  private func checkFailure(amount: Double?, raw: Int?) -> HealthError {
    let descriptor = type.descriptor
    switch descriptor.kind {
    case .correlation:
      return .healthKit(
        .errorInvalidArgument, "HealthPair does not store correlation objects (\(descriptor.identifier))")
    case .characteristic:
      return .invalidArgumentException(
        "\(descriptor.identifier) is a characteristic type, not a sample type: its value is set by the user in the "
          + "Health app and cannot be saved as a sample")
    case .object:
      return .healthKit(.errorInvalidArgument, "HealthPair does not store objects of type \(descriptor.identifier)")
    case .quantity(let canonical, _):
      guard let amount else {
        return .invalidArgumentException(
          "\(descriptor.identifier) is a quantity type: a category sample cannot use it")
      }
      return .healthKit(
        .errorInvalidArgument,
        "Quantity \(formatNumber(amount)) \(canonical) is out of range for \(descriptor.identifier): the largest "
          + "magnitude is 1e250 \(canonical)")
    case .category:
      guard let raw else {
        return .invalidArgumentException(
          "\(descriptor.identifier) is a category type: a quantity sample cannot use it")
      }
      return .validationException("Value \(raw) is not compatible with type \(descriptor.identifier)")
    }
  }
}

/// The parts of the catalog ``Sample/check()`` reads, by type code, built once.
private struct CheckTables: Sendable {
  /// Valid category values (nil: not a category type).
  let categoryValues: [Set<Int>?]
  /// Required metadata keys (nil: none).
  let requiredMetadata: [[String]?]

  static let shared: CheckTables = {
    let size = Int(SampleType.catalog.map(\.code).max() ?? 0) + 1
    var values = [Set<Int>?](repeating: nil, count: size)
    var required = [[String]?](repeating: nil, count: size)
    for entry in SampleType.catalog {
      if let categoryValues = entry.categoryValues { values[Int(entry.code)] = Set(categoryValues.map(\.value)) }
      if !entry.requiredMetadata.isEmpty { required[Int(entry.code)] = entry.requiredMetadata }
    }
    return CheckTables(categoryValues: values, requiredMetadata: required)
  }()
}
