import Foundation
import HealthModel

/// A unit of measure, from a factory (`.literUnit(with: .milli)`, `.count().unitDivided(by: .minute())`) or from
/// HealthKit's unit-string grammar (`HKUnit(from: "count/min")`). Equal when the unit strings are.
///
/// A string that is not a unit would raise an exception on a device: ``init(from:)`` reports it to
/// ``HealthKitSim/terminationHandler`` and returns an *invalid* unit that keeps the string; using it later fails the
/// same way (a `save` with it fails with ``HKSimulatedTermination``).
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKUnit: NSObject, @unchecked Sendable {
  /// The parsed unit, or nil when the string did not parse.
  package let parsed: HealthUnit?
  /// The unit string; parsing it gives back an equal unit (`mL`, `count/min`, `kcal`).
  public let unitString: String

  /// Wraps a parsed unit.
  package init(parsed: HealthUnit) {
    self.parsed = parsed
    self.unitString = parsed.description
    super.init()
  }

  /// The unit of `HKUnit(from: "")`: a scalar that converts one to one with `count()`, keeping its empty string.
  private init(scalar text: String) {
    self.parsed = try! HealthUnit(parsing: "count")
    self.unitString = text
    super.init()
  }

  private init(invalid text: String) {
    self.parsed = nil
    self.unitString = text
    super.init()
  }

  /// Parses a HealthKit unit string (`mL`, `count/min`, `kg/m^2`, `degF`). The empty string is a scalar unit that
  /// converts one to one with `count()` and keeps its empty unit string, as on devices (docs/healthkit-api.md,
  /// "Differences from HealthKit", Units).
  ///
  /// A string that is not a unit is reported to ``HealthKitSim/terminationHandler`` (a device raises
  /// `NSInvalidArgumentException`) with the caller's location (`fileID`…`column`, filled in by the compiler), and
  /// the unit is invalid.
  public convenience init(
    from string: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column
  ) {
    if string.isEmpty {
      self.init(scalar: string)
      return
    }
    do {
      self.init(parsed: try HealthUnit(parsing: string))
    } catch {
      var termination = HKSimulatedTermination.invalidArgument(
        "Unable to parse unit string '\(string)': \(error)", api: "HKUnit(from:)")
      termination.callSite = HKCallSite(fileID: fileID, filePath: filePath, line: line, column: column)
      HealthKitSim.reportTermination(termination)
      self.init(invalid: string)
    }
  }

  /// Two units are equal when their unit strings are (`==` and `isEqual(_:)` alike).
  public override func isEqual(_ object: Any?) -> Bool { (object as? HKUnit)?.unitString == unitString }
  /// The unit string's hash.
  public override var hash: Int { unitString.hashValue }
  /// The unit string.
  public override var description: String { unitString }
  /// As ``description``.
  public override var debugDescription: String { unitString }

  /// Whether this is the dimensionless "null" unit (for example `count().unitDivided(by: count())`).
  public func isNull() -> Bool { parsed?.components.isEmpty ?? false }

  private static func unit(_ text: String) -> HKUnit { HKUnit(parsed: try! HealthUnit(parsing: text)) }

  // MARK: - Compound units

  /// This unit times `unit` (`count().unitMultiplied(by: …)`).
  public func unitMultiplied(by unit: HKUnit) -> HKUnit {
    combine(self, unit, power: 1, api: "HKUnit.unitMultiplied(by:)")
  }

  /// This unit divided by `unit` (`count().unitDivided(by: .minute())` is `count/min`).
  public func unitDivided(by unit: HKUnit) -> HKUnit {
    combine(self, unit, power: -1, api: "HKUnit.unitDivided(by:)")
  }

  /// This unit raised to an integer power (`meter().unitRaised(toPower: 2)` is `m^2`).
  public func unitRaised(toPower power: Int) -> HKUnit {
    guard let parsed else { return invalid("\(unitString)^\(power)", api: "HKUnit.unitRaised(toPower:)") }
    // Parsed powers are at most ±12 and more than ±12 is refused below, so clamping cannot change the outcome.
    let factor = max(-1000, min(1000, power))
    let components = parsed.components.map {
      HealthUnit.Component(prefix: $0.prefix, symbol: $0.symbol, power: $0.power * factor)
    }
    return HKUnit.validated(components.filter { $0.power != 0 }, api: "HKUnit.unitRaised(toPower:)")
  }

  /// One over this unit (`second().reciprocal()` is `s^-1`).
  public func reciprocal() -> HKUnit { unitRaised(toPower: -1) }

  private func combine(_ a: HKUnit, _ b: HKUnit, power: Int, api: String) -> HKUnit {
    guard let left = a.parsed, let right = b.parsed else {
      return invalid("(\(a.unitString))\(power < 0 ? "/" : ".")(\(b.unitString))", api: api)
    }
    var merged: [HealthUnit.Component] = left.components
    for term in right.components {
      let scaled = HealthUnit.Component(prefix: term.prefix, symbol: term.symbol, power: term.power * power)
      if let index = merged.firstIndex(where: { $0.prefix == scaled.prefix && $0.symbol == scaled.symbol }) {
        let existing = merged[index]
        merged[index] = HealthUnit.Component(
          prefix: existing.prefix, symbol: existing.symbol, power: existing.power + scaled.power)
      } else {
        merged.append(scaled)
      }
    }
    return HKUnit.validated(merged.filter { $0.power != 0 }, api: api)
  }

  private static func validated(_ components: [HealthUnit.Component], api: String) -> HKUnit {
    let candidate = HealthUnit(components: components)
    if components.isEmpty { return HKUnit(parsed: candidate) }
    do {
      return HKUnit(parsed: try HealthUnit(parsing: candidate.description))
    } catch {
      HealthKitSim.reportTermination(.invalidArgument("Invalid unit '\(candidate)': \(error)", api: api))
      return HKUnit(invalid: candidate.description)
    }
  }

  private func invalid(_ text: String, api: String) -> HKUnit {
    HealthKitSim.reportTermination(.invalidArgument("'\(unitString)' is not a valid unit", api: api))
    return HKUnit(invalid: text)
  }

  // MARK: - Mass

  /// Grams (`g`).
  public static func gram() -> HKUnit { unit("g") }
  /// Grams with a prefix (`kg`, `mg`).
  public static func gramUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "g") }
  /// Ounces (`oz`).
  public static func ounce() -> HKUnit { unit("oz") }
  /// Pounds (`lb`).
  public static func pound() -> HKUnit { unit("lb") }
  /// Stones (`st`).
  public static func stone() -> HKUnit { unit("st") }

  // MARK: - Length

  /// Metres (`m`).
  public static func meter() -> HKUnit { unit("m") }
  /// Metres with a prefix (`km`, `cm`).
  public static func meterUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "m") }
  /// Inches (`in`).
  public static func inch() -> HKUnit { unit("in") }
  /// Feet (`ft`).
  public static func foot() -> HKUnit { unit("ft") }
  /// Yards (`yd`).
  public static func yard() -> HKUnit { unit("yd") }
  /// Miles (`mi`).
  public static func mile() -> HKUnit { unit("mi") }

  // MARK: - Volume

  /// Litres (`L`).
  public static func liter() -> HKUnit { unit("L") }
  /// Litres with a prefix (`mL`): Water's unit.
  public static func literUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "L") }
  /// US fluid ounces (`fl_oz_us`, 29.5735295625 mL).
  public static func fluidOunceUS() -> HKUnit { unit("fl_oz_us") }
  /// Imperial fluid ounces (`fl_oz_imp`).
  public static func fluidOunceImperial() -> HKUnit { unit("fl_oz_imp") }
  /// US cups (`cup_us`, 236.5882365 mL).
  public static func cupUS() -> HKUnit { unit("cup_us") }
  /// Imperial cups (`cup_imp`).
  public static func cupImperial() -> HKUnit { unit("cup_imp") }
  /// US pints (`pt_us`).
  public static func pintUS() -> HKUnit { unit("pt_us") }
  /// Imperial pints (`pt_imp`).
  public static func pintImperial() -> HKUnit { unit("pt_imp") }

  // MARK: - Time

  /// Seconds (`s`).
  public static func second() -> HKUnit { unit("s") }
  /// Seconds with a prefix (`ms`).
  public static func secondUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "s") }
  /// Minutes (`min`).
  public static func minute() -> HKUnit { unit("min") }
  /// Hours (`hr`).
  public static func hour() -> HKUnit { unit("hr") }
  /// Days (`d`).
  public static func day() -> HKUnit { unit("d") }

  // MARK: - Energy

  /// Joules (`J`).
  public static func joule() -> HKUnit { unit("J") }
  /// Joules with a prefix (`kJ`).
  public static func jouleUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "J") }
  /// Kilocalories (`kcal`, 4184 J).
  public static func kilocalorie() -> HKUnit { unit("kcal") }
  /// Small calories (`cal`, 4.184 J).
  public static func smallCalorie() -> HKUnit { unit("cal") }
  /// Large (food) calories (`Cal`, 4184 J).
  public static func largeCalorie() -> HKUnit { unit("Cal") }
  /// Small calories (`cal`): HealthKit's original name for ``smallCalorie()``.
  @available(*, deprecated, message: "use smallCalorie() or largeCalorie()")
  public static func calorie() -> HKUnit { unit("cal") }

  // MARK: - Pressure

  /// Pascals (`Pa`).
  public static func pascal() -> HKUnit { unit("Pa") }
  /// Pascals with a prefix (`kPa`).
  public static func pascalUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "Pa") }
  /// Millimetres of mercury (`mmHg`).
  public static func millimeterOfMercury() -> HKUnit { unit("mmHg") }
  /// Centimetres of water (`cmAq`).
  public static func centimeterOfWater() -> HKUnit { unit("cmAq") }
  /// Atmospheres (`atm`).
  public static func atmosphere() -> HKUnit { unit("atm") }
  /// Inches of mercury (`inHg`).
  public static func inchesOfMercury() -> HKUnit { unit("inHg") }

  // MARK: - Temperature

  /// Degrees Celsius (`degC`).
  public static func degreeCelsius() -> HKUnit { unit("degC") }
  /// Degrees Fahrenheit (`degF`).
  public static func degreeFahrenheit() -> HKUnit { unit("degF") }
  /// Kelvin (`K`).
  public static func kelvin() -> HKUnit { unit("K") }

  // MARK: - Scalars and frequency

  /// A count (`count`): steps, beats.
  public static func count() -> HKUnit { unit("count") }
  /// A percentage (`%`), where 1.0 is 100 %.
  public static func percent() -> HKUnit { unit("%") }
  /// Hertz (`Hz`).
  public static func hertz() -> HKUnit { unit("Hz") }
  /// Hertz with a prefix (`kHz`).
  public static func hertzUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "Hz") }
}

/// The molar mass of glucose in grams per mole, for `HKUnit.moleUnit(with:molarMass:)` (`mmol<…>/L` readings).
public let HKUnitMolarMassBloodGlucose = 180.15588000005408

extension HKUnit {
  // MARK: - Units of the newer type identifiers

  /// Moles of a substance of the given molar mass, with a prefix (`mmol<180.15588000005408>`): a mass unit, so
  /// `mmol<glucose>/L` converts to `mg/dL`.
  public static func moleUnit(with prefix: HKMetricPrefix, molarMass gramsPerMole: Double) -> HKUnit {
    HKUnit(from: "\(prefix.symbol)mol<\(gramsPerMole)>")
  }
  /// Moles of a substance of the given molar mass (`mol<…>`).
  public static func moleUnit(withMolarMass gramsPerMole: Double) -> HKUnit {
    moleUnit(with: .none, molarMass: gramsPerMole)
  }
  /// Siemens (`S`): electrodermal activity.
  public static func siemen() -> HKUnit { HKUnit(from: "S") }
  /// Siemens with a prefix (`mcS`).
  public static func siemenUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "S") }
  /// Watts (`W`): cycling and running power.
  public static func watt() -> HKUnit { HKUnit(from: "W") }
  /// Watts with a prefix (`kW`).
  public static func wattUnit(with prefix: HKMetricPrefix) -> HKUnit { HKUnit(from: prefix.symbol + "W") }
  /// International units (`IU`): insulin.
  public static func internationalUnit() -> HKUnit { HKUnit(from: "IU") }
  /// A-weighted decibels of sound pressure level (`dBASPL`): audio exposure.
  public static func decibelAWeightedSoundPressureLevel() -> HKUnit { HKUnit(from: "dBASPL") }
  /// Apple's effort score (`appleEffortScore`): workout effort.
  public static func appleEffortScore() -> HKUnit { HKUnit(from: "appleEffortScore") }

  // MARK: - Hearing, vision, light and electrical units

  /// Decibels of hearing level (`dBHL`): audiogram sensitivities, relative to the quietest sound a young, healthy
  /// ear hears. Converts into no other unit.
  public static func decibelHearingLevel() -> HKUnit { unit("dBHL") }
  /// Volts (`V`): the difference in electrical potential, as in electrocardiogram voltages.
  public static func volt() -> HKUnit { unit("V") }
  /// Volts with a prefix (`mV`, `mcV`).
  public static func voltUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "V") }
  /// Radians (`rad`): angles. Converts into degrees.
  public static func radianAngle() -> HKUnit { unit("rad") }
  /// Radians with a prefix (`mrad`).
  public static func radianAngleUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "rad") }
  /// Degrees (`deg`, π/180 rad): angles, as a prescription's cylinder axis.
  public static func degreeAngle() -> HKUnit { unit("deg") }
  /// Lux (`lx`): illuminance.
  public static func lux() -> HKUnit { unit("lx") }
  /// Lux with a prefix (`klx`).
  public static func luxUnit(with prefix: HKMetricPrefix) -> HKUnit { unit(prefix.symbol + "lx") }
  /// Diopters (`D`): the optical power of a lens. Converts into no other unit.
  public static func diopter() -> HKUnit { unit("D") }
  /// Prism diopters (`pD`): the prismatic deviation of a lens. Converts into no other unit (not into angles).
  public static func prismDiopter() -> HKUnit { unit("pD") }
}
