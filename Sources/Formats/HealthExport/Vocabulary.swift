import FoundationEssentials
import HealthModel

/// How exports name category values: Apple writes the constant's name (`HKCategoryValueSleepAnalysisAsleepCore`,
/// `HKCategoryValueNotApplicable`), which is `HKCategoryValue`, the value enumeration's name, then the case.
///
/// The enumeration is derived from the catalog: `HKCategoryValueNotApplicable` for a type whose only value is
/// `notApplicable`, `Severity` for symptom types (mild, moderate, severe …), `Presence` for present/not present,
/// otherwise the type's identifier without `HKCategoryTypeIdentifier`. Reading matches the longest case name the
/// constant ends with, so a name written under another enumeration still reads; a bare integer is read as the raw
/// value, and iOS 15's `…SleepAnalysisAsleep` as `asleepUnspecified` (the same raw value, 1).
package enum CategoryNames {
  /// The constant name of a category value, as exports write it.
  package static func constant(for type: SampleType, value: Int) -> String {
    guard let values = type.descriptor.categoryValues, let name = values.first(where: { $0.value == value })?.name
    else { return String(value) }
    let names = Set(values.map(\.name))
    if names == ["notApplicable"] { return "HKCategoryValueNotApplicable" }
    let enumeration: String
    if names.contains("mild"), names.isSubset(of: ["unspecified", "notPresent", "mild", "moderate", "severe"]) {
      enumeration = "Severity"
    } else if names == ["present", "notPresent"] {
      enumeration = "Presence"
    } else {
      enumeration = String(type.identifier.trimmingPrefix("HKCategoryTypeIdentifier"))
    }
    return "HKCategoryValue" + enumeration + capitalized(name)
  }

  /// The raw value a constant name (or a bare integer) stands for, if it is one of the type's values.
  package static func value(for type: SampleType, constant text: String) -> Int? {
    guard let values = type.descriptor.categoryValues else { return nil }
    if let raw = Int(text) { return values.contains { $0.value == raw } ? raw : nil }
    guard text.hasPrefix("HKCategoryValue") else { return nil }
    let rest = text.dropFirst("HKCategoryValue".count)
    var best: (value: Int, length: Int)?
    for (value, name) in values {
      let suffix = capitalized(name)
      if rest.hasSuffix(suffix), suffix.count > (best?.length ?? 0) { best = (value, suffix.count) }
    }
    if let best { return best.value }
    if rest.hasSuffix("Asleep"), let unspecified = values.first(where: { $0.name == "asleepUnspecified" }) {
      return unspecified.value
    }
    return nil
  }

  private static func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }
}

/// How the `Me` element names characteristics: one attribute per characteristic type, named by its identifier
/// (`HKCharacteristicTypeIdentifierBloodType`), whose value is the enumeration constant's name (`HKBloodTypeONegative`,
/// `HKBiologicalSexFemale`, `HKFitzpatrickSkinTypeIII`; `…NotSet` or empty when the user set none) or, for the date
/// of birth, `YYYY-MM-DD` (empty when not set). The enumeration is the identifier without
/// `HKCharacteristicTypeIdentifier`, after `HK`; the case is the catalog's name with its leading lower-case letters
/// capitalized — all of them for the blood groups (`abNegative` is `ABNegative`), the first otherwise.
package enum CharacteristicNames {
  /// The attribute value a characteristic's value is written as; nil is not set.
  package static func text(for type: SampleType, value: CharacteristicValue?) -> String {
    switch value {
    case .dateOfBirth?: return value!.description
    case .value(let raw)?:
      guard let name = type.descriptor.characteristicValues?.first(where: { $0.value == raw })?.name else {
        return String(raw)
      }
      return enumeration(of: type) + capitalized(name)
    case nil:
      return type.descriptor.characteristicValues?.isEmpty == false ? enumeration(of: type) + "NotSet" : ""
    }
  }

  /// Reads an attribute value: `.some(nil)` when it says not set, nil when it is not a value of the type.
  package static func value(for type: SampleType, text: String) -> CharacteristicValue?? {
    guard let values = type.descriptor.characteristicValues else { return nil }
    if text.isEmpty { return .some(nil) }
    if values.isEmpty { return CharacteristicValue.parse(text, for: type).map { .some($0) } }
    let prefix = enumeration(of: type)
    guard text.hasPrefix(prefix) else { return nil }
    let name = text.dropFirst(prefix.count).lowercased()
    if name == "notset" { return .some(nil) }
    return values.first { $0.name.lowercased() == name }.map { .some(.value($0.value)) }
  }

  /// The constants a type's values are written as, for a suggestion.
  package static func constants(for type: SampleType) -> [String] {
    guard let values = type.descriptor.characteristicValues else { return [] }
    return values.isEmpty
      ? [] : [enumeration(of: type) + "NotSet"] + values.map { enumeration(of: type) + capitalized($0.name) }
  }

  /// `HKBloodType` for `HKCharacteristicTypeIdentifierBloodType`.
  private static func enumeration(of type: SampleType) -> String {
    "HK" + type.identifier.trimmingPrefix("HKCharacteristicTypeIdentifier")
  }

  /// `ABNegative` for `abNegative`, `Female` for `female`, `III` for `III`.
  private static func capitalized(_ name: String) -> String {
    let lower = name.prefix { $0.isLowercase }
    if lower.count <= 2, lower.count < name.count { return lower.uppercased() + name.dropFirst(lower.count) }
    return name.prefix(1).uppercased() + name.dropFirst()
  }
}

/// Metadata values in an export are text; this is how they become typed values again (a HealthPair model: the
/// export does not say which type a value had).
///
/// Keys HealthKit documents as Booleans (`HKWasUserEntered`, `HKMenstrualCycleStart`, …) are read as Booleans (`1`
/// or `0`); keys documented as strings (`HKTimeZone`, `HKExternalUUID`, `HKMetadataKeySyncIdentifier`, …) stay
/// strings. Any other value is an integer when it is one, a number when it is one, a quantity when it is a number,
/// a space and a unit HealthKit parses (`73.4 degF`), a date when it is written like the export's dates, and a
/// string otherwise. Writing does the reverse, so exporting and importing gives back the same typed values —
/// except that a string that looks like a number, under a key not listed here, comes back as a number.
package enum MetadataText {
  /// Keys read as Booleans.
  package static let booleanKeys: Set<String> = [
    "HKWasUserEntered", "HKMenstrualCycleStart", "HKSexualActivityProtectionUsed", "HKIndoorWorkout",
    "HKCoachedWorkout", "HKWasTakenInLab", "HKAppleDeviceCalibrated", "HKMetadataKeyAppleFitnessPlusSession",
  ]
  /// Keys kept as strings whatever they hold.
  package static let stringKeys: Set<String> = [
    "HKTimeZone", "HKExternalUUID", "HKMetadataKeySyncIdentifier", "HKFoodType", "HKDeviceSerialNumber",
    "HKUDIDeviceIdentifier", "HKDeviceName", "HKDeviceManufacturerName", "HKDigitalSignature", "HKWorkoutBrandName",
    "HKLapLength", "HKReferenceRangeLowerLimit", "HKReferenceRangeUpperLimit",
  ]

  /// The typed value of a metadata entry.
  package static func value(key: String, text: String) -> MetadataValue {
    if booleanKeys.contains(key) {
      if text == "1" || text.lowercased() == "true" { return .bool(true) }
      if text == "0" || text.lowercased() == "false" { return .bool(false) }
    }
    if stringKeys.contains(key) { return .string(text) }
    if let integer = Int64(text), !text.hasPrefix("+") { return .int(integer) }
    if let number = ExportNumber.parse(text) { return .double(number) }
    if let space = text.firstIndex(of: " "), let number = ExportNumber.parse(String(text[..<space])) {
      let unit = String(text[text.index(after: space)...])
      if (try? HealthUnit.cached(unit)) != nil { return .quantity(number, unit: unit) }
    }
    if let seconds = ExportDate.parse(text) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
    return .string(text)
  }

  /// The text of a metadata value, as it is written to an export (read back by ``value(key:text:)``).
  package static func text(_ value: MetadataValue) -> String {
    switch value {
    case .string(let s): return s
    case .bool(let b): return b ? "1" : "0"
    case .int(let i): return String(i)
    case .double(let d):
      // A whole number keeps a point, so it reads back as a number rather than an integer.
      let text = ExportNumber.format(d)
      return text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) ? text : text + ".0"
    case .date(let d): return ExportDate.format(d.timeIntervalSinceReferenceDate)
    case .quantity(let v, let unit): return ExportNumber.format(v) + " " + unit
    }
  }
}

/// The unit an export writes a type's values in: the canonical unit, except `count/min` for rates HealthKit keeps
/// per second (heart rate) — what the Health app shows and Apple's exports use.
package enum ExportUnits {
  /// The unit string for `type`'s values.
  package static func preferred(for type: SampleType) -> String? {
    guard let canonical = type.descriptor.canonicalUnit else { return nil }
    let text = canonical.description
    return text == "count/s" ? "count/min" : text
  }
}
