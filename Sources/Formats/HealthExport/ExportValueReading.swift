import FoundationEssentials
import HealthModel

/// Attribute values a record holds: dates, the type, the unit and its conversion, a category constant — each cached
/// by its bytes as written.
extension ExportReader {
  /// The date attribute `index` holds, in seconds since the reference date.
  mutating func date(_ index: Int) throws(ExportError) -> Double {
    let bytes = scanner.value(index)
    guard let seconds = ExportDate.parse(bytes) else {
      throw ExportError(
        .date, at: scanner.valueLocation(index),
        "'\(String(decoding: bytes, as: UTF8.self))' is not a date like 2024-03-01 08:15:00 +0100")
    }
    return seconds
  }

  /// The record type attribute `index` names.
  mutating func typeEntry(_ index: Int) throws(ExportError) -> TypeEntry {
    let bytes = scanner.rawValue(index)
    if let hit = types.find(bytes) { return hit }
    let name = try scanner.string(index)
    // Records hold quantity and category samples: another kind of type (a correlation, a characteristic or an object
    // type under a record's name) is skipped like an unknown one.
    let entry: TypeEntry =
      SampleType.lookup(name: name).flatMap { $0.isQuantity || $0.descriptor.categoryValues != nil ? .known($0) : nil }
      ?? .unknown(name)
    types.insert(scanner.rawValue(index), entry)
    return entry
  }

  /// How the unit attribute `index` converts to `type`'s canonical unit.
  mutating func unitConversion(_ index: Int, type: SampleType) throws(ExportError) -> UnitConversion {
    let raw = scanner.rawValue(index)
    let key = ByteCache<Int>.hash(raw, salt: UInt64(type.code))
    let result: Result<UnitConversion, ExportError>
    if let hit = units.find(raw, hash: key) {
      result = hit
    } else {
      let text = try scanner.string(index)
      let canonical = type.descriptor.canonicalUnit!
      result = Self.resolveUnit(text, type: type, canonical: canonical, at: scanner.valueLocation(index)).map {
        UnitConversion(
          identity: $0.identity, factor: $0.unit.factor, offset: $0.unit.offset, targetFactor: canonical.factor,
          targetOffset: canonical.offset)
      }
      units.insert(scanner.rawValue(index), hash: key, result)
    }
    switch result {
    case .success(let conversion): return conversion
    case .failure(var error):
      error.location = scanner.valueLocation(index)
      throw error
    }
  }

  /// A unit string of an export, as HealthKit would parse it (Apple writes `·` for a product and may group a
  /// denominator in parentheses, `mL/(kg·min)`; both are read as `.` products).
  static func resolveUnit(_ text: String, type: SampleType, canonical: HealthUnit, at location: ExportLocation)
    -> Result<(unit: HealthUnit, identity: Bool), ExportError>
  {
    var unit: HealthUnit
    do { unit = try HealthUnit.cached(text) } catch {
      let normalized = String(text.map { $0 == "·" ? "." : $0 }.filter { $0 != "(" && $0 != ")" })
      if normalized != text, let parsed = try? HealthUnit.cached(normalized) {
        unit = parsed
      } else {
        let common = [
          "count", "count/min", "count/s", "kcal", "Cal", "kJ", "kg", "g", "lb", "mL", "L", "fl_oz_us", "m", "km",
          "mi", "ft", "in", "cm", "s", "ms", "min", "hr", "d", "%", "mmHg", "degC", "degF", "mg/dL", "mmol/L",
        ]
        let suggestion = error.suggestion ?? suggest(text, from: common)
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return .failure(
          ExportError(.unit, at: location, "unknown unit '\(text)': \(error.message)\(hint)"))
      }
    }
    guard unit.isCompatible(with: canonical) else {
      return .failure(
        ExportError(
          .unit, at: location,
          "unit '\(text)' cannot express \(type.identifier) (its values are in units like '\(canonical)')"))
    }
    return .success((unit, unit == canonical))
  }

  /// The value of `type`'s category constant attribute `index` holds.
  mutating func categoryValue(_ index: Int, type: SampleType) throws(ExportError) -> Int {
    let raw = scanner.rawValue(index)
    let key = ByteCache<Int>.hash(raw, salt: UInt64(type.code))
    let value: Int?
    if let hit = categories.find(raw, hash: key) {
      value = hit
    } else {
      value = CategoryNames.value(for: type, constant: try scanner.string(index))
      categories.insert(scanner.rawValue(index), hash: key, value)
    }
    guard let value else {
      let text = try scanner.string(index)
      let valid = (type.descriptor.categoryValues ?? []).map { CategoryNames.constant(for: type, value: $0.value) }
      let hint = suggest(text, from: valid).map { " (did you mean '\($0)'?)" } ?? ""
      throw ExportError(
        .value, at: scanner.valueLocation(index),
        "'\(text)' is not a value of \(type.identifier)\(hint); it takes \(valid.joined(separator: ", "))")
    }
    return value
  }
}
