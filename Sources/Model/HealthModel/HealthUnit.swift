import Synchronization

/// A physical unit parsed from HealthKit's unit-string grammar (`mL`, `count/min`, `kg/m.s^2`, `degF`).
///
/// Grammar (HKUnit.h):
/// ```
/// unit      := product ( '/' product )*        multiplication binds first; each '/' divides by what follows
/// product   := term ( ('.' | '*' | '·') term )*
/// term      := factor | '(' factor ( ('.' | '*' | '·') factor )* ')'
/// factor    := atom ( '^' '-'? digits )?
/// atom      := prefix? si-symbol | symbol | prefix? 'mol<' molar-mass '>'
/// prefix    := da h k M G T d c m mc n p f
/// ```
/// HealthKit writes its own unit strings with `·` (`mL/min·kg`) and its headers with parentheses (`ml/(kg*min)`);
/// both parse. `mol<180.15588000005408>` is a mole of a substance of that molar mass (grams per mole), so it is a
/// mass: `mmol<180.15588000005408>/L` converts to `mg/dL`.
///
/// A unit reduces to a ``Dimension`` and a factor (and an offset, for `degC` and `degF`) relative to the base
/// units g, m, s, K, count, %, S, IU, dBASPL, appleEffortScore, V, rad, lx, dBHL, D and pD. Two units convert into
/// each other exactly when their dimensions agree (`deg` into `rad`, `mV` into `V`; never `D` into `m^-1`).
package struct HealthUnit: Hashable, Sendable, CustomStringConvertible {
  /// One `prefix symbol ^ power` term of a unit string.
  package struct Component: Hashable, Sendable {
    /// The SI prefix, or "" when none.
    package let prefix: String
    /// The unit symbol (`L`, `count`, `min`).
    package let symbol: String
    /// The integer power; negative powers sit in the denominator.
    package let power: Int

    /// Creates a term; `symbol` must be one the grammar knows and `prefix` one of its SI prefixes (or "").
    package init(prefix: String, symbol: String, power: Int) {
      self.prefix = prefix
      self.symbol = symbol
      self.power = power
    }

    /// Whether `prefix` and `symbol` name a unit the grammar knows.
    package var isValid: Bool {
      guard let known = UnitParser.symbol(named: symbol) else { return false }
      return prefix.isEmpty || (known.prefixable && UnitParser.prefixes[prefix] != nil)
    }
  }

  /// Exponents of the base dimensions a unit measures.
  package struct Dimension: Hashable, Sendable, CustomStringConvertible {
    /// Mass exponent (grams).
    package var mass: Int8 = 0
    /// Length exponent (metres).
    package var length: Int8 = 0
    /// Time exponent (seconds).
    package var time: Int8 = 0
    /// Temperature exponent (kelvin).
    package var temperature: Int8 = 0
    /// Count exponent.
    package var count: Int8 = 0
    /// Percent exponent.
    package var percent: Int8 = 0
    /// Electrical conductance exponent (siemens, `S`): electrodermal activity.
    package var conductance: Int8 = 0
    /// International units exponent (`IU`): insulin. HealthKit converts IU into nothing else.
    package var internationalUnit: Int8 = 0
    /// Sound pressure level exponent (`dBASPL`, a logarithmic scale): audio exposure. HealthPair converts it into
    /// nothing else (HealthKit's `dBASPL` → pascal conversion is logarithmic; see docs/behavior.md T6).
    package var soundPressureLevel: Int8 = 0
    /// Apple effort score exponent (`appleEffortScore`, unitless but its own kind).
    package var effortScore: Int8 = 0
    /// Electric potential difference exponent (volts, `V`): electrocardiogram voltages. A dimension of its own, as
    /// HealthKit's `electricPotentialDifference` (HealthPair has no ampere to reduce it to).
    package var electricPotential: Int8 = 0
    /// Plane angle exponent (radians, `rad`; `deg` is π/180 rad): vision prescription axes.
    package var angle: Int8 = 0
    /// Illuminance exponent (lux, `lx`).
    package var illuminance: Int8 = 0
    /// Hearing level exponent (`dBHL`, a logarithmic scale): audiogram sensitivities. Converts into nothing else.
    package var hearingLevel: Int8 = 0
    /// Lens power exponent (diopters, `D`): vision prescriptions. Its own dimension, as HealthKit's `diopter`.
    package var diopter: Int8 = 0
    /// Prismatic deviation exponent (prism diopters, `pD`): vision prescriptions. Its own dimension, as HealthKit's
    /// `prismDiopter` (not an angle: a prism diopter is 100·tan of one, not proportional to it).
    package var prismDiopter: Int8 = 0

    /// Creates a dimension from exponents.
    package init(
      mass: Int8 = 0, length: Int8 = 0, time: Int8 = 0, temperature: Int8 = 0, count: Int8 = 0, percent: Int8 = 0,
      conductance: Int8 = 0, internationalUnit: Int8 = 0, soundPressureLevel: Int8 = 0, effortScore: Int8 = 0,
      electricPotential: Int8 = 0, angle: Int8 = 0, illuminance: Int8 = 0, hearingLevel: Int8 = 0,
      diopter: Int8 = 0, prismDiopter: Int8 = 0
    ) {
      self.mass = mass
      self.length = length
      self.time = time
      self.temperature = temperature
      self.count = count
      self.percent = percent
      self.conductance = conductance
      self.internationalUnit = internationalUnit
      self.soundPressureLevel = soundPressureLevel
      self.effortScore = effortScore
      self.electricPotential = electricPotential
      self.angle = angle
      self.illuminance = illuminance
      self.hearingLevel = hearingLevel
      self.diopter = diopter
      self.prismDiopter = prismDiopter
    }

    /// Time (seconds, minutes, …).
    package static let duration = Dimension(time: 1)

    /// A readable form such as `mass·length^2·time^-2`.
    package var description: String {
      let parts: [(String, Int8)] = [
        ("mass", mass), ("length", length), ("time", time), ("temperature", temperature), ("count", count),
        ("percent", percent), ("conductance", conductance), ("internationalUnit", internationalUnit),
        ("soundPressureLevel", soundPressureLevel), ("effortScore", effortScore),
        ("electricPotential", electricPotential), ("angle", angle), ("illuminance", illuminance),
        ("hearingLevel", hearingLevel), ("diopter", diopter), ("prismDiopter", prismDiopter),
      ]
      let text = parts.filter { $0.1 != 0 }.map { $0.1 == 1 ? $0.0 : "\($0.0)^\($0.1)" }.joined(separator: "·")
      return text.isEmpty ? "dimensionless" : text
    }

    /// The exponents in a fixed order (mass, length, time, temperature, count, percent, conductance,
    /// international unit, sound pressure level, effort score, electric potential, angle, illuminance, hearing
    /// level, diopter, prism diopter).
    var exponents: [Int] {
      [
        Int(mass), Int(length), Int(time), Int(temperature), Int(count), Int(percent), Int(conductance),
        Int(internationalUnit), Int(soundPressureLevel), Int(effortScore), Int(electricPotential), Int(angle),
        Int(illuminance), Int(hearingLevel), Int(diopter), Int(prismDiopter),
      ]
    }

    /// How many base dimensions there are (the length of ``exponents``).
    static let baseCount = 16

    /// Builds a dimension from exponents summed in `Int`; values beyond `Int8` are clamped (the parser refuses
    /// such units before they get here, see ``UnitError/outOfRange(_:)``).
    fileprivate init(clamping e: [Int]) {
      self.init(
        mass: Int8(clamping: e[0]), length: Int8(clamping: e[1]), time: Int8(clamping: e[2]),
        temperature: Int8(clamping: e[3]), count: Int8(clamping: e[4]), percent: Int8(clamping: e[5]),
        conductance: Int8(clamping: e[6]), internationalUnit: Int8(clamping: e[7]),
        soundPressureLevel: Int8(clamping: e[8]), effortScore: Int8(clamping: e[9]),
        electricPotential: Int8(clamping: e[10]), angle: Int8(clamping: e[11]), illuminance: Int8(clamping: e[12]),
        hearingLevel: Int8(clamping: e[13]), diopter: Int8(clamping: e[14]), prismDiopter: Int8(clamping: e[15]))
    }
  }

  /// The terms, in the order they print.
  package let components: [Component]
  /// What the unit measures.
  package let dimension: Dimension
  /// Multiplier from this unit to the base units.
  package let factor: Double
  /// Offset added after the multiplier (only `degC` and `degF` have one).
  package let offset: Double

  /// Parses a HealthKit unit string.
  /// - Throws: ``UnitError`` naming the offending position when the string is not a unit.
  package init(parsing text: String) throws(UnitError) {
    let parsed = try UnitParser.parse(text)
    self.init(components: parsed)
  }

  /// Parses a unit string, remembering recent results (saves of thousands of samples repeat one unit).
  package static func cached(_ text: String) throws(UnitError) -> HealthUnit {
    if let hit = UnitCache.shared.withLock({ $0[text] }) { return hit }
    let unit = try HealthUnit(parsing: text)
    UnitCache.shared.withLock { cache in
      if cache.count > 256 { cache.removeAll() }
      cache[text] = unit
    }
    return unit
  }

  /// Builds a unit from terms already validated by the parser. Never traps: exponents beyond `Int8` are clamped
  /// and the factor may be 0 or infinite for terms the parser would refuse (``UnitError/outOfRange(_:)``).
  package init(components: [Component]) {
    let reduced = UnitParser.reduce(components)
    self.components = components
    self.dimension = Dimension(clamping: reduced.exponents)
    self.factor = reduced.factor
    self.offset = reduced.offset
  }

  /// The canonical unit string; parsing it gives back an equal unit.
  package var description: String {
    let numerator = components.filter { $0.power > 0 }
    let denominator = components.filter { $0.power < 0 }
    func term(_ c: Component, _ power: Int) -> String {
      power == 1 ? c.prefix + c.symbol : "\(c.prefix)\(c.symbol)^\(power)"
    }
    if numerator.isEmpty {
      return denominator.map { term($0, $0.power) }.joined(separator: ".")
    }
    let top = numerator.map { term($0, $0.power) }.joined(separator: ".")
    if denominator.isEmpty { return top }
    return top + "/" + denominator.map { term($0, -$0.power) }.joined(separator: ".")
  }

  /// Whether values convert between the two units.
  package func isCompatible(with other: HealthUnit) -> Bool { dimension == other.dimension }

  /// Converts a value expressed in this unit into `target`.
  ///
  /// The result is plain floating-point arithmetic, as on a device: a finite value can overflow to ±infinity
  /// (`1e308 L` in `mL`). Callers that store the result check it (``SampleInput/validated(source:)``).
  /// - Throws: ``UnitError/incompatible(from:to:)`` when the dimensions differ.
  package func convert(_ value: Double, to target: HealthUnit) throws(UnitError) -> Double {
    guard isCompatible(with: target) else { throw .incompatible(from: description, to: target.description) }
    if self == target { return value }
    let base = value * factor + offset
    return (base - target.offset) / target.factor
  }

  /// Two units are equal when they print the same.
  package static func == (a: HealthUnit, b: HealthUnit) -> Bool { a.components == b.components }
  /// Hashes the printed form.
  package func hash(into hasher: inout Hasher) { hasher.combine(components) }
}

/// Why a unit string could not be parsed or a conversion could not be made.
package enum UnitError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The string is empty.
  case empty
  /// A symbol is not one HealthKit knows; `offset` is the character offset in the string.
  case unknownSymbol(String, offset: Int)
  /// A power after `^` is not an integer.
  case invalidPower(String, offset: Int)
  /// An operator is not followed by a term.
  case missingTerm(offset: Int)
  /// `degC`/`degF` combined with other terms or raised to a power.
  case offsetUnitInCompound(String)
  /// The two units measure different things.
  case incompatible(from: String, to: String)
  /// The terms multiply out to an exponent beyond ±127 or a scale that is zero or infinite in a `Double`.
  case outOfRange(String)
  /// A `(` without its `)`, a `)` without its `(`, a group inside a group, a `/` or a power on a group.
  case invalidGroup(offset: Int)
  /// `mol<…>` whose molar mass is not a positive finite number of grams per mole.
  case invalidMolarMass(String, offset: Int)

  /// The nearest spelling of an unknown unit, if one is close.
  package var suggestion: String? {
    if case .unknownSymbol(let s, _) = self { return UnitParser.suggestion(for: s) }
    return nil
  }

  /// A one-line, lowercase message, with a "did you mean" when there is a near spelling.
  package var description: String { message + (suggestion.map { " (did you mean '\($0)'?)" } ?? "") }

  /// The message without the suggestion.
  package var message: String {
    switch self {
    case .empty: "unit string is empty"
    case .unknownSymbol(let s, let o): "unknown unit '\(s)' at offset \(o)"
    case .invalidPower(let s, let o): "power '\(s)' at offset \(o) is not an integer"
    case .missingTerm(let o): "expected a unit at offset \(o)"
    case .offsetUnitInCompound(let s): "'\(s)' cannot be combined with other units or raised to a power"
    case .incompatible(let a, let b): "cannot convert '\(a)' to '\(b)': the units measure different quantities"
    case .outOfRange(let s):
      "'\(s)' is out of range: its powers multiply out beyond an exponent of 127 or a scale a Double can hold"
    case .invalidGroup(let o):
      "unbalanced or misplaced parenthesis at offset \(o) (a group holds a product only, once, without a power)"
    case .invalidMolarMass(let s, let o):
      "molar mass '\(s)' at offset \(o) must be a positive number of grams per mole, as in mol<180.15588000005408>"
    }
  }
}

/// A small process-wide cache of parsed unit strings.
private enum UnitCache {
  static let shared = Mutex<[String: HealthUnit]>([:])
}
