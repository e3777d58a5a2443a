import FoundationEssentials

/// A metadata value, as HealthKit allows them: string, number, date or quantity.
package enum MetadataValue: Hashable, Sendable, CustomStringConvertible {
  /// A string.
  case string(String)
  /// A Boolean (`NSNumber` holding a Bool).
  case bool(Bool)
  /// An integer number.
  case int(Int64)
  /// A floating-point number.
  case double(Double)
  /// A date.
  case date(Date)
  /// A quantity with its unit string.
  case quantity(Double, unit: String)

  /// A compact rendering (`true`, `42`, `"text"`, `250 mL`).
  package var description: String {
    switch self {
    case .string(let s): "\"\(s)\""
    case .bool(let b): b ? "true" : "false"
    case .int(let i): String(i)
    case .double(let d): formatNumber(d)
    case .date(let d): formatDate(d)
    case .quantity(let v, let u): "\(formatNumber(v)) \(u)"
    }
  }
}

/// Metadata attached to a sample, keyed by HealthKit metadata key strings.
package typealias Metadata = [String: MetadataValue]

/// Who saved a sample: the app's bundle identifier and the device it was saved on, and — for samples imported from
/// an Apple Health export — the source's name, version and hardware as the export recorded them.
package struct SampleSource: Hashable, Sendable, CustomStringConvertible {
  /// The saving app's bundle identifier.
  package var bundleID: String
  /// The device the sample was saved on.
  package var device: DeviceKind
  /// What an export said about the source (nil for samples apps saved through the simulator).
  package var details: SourceDetails?

  /// Creates a source.
  package init(bundleID: String, device: DeviceKind, details: SourceDetails? = nil) {
    self.bundleID = bundleID
    self.device = device
    self.details = details
  }

  /// Whether the source is one of Apple's own (the Health app, an iPhone or an Apple Watch): its bundle identifier
  /// is in Apple's `com.apple.` namespace.
  package var isApple: Bool { bundleID.hasPrefix("com.apple.") }

  /// `bundle@device`.
  package var description: String { "\(bundleID)@\(device)" }
}

/// The value a sample carries: a quantity in the type's canonical unit, or a category value.
package enum SampleValue: Hashable, Sendable {
  /// A quantity, already converted to the type's canonical unit.
  case quantity(Double)
  /// A category value.
  case category(Int)
}

/// A stored health sample: one quantity or category reading over a time interval.
package struct Sample: Hashable, Sendable {
  /// The sample's identifier, chosen by the app when it created the object.
  package var uuid: UUID
  /// The object type.
  package var type: SampleType
  /// The value, in the type's canonical unit for quantities.
  package var value: SampleValue
  /// Start of the interval.
  package var start: Date
  /// End of the interval (equal to `start` for instantaneous samples).
  package var end: Date
  /// Metadata, preserved as saved.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates a sample.
  package init(
    uuid: UUID, type: SampleType, value: SampleValue, start: Date, end: Date, metadata: Metadata = [:],
    source: SampleSource
  ) {
    self.uuid = uuid
    self.type = type
    self.value = value
    self.start = start
    self.end = end
    self.metadata = metadata
    self.source = source
  }

  /// The quantity value in the canonical unit, or nil for category samples.
  package var quantityValue: Double? {
    if case .quantity(let v) = value { return v }
    return nil
  }

  /// The category value, or nil for quantity samples.
  package var categoryValue: Int? {
    if case .category(let v) = value { return v }
    return nil
  }

  /// The interval's length in seconds.
  package var duration: Double { end.timeIntervalSince(start) }
}

/// A sample as an app hands it to `save`: the value still in the unit the app chose.
package struct SampleInput: Hashable, Sendable {
  /// The value as given by the app.
  package enum Value: Hashable, Sendable {
    /// A quantity in the given unit string.
    case quantity(Double, unit: String)
    /// A category value.
    case category(Int)
  }

  /// The identifier the app's object carries.
  package var uuid: UUID
  /// The object type.
  package var type: SampleType
  /// The value as given.
  package var value: Value
  /// Start of the interval.
  package var start: Date
  /// End of the interval.
  package var end: Date
  /// Metadata.
  package var metadata: Metadata

  /// Creates an input sample.
  package init(uuid: UUID, type: SampleType, value: Value, start: Date, end: Date, metadata: Metadata = [:]) {
    self.uuid = uuid
    self.type = type
    self.value = value
    self.start = start
    self.end = end
    self.metadata = metadata
  }
}

/// A record that a sample was deleted (HealthKit's `HKDeletedObject`), kept for anchored queries and sync.
package struct Tombstone: Hashable, Sendable {
  /// The deleted sample's identifier.
  package var uuid: UUID
  /// The deleted sample's type.
  package var type: SampleType
  /// Who saved the deleted sample (decides which apps may see the deletion).
  package var source: SampleSource
  /// When it was deleted (device clock).
  package var deletedAt: Date
  /// What `HKDeletedObject.metadata` carries: the deleted object's `HKMetadataKeySyncIdentifier` and
  /// `HKMetadataKeySyncVersion`, when it had them; nothing else (behavior.md D8). Empty for most deletions.
  package var metadata: Metadata

  /// Creates a tombstone; `metadata` is cut to the keys a deleted object keeps (``keptMetadata(_:)``).
  package init(uuid: UUID, type: SampleType, source: SampleSource, deletedAt: Date, metadata: Metadata = [:]) {
    self.uuid = uuid
    self.type = type
    self.source = source
    self.deletedAt = deletedAt
    self.metadata = Self.keptMetadata(metadata)
  }

  /// The keys of a deleted object's metadata HealthKit copies to its `HKDeletedObject`:
  /// `HKMetadataKeySyncIdentifier` and `HKMetadataKeySyncVersion`. "All other metadata is lost" (Apple).
  package static func keptMetadata(_ metadata: Metadata) -> Metadata {
    guard !metadata.isEmpty else { return [:] }
    return metadata.filter { $0.key == MetadataKey.syncIdentifier || $0.key == MetadataKey.syncVersion }
  }
}

/// Formats a number without a trailing `.0` and without exponent for everyday magnitudes.
package func formatNumber(_ value: Double) -> String {
  if value.isNaN { return "nan" }
  if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
  var text = String(value)
  if text.contains("e") { return text }
  // Trim float noise such as 0.30000000000000004 to 12 significant digits.
  let rounded = (value * 1e9).rounded() / 1e9
  if abs(rounded - value) < 1e-12 * max(1, abs(value)) { text = String(rounded) }
  return text
}

/// `value` rounded to `decimals` places and shown as ``formatNumber(_:)`` shows numbers (`12.35`, `10`, never `10.0`):
/// durations and rates in logs, messages and reports.
package func formatNumber(_ value: Double, decimals: Int) -> String {
  guard value.isFinite else { return formatNumber(value) }
  var scale = 1.0
  for _ in 0..<max(0, decimals) { scale *= 10 }
  return formatNumber((value * scale).rounded() / scale)
}

/// `value` with exactly `decimals` digits after the point (`1.500`, `-0.250`): for columns that must line up.
package func formatFixed(_ value: Double, decimals: Int) -> String {
  guard value.isFinite, abs(value) < 1e15 else { return formatNumber(value) }
  var scale: Int64 = 1
  for _ in 0..<max(0, decimals) { scale *= 10 }
  let units = Int64((abs(value) * Double(scale)).rounded())
  let sign = value < 0 && units != 0 ? "-" : ""
  guard decimals > 0 else { return sign + String(units) }
  let fraction = String(units % scale + scale).dropFirst()
  return sign + String(units / scale) + "." + fraction
}

/// Formats a date as ISO 8601 in UTC with seconds (`2026-01-05T08:00:00Z`), fractions only when present. Dates
/// before the Gregorian reform are in the Julian calendar, as Apple's Foundation prints them (`Date.distantPast` is
/// `0001-01-01T00:00:00Z`).
package func formatDate(_ date: Date) -> String {
  let t = date.timeIntervalSince1970
  // Years 0…9999 render; anything else (from hostile input) is shown as a number instead of trapping.
  guard t.isFinite, t > -62_200_000_000, t < 253_402_300_800 else { return "<\(t) s since 1970>" }
  let whole = t.rounded(.down)
  let days = Int64((whole / 86400).rounded(.down))
  let secondsOfDay = Int64(whole) - days * 86400
  let (y, m, d) = displayCivilFromDays(days)
  let hh = secondsOfDay / 3600
  let mm = (secondsOfDay % 3600) / 60
  let ss = secondsOfDay % 60
  func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
  let year = y >= 0 && y < 1000 ? String(String(y + 10000).dropFirst()) : String(y)
  var text = "\(year)-\(two(m))-\(two(d))T\(two(hh)):\(two(mm)):\(two(ss))"
  let fraction = t - whole
  if fraction > 0.0005 {
    let millis = Int64((fraction * 1000).rounded())
    text += "." + String(String(millis + 1000).dropFirst())
  }
  return text + "Z"
}

/// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:MM:SS(.fff)` with optional `Z`, in UTC; a date before the
/// Gregorian reform is read in the Julian calendar, as ``formatDate(_:)`` writes it.
package func parseDate(_ text: String) -> Date? {
  var s = Substring(text)
  if s.hasSuffix("Z") { s = s.dropLast() }
  let parts = s.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
  let dateParts = parts[0].split(separator: "-", omittingEmptySubsequences: false)
  guard dateParts.count == 3, dateParts[0].count == 4, dateParts[1].count == 2, dateParts[2].count == 2,
    let y = Int64(dateParts[0]), let m = Int64(dateParts[1]), let d = Int64(dateParts[2]),
    (0...9999).contains(y), (1...12).contains(m), (1...31).contains(d)
  else { return nil }
  var seconds = 0.0
  if parts.count == 2 {
    let timeParts = parts[1].split(separator: ":", omittingEmptySubsequences: false)
    guard timeParts.count == 2 || timeParts.count == 3, timeParts[0].count == 2, timeParts[1].count == 2,
      let hh = Int(timeParts[0]), let mm = Int(timeParts[1]), hh < 24, mm < 60
    else { return nil }
    var ss = 0.0
    if timeParts.count == 3 {
      guard let v = Double(timeParts[2]), v >= 0, v < 61, timeParts[2].first?.isNumber == true else { return nil }
      ss = v
    }
    seconds = Double(hh * 3600 + mm * 60) + ss
  }
  let days = displayDaysFromCivil(y, m, d)
  return Date(timeIntervalSince1970: Double(days) * 86400 + seconds)
}

// Howard Hinnant's civil-from-days algorithms (proleptic Gregorian calendar, UTC).
/// Days since 1970-01-01 of a proleptic Gregorian date.
package func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
  let y = m <= 2 ? y0 - 1 : y0
  let era = (y >= 0 ? y : y - 399) / 400
  let yoe = y - era * 400
  let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
  let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
  return era * 146097 + doe - 719468
}

/// The proleptic Gregorian (year, month, day) of a day number counted from 1970-01-01.
package func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
  let z = z0 + 719468
  let era = (z >= 0 ? z : z - 146096) / 146097
  let doe = z - era * 146097
  let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
  let y = yoe + era * 400
  let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
  let mp = (5 * doy + 2) / 153
  let d = doy - (153 * mp + 2) / 5 + 1
  let m = mp + (mp < 10 ? 3 : -9)
  return (m <= 2 ? y + 1 : y, m, d)
}

extension Dictionary where Key == String, Value == MetadataValue {
  /// `HKMetadataKeySyncIdentifier`, when present as a string.
  package var syncIdentifier: String? {
    if case .string(let identifier)? = self[MetadataKey.syncIdentifier] { return identifier }
    return nil
  }

  /// `HKMetadataKeySyncVersion` as a number (an NSNumber on devices: integer or floating point), 0 when absent.
  package var syncVersion: Double {
    switch self[MetadataKey.syncVersion] {
    case .int(let v)?: Double(v)
    case .double(let v)?: v
    default: 0
    }
  }
}
