// What the user sets in the Health app rather than what apps save: characteristics (date of birth, biological sex,
// blood type, skin type, wheelchair use, move mode) and the preferred display unit of each quantity type, with the
// locale defaults `preferredUnits(for:)` falls back to (docs/behavior.md C1–C5, R6).

/// The value of a characteristic type, as the user set it in the Health app.
///
/// Not set is the absence of a value (HealthKit's `notSet` cases, raw value 0, are never stored).
package enum CharacteristicValue: Hashable, Sendable, CustomStringConvertible {
  /// A date of birth in the Gregorian calendar (what `dateOfBirthComponents()` returns).
  case dateOfBirth(year: Int, month: Int, day: Int)
  /// An enumeration case with Apple's raw value (`HKBiologicalSex.female` is 1).
  case value(Int)

  /// `1990-04-02`, or the raw value.
  package var description: String {
    switch self {
    case .dateOfBirth(let y, let m, let d): Self.pad(y, 4) + "-" + Self.pad(m, 2) + "-" + Self.pad(d, 2)
    case .value(let raw): "\(raw)"
    }
  }

  private static func pad(_ n: Int, _ width: Int) -> String {
    let digits = String(n)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }

  /// The value as the scenario language and `ctl` write it: `1990-04-02` for a date of birth, the case name
  /// (`female`, `aPositive`, `IV`) for the others.
  package func name(for type: SampleType) -> String {
    switch self {
    case .dateOfBirth: description
    case .value(let raw): type.descriptor.characteristicValues?.first { $0.value == raw }?.name ?? "\(raw)"
    }
  }

  /// Parses `text` as a value of the characteristic `type`: a `YYYY-MM-DD` date for the date of birth, a case name
  /// (or its raw value) for the others. Nil when it is none of them; `notSet` is not a value (it clears one).
  package static func parse(_ text: String, for type: SampleType) -> CharacteristicValue? {
    guard let values = type.descriptor.characteristicValues else { return nil }
    if values.isEmpty {
      let parts = text.split(separator: "-", omittingEmptySubsequences: false)
      guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
        let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
      else { return nil }
      let value = CharacteristicValue.dateOfBirth(year: y, month: m, day: d)
      return (try? value.validated(for: type)) != nil ? value : nil
    }
    if let match = values.first(where: { $0.name.lowercased() == text.lowercased() }) { return .value(match.value) }
    if let raw = Int(text), values.contains(where: { $0.value == raw }) { return .value(raw) }
    return nil
  }

  /// Checks that the value fits `type`: a real Gregorian date from year 1 to 9999 for the date of birth, one of the
  /// type's cases for the others.
  /// - Throws: a simulator ``HealthError`` saying what is wrong.
  @discardableResult
  package func validated(for type: SampleType) throws(HealthError) -> CharacteristicValue {
    guard let values = type.descriptor.characteristicValues else {
      throw .simulator("\(type.name) is not a characteristic type")
    }
    switch self {
    case .dateOfBirth(let y, let m, let d):
      guard values.isEmpty else { throw .simulator("\(type.name) takes a case name, not a date") }
      guard (1...9999).contains(y), (1...12).contains(m), (1...Self.daysIn(month: m, year: y)).contains(d) else {
        throw .simulator("\(description) is not a date of birth: expected a real date, YYYY-MM-DD")
      }
    case .value(let raw):
      guard !values.isEmpty else { throw .simulator("dateOfBirth takes a date (YYYY-MM-DD), not a case") }
      guard values.contains(where: { $0.value == raw }) else {
        throw .simulator(
          "\(raw) is not a value of \(type.name): expected one of "
            + values.map { "\($0.name) (\($0.value))" }.joined(separator: ", "))
      }
    }
    return self
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}

/// Which device setting a user change is about (a key of the values the Health app keeps).
package enum UserSettingKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// A characteristic's value.
  case characteristic(SampleType)
  /// A quantity type's preferred unit.
  case preferredUnit(SampleType)

  /// Characteristics first, then by type.
  package static func < (a: UserSettingKey, b: UserSettingKey) -> Bool {
    switch (a, b) {
    case (.characteristic(let x), .characteristic(let y)), (.preferredUnit(let x), .preferredUnit(let y)): x < y
    case (.characteristic, .preferredUnit): true
    case (.preferredUnit, .characteristic): false
    }
  }

  /// `characteristic dateOfBirth`, `unit bodyMass`.
  package var description: String {
    switch self {
    case .characteristic(let t): "characteristic \(t)"
    case .preferredUnit(let t): "unit \(t)"
    }
  }
}

/// One change the user makes in the Health app: a characteristic set or cleared, a preferred unit chosen or reset to
/// the locale's default. It is journaled and travels to the other device like samples (docs/behavior.md C4, R6).
package enum UserSetting: Hashable, Sendable, CustomStringConvertible {
  /// A characteristic type's value; nil clears it (reads `notSet`).
  case characteristic(SampleType, CharacteristicValue?)
  /// A quantity type's preferred unit (an HKUnit string); nil returns to the locale's default.
  case preferredUnit(SampleType, String?)

  /// What the change is about.
  package var key: UserSettingKey {
    switch self {
    case .characteristic(let t, _): .characteristic(t)
    case .preferredUnit(let t, _): .preferredUnit(t)
    }
  }

  /// `dateOfBirth = 1990-04-02`, `bodyMass unit = lb`, `bloodType = notSet`.
  package var description: String {
    switch self {
    case .characteristic(let t, let v): "\(t) = \(v?.name(for: t) ?? "notSet")"
    case .preferredUnit(let t, let u): "\(t) unit = \(u ?? "default")"
    }
  }
}

/// The locale model that gives each quantity type its default display unit when the user chose none
/// (docs/behavior.md R6): a named, configurable HealthPair model — Apple documents only that the default "is based on
/// the device's current locale" and one example (pounds for body mass in the US).
package enum UnitLocale: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// United States customary units (fl oz, lb, mi, °F, in): the region of a new iOS Simulator, HealthPair's default.
  case us = 0
  /// Metric units (mL, kg, km, °C, cm).
  case metric = 1
  /// The United Kingdom's mix: metric volumes and temperatures, stones for body mass, miles for distances.
  case uk = 2

  /// `us`, `metric` or `uk`.
  package var description: String {
    switch self {
    case .us: "us"
    case .metric: "metric"
    case .uk: "uk"
    }
  }

  /// Parses `us`, `metric` or `uk`.
  package init?(name: String) {
    guard let locale = UnitLocale.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
    self = locale
  }

  /// The default units by type name: (us, metric, uk). Types not listed use their canonical unit everywhere. Names
  /// not (yet) in the catalog are ignored.
  package static let defaults: [String: (us: String, metric: String, uk: String)] = [
    "dietaryWater": ("fl_oz_us", "mL", "mL"),
    "bodyMass": ("lb", "kg", "st"),
    "leanBodyMass": ("lb", "kg", "st"),
    "distanceWalkingRunning": ("mi", "km", "mi"),
    "distanceCycling": ("mi", "km", "mi"),
    "height": ("in", "cm", "cm"),
    "waistCircumference": ("in", "cm", "cm"),
    "bodyTemperature": ("degF", "degC", "degC"),
    "heartRate": ("count/min", "count/min", "count/min"),
    "restingHeartRate": ("count/min", "count/min", "count/min"),
    "walkingHeartRateAverage": ("count/min", "count/min", "count/min"),
  ]

  /// The unit `preferredUnits(for:)` gives `type` when the user chose none: the locale's default from
  /// ``defaults``, else the type's canonical unit. Nil for types that are not quantity types.
  package func defaultUnit(for type: SampleType) -> String? {
    guard let canonical = type.descriptor.canonicalUnit else { return nil }
    guard let row = Self.defaults[type.name] else { return canonical.description }
    switch self {
    case .us: return row.us
    case .metric: return row.metric
    case .uk: return row.uk
    }
  }
}
