import FoundationEssentials
import HealthEngine
import HealthModel

/// The arguments `ctl` operations share, parsed with the usage errors (exit 64) that name what was wrong.
extension CtlCommand {
  /// The sample type named `name` (a near name suggested when there is none).
  func type(_ name: String, _ args: Arguments) throws(UsageError) -> SampleType {
    if let type = SampleType.lookup(name: name) { return type }
    let suggestion = suggest(name, from: SampleType.catalog.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
    throw args.error("unknown type '\(name)'\(suggestion)")
  }

  /// The characteristic type named `name`; another type is a usage error listing the characteristics.
  func characteristicType(_ name: String, _ args: Arguments) throws(UsageError) -> SampleType {
    let t = try type(name, args)
    guard t.descriptor.isCharacteristic else {
      let names = SampleType.catalog.filter(\.isCharacteristic).map(\.name).joined(separator: ", ")
      throw args.error("\(t.name) is not a characteristic type: expected one of \(names)")
    }
    return t
  }

  /// The types of a comma-separated list (nil: none).
  func types(_ list: String?, _ args: Arguments) throws(UsageError) -> [SampleType] {
    guard let list else { return [] }
    var result: [SampleType] = []
    for name in list.split(separator: ",") { result.append(try type(String(name), args)) }
    return result
  }

  /// The UTC date `text` (nil: none given); `what` names the option in the error.
  func date(_ text: String?, _ args: Arguments, _ what: String) throws(UsageError) -> Date? {
    guard let text else { return nil }
    guard let date = parseDate(text) else {
      throw args.error("invalid \(what) '\(text)': expected a UTC date such as 2026-01-05T08:00")
    }
    return date
  }

  /// The duration `text` (`250ms`, `30s`, `10m`, `2h`, `7d`).
  func duration(_ text: String, _ args: Arguments) throws(UsageError) -> Double {
    guard let d = parseDuration(text) else {
      throw args.error("invalid duration '\(text)': expected e.g. 30s, 10m, 2h, 7d")
    }
    return d
  }

  /// `--start`, `--end`, `--strict-start`, `--strict-end` (nil: neither date given).
  func range(_ args: inout Arguments) throws(UsageError) -> DateRange? {
    let start = try date(try args.option("start"), args, "start")
    let end = try date(try args.option("end"), args, "end")
    var options: QueryOptions = []
    if args.flag("strict-start") { options.insert(.strictStartDate) }
    if args.flag("strict-end") { options.insert(.strictEndDate) }
    return start == nil && end == nil ? nil : DateRange(start: start, end: end, options: options)
  }

  /// `--unit <unit>` (nil: not given).
  func unit(_ args: inout Arguments) throws(UsageError) -> HealthUnit? {
    guard let text = try args.option("unit") else { return nil }
    do { return try HealthUnit(parsing: text) } catch { throw args.error("invalid unit '\(text)': \(error)") }
  }

  /// `30 s`, `0.5 s`.
  func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
  }
}
