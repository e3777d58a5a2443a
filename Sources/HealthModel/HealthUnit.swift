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
    fileprivate var exponents: [Int] {
      [
        Int(mass), Int(length), Int(time), Int(temperature), Int(count), Int(percent), Int(conductance),
        Int(internationalUnit), Int(soundPressureLevel), Int(effortScore), Int(electricPotential), Int(angle),
        Int(illuminance), Int(hearingLevel), Int(diopter), Int(prismDiopter),
      ]
    }

    /// How many base dimensions there are (the length of ``exponents``).
    fileprivate static let baseCount = 16

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

private func pow(_ base: Double, _ power: Int) -> Double {
  var result = 1.0
  for _ in 0..<abs(power) { result *= base }
  return power < 0 ? 1 / result : result
}

enum UnitParser {
  struct Symbol {
    let dimension: HealthUnit.Dimension
    let factor: Double
    let offset: Double
    let prefixable: Bool
  }

  static let prefixes: [String: Double] = [
    "da": 1e1, "h": 1e2, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
    "d": 1e-1, "c": 1e-2, "m": 1e-3, "mc": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15,
  ]

  /// Every unit atom a string may use — each symbol, and each prefixed form of a prefixable one — sorted, for
  /// "did you mean" suggestions.
  static let spellings: [String] = {
    var all = Set(symbols.keys)
    for (name, symbol) in symbols where symbol.prefixable {
      for prefix in prefixes.keys { all.insert(prefix + name) }
    }
    return all.sorted()
  }()

  /// The spelling nearest to a unit atom that did not parse: one it begins (`fl_oz` → `fl_oz_us`), else the
  /// closest by case-sensitive edit distance, when close enough to be a typo (units are case-sensitive: `mL`, `ML`).
  static func suggestion(for atom: String) -> String? {
    // Bounded work: a word too long to be near any spelling gets none (see `suggestionWordLimit`).
    guard atom.utf8.count <= suggestionWordLimit else { return nil }
    let loweredAtom = atom.lowercased()
    if let sameLetters = spellings.first(where: { $0.lowercased() == loweredAtom }) { return sameLetters }
    if atom.count >= 2, let longer = spellings.filter({ $0.hasPrefix(atom) }).min(by: { $0.count < $1.count }) {
      return longer
    }
    let characters = Array(atom)
    let limit = max(1, characters.count / 3)
    var cells = 0
    let scored = spellings.compactMap { spelling in
      editDistance(characters, Array(spelling), limit: limit, cells: &cells).map { (candidate: spelling, distance: $0) }
    }
    // Ties: the longest common beginning, the length nearest the word's, the longer (a typo more often drops a
    // letter), then alphabetical.
    func key(_ s: (candidate: String, distance: Int)) -> (Int, Int, Int, Int, String) {
      let common = zip(s.candidate, atom).prefix { $0 == $1 }.count
      return (s.distance, -common, abs(s.candidate.count - atom.count), -s.candidate.count, s.candidate)
    }
    return scored.min(by: { key($0) < key($1) })?.candidate
  }

  static let symbols: [String: Symbol] = {
    let mass = HealthUnit.Dimension(mass: 1)
    let length = HealthUnit.Dimension(length: 1)
    let volume = HealthUnit.Dimension(length: 3)
    let time = HealthUnit.Dimension(time: 1)
    let energy = HealthUnit.Dimension(mass: 1, length: 2, time: -2)
    let pressure = HealthUnit.Dimension(mass: 1, length: -1, time: -2)
    let temperature = HealthUnit.Dimension(temperature: 1)
    func s(_ d: HealthUnit.Dimension, _ f: Double, _ p: Bool = false, offset: Double = 0) -> Symbol {
      Symbol(dimension: d, factor: f, offset: offset, prefixable: p)
    }
    return [
      // SI symbols (accept prefixes). Base: g, m, s, K; L = 1e-3 m^3; J = kg.m^2/s^2 = 1000 g.m^2/s^2.
      "g": s(mass, 1, true), "m": s(length, 1, true), "L": s(volume, 1e-3, true), "l": s(volume, 1e-3, true),
      "s": s(time, 1, true), "J": s(energy, 1000, true), "K": s(temperature, 1, true),
      "Hz": s(HealthUnit.Dimension(time: -1), 1, true), "Pa": s(pressure, 1000, true),
      "cal": s(energy, 4184, true),
      // Non-SI symbols (HKUnit.h constants).
      "Cal": s(energy, 4_184_000), "oz": s(mass, 28.3495), "lb": s(mass, 453.592), "st": s(mass, 6350.0),
      "in": s(length, 0.0254), "ft": s(length, 0.3048), "yd": s(length, 0.9144), "mi": s(length, 1609.344),
      "fl_oz_us": s(volume, 0.0295735295625e-3), "fl_oz_imp": s(volume, 0.0284130625e-3),
      "cup_us": s(volume, 0.2365882365e-3), "cup_imp": s(volume, 0.284130625e-3),
      "pt_us": s(volume, 0.473176473e-3), "pt_imp": s(volume, 0.56826125e-3),
      "min": s(time, 60), "hr": s(time, 3600), "d": s(time, 86400),
      "mmHg": s(pressure, 133_322.387415), "cmAq": s(pressure, 98_066.5), "atm": s(pressure, 101_325_000),
      "inHg": s(pressure, 3_386_388.64),
      "degC": s(temperature, 1, offset: 273.15), "degF": s(temperature, 1 / 1.8, offset: 459.67 / 1.8),
      "count": s(HealthUnit.Dimension(count: 1), 1), "%": s(HealthUnit.Dimension(percent: 1), 1),
      // Units the type catalog's canonical units need (HKUnit.h): siemens for electrodermal activity, watts for
      // cycling and running power (W = J/s), international units for insulin, A-weighted decibels for audio
      // exposure and Apple's effort score.
      "S": s(HealthUnit.Dimension(conductance: 1), 1, true),
      "W": s(HealthUnit.Dimension(mass: 1, length: 2, time: -3), 1000, true),
      "IU": s(HealthUnit.Dimension(internationalUnit: 1), 1),
      "dBASPL": s(HealthUnit.Dimension(soundPressureLevel: 1), 1),
      "appleEffortScore": s(HealthUnit.Dimension(effortScore: 1), 1),
      // The units of HKUnit's newer factories (volt(), radianAngle(), degreeAngle(), lux(), decibelHearingLevel(),
      // diopter(), prismDiopter()): volts, radians and lux take prefixes (voltUnit(with:), …); a degree is π/180
      // radians; hearing level, diopters and prism diopters measure nothing else.
      "V": s(HealthUnit.Dimension(electricPotential: 1), 1, true),
      "rad": s(HealthUnit.Dimension(angle: 1), 1, true),
      "deg": s(HealthUnit.Dimension(angle: 1), Double.pi / 180),
      "lx": s(HealthUnit.Dimension(illuminance: 1), 1, true),
      "dBHL": s(HealthUnit.Dimension(hearingLevel: 1), 1),
      "D": s(HealthUnit.Dimension(diopter: 1), 1),
      "pD": s(HealthUnit.Dimension(prismDiopter: 1), 1),
    ]
  }()

  /// The symbol named `name`: one of ``symbols``, or a mole of a given molar mass (`mol<180.15588000005408>`),
  /// which is that many grams.
  static func symbol(named name: String) -> Symbol? {
    if let known = symbols[name] { return known }
    guard let mass = molarMass(name) else { return nil }
    return Symbol(dimension: HealthUnit.Dimension(mass: 1), factor: mass, offset: 0, prefixable: true)
  }

  /// The molar mass of a `mol<…>` symbol, when it is one and the mass is a positive finite number.
  static func molarMass(_ name: String) -> Double? {
    guard name.hasPrefix("mol<"), name.hasSuffix(">"), name.count > 5 else { return nil }
    guard let mass = Double(name.dropFirst(4).dropLast()), mass.isFinite, mass > 0 else { return nil }
    return mass
  }

  /// Multiplies out `components`: the exponents of the base dimensions (in `Int`, so nothing overflows), the
  /// factor to base units and the offset (only a lone `degC` or `degF` has one).
  static func reduce(_ components: [HealthUnit.Component]) -> (exponents: [Int], factor: Double, offset: Double) {
    var exponents = [Int](repeating: 0, count: HealthUnit.Dimension.baseCount)
    var factor = 1.0
    var offset = 0.0
    for component in components {
      guard let symbol = symbol(named: component.symbol) else { continue }
      let prefixFactor = component.prefix.isEmpty ? 1 : prefixes[component.prefix] ?? 1
      // Powers are at most ±12 from the parser; clamping keeps hand-built components from overflowing.
      let power = max(-1000, min(1000, component.power))
      for (i, e) in symbol.dimension.exponents.enumerated() { exponents[i] += e * power }
      factor *= pow(prefixFactor * symbol.factor, power)
      if components.count == 1 && component.power == 1 { offset = symbol.offset }
    }
    return (exponents, factor, offset)
  }

  /// Resolves one atom (`mL`, `min`, `kcal`, `mmol<180.15588000005408>`) into prefix and symbol.
  static func resolve(_ atom: String) -> (prefix: String, symbol: String)? {
    if symbols[atom] != nil { return ("", atom) }
    if let mole = atom.firstIndex(of: "<"), atom[..<mole].hasSuffix("mol") {
      let symbolStart = atom.index(mole, offsetBy: -3)
      let prefix = String(atom[..<symbolStart])
      let symbol = String(atom[symbolStart...])
      guard prefix.isEmpty || prefixes[prefix] != nil, let mass = molarMass(symbol) else { return nil }
      // One spelling per molar mass, so equal units print equally: mol<180.1558800> is mol<180.15588>.
      return (prefix, "mol<\(mass)>")
    }
    for prefixLength in [2, 1] where atom.count > prefixLength {
      let prefix = String(atom.prefix(prefixLength))
      let rest = String(atom.dropFirst(prefixLength))
      if prefixes[prefix] != nil, let symbol = symbols[rest], symbol.prefixable { return (prefix, rest) }
    }
    return nil
  }

  /// Characters that end an atom: the operators, the power sign and the parentheses.
  private static let separators: Set<Character> = ["/", ".", "*", "·", "^", "(", ")"]

  static func parse(_ text: String) throws(UnitError) -> [HealthUnit.Component] {
    let chars = Array(text)
    if chars.isEmpty { throw .empty }
    var components: [HealthUnit.Component] = []
    var index = 0
    var sign = 1
    var expectTerm = true
    // The offset of the open '(' while inside a group, and whether the group just closed (only an operator or the
    // end may follow it).
    var groupStart: Int?
    var groupClosed = false
    while index < chars.count {
      let c = chars[index]
      if c == "/" {
        // HKUnit.h allows one '/', but Apple's `init(from:)` page shows `ml/kg/min`, and apps write it: each further
        // '/' divides by what follows it too, so `ml/kg/min` is `ml/(kg*min)` (docs/behavior.md U1).
        if groupStart != nil { throw .invalidGroup(offset: index) }
        if expectTerm { throw .missingTerm(offset: index) }
        sign = -1
        expectTerm = true
        groupClosed = false
        index += 1
        continue
      }
      if c == "." || c == "*" || c == "·" {
        if expectTerm { throw .missingTerm(offset: index) }
        expectTerm = true
        groupClosed = false
        index += 1
        continue
      }
      if c == "(" {
        if groupStart != nil || !expectTerm { throw .invalidGroup(offset: index) }
        groupStart = index
        index += 1
        continue
      }
      if c == ")" {
        guard groupStart != nil else { throw .invalidGroup(offset: index) }
        if expectTerm { throw .missingTerm(offset: index) }
        groupStart = nil
        groupClosed = true
        index += 1
        if index < chars.count, chars[index] == "^" { throw .invalidGroup(offset: index) }
        continue
      }
      if groupClosed { throw .missingTerm(offset: index) }
      let start = index
      while index < chars.count, !separators.contains(chars[index]) {
        if chars[index] == "<" {
          // A molar mass: everything up to '>' belongs to the atom (it holds a '.').
          guard let close = chars[index...].firstIndex(of: ">") else {
            throw .invalidMolarMass(String(chars[(index + 1)...]), offset: index + 1)
          }
          let inner = String(chars[(index + 1)..<close])
          guard let mass = Double(inner), mass.isFinite, mass > 0 else {
            throw .invalidMolarMass(inner, offset: index + 1)
          }
          index = close
        }
        index += 1
      }
      let atom = String(chars[start..<index])
      guard !atom.isEmpty, let (prefix, symbol) = resolve(atom) else { throw .unknownSymbol(atom, offset: start) }
      var power = 1
      if index < chars.count, chars[index] == "^" {
        index += 1
        let powerStart = index
        if index < chars.count, chars[index] == "-" { index += 1 }
        while index < chars.count, chars[index].isASCII, chars[index].isNumber { index += 1 }
        let powerText = String(chars[powerStart..<index])
        guard let value = Int(powerText), value != 0, (-12...12).contains(value) else {
          throw .invalidPower(powerText, offset: powerStart)
        }
        power = value
      }
      components.append(HealthUnit.Component(prefix: prefix, symbol: symbol, power: power * sign))
      expectTerm = false
    }
    if let groupStart { throw .invalidGroup(offset: groupStart) }
    if expectTerm { throw .missingTerm(offset: chars.count) }
    if components.count > 1 || components[0].power != 1,
      let offsetTerm = components.first(where: { symbol(named: $0.symbol)!.offset != 0 })
    {
      throw .offsetUnitInCompound(offsetTerm.symbol)
    }
    let reduced = reduce(components)
    guard reduced.exponents.allSatisfy({ Int(Int8.min)...Int(Int8.max) ~= $0 }), reduced.factor.isNormal else {
      throw .outOfRange(text)
    }
    return components
  }
}
