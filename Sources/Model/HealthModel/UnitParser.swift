/// `base` raised to an integer power by repeated multiplication.
private func pow(_ base: Double, _ power: Int) -> Double {
  var result = 1.0
  for _ in 0..<abs(power) { result *= base }
  return power < 0 ? 1 / result : result
}

/// HealthKit's unit-string grammar (``HealthUnit`` gives it): the symbols and SI prefixes it knows, the parser,
/// the reduction of terms to base dimensions, and "did you mean" suggestions.
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
