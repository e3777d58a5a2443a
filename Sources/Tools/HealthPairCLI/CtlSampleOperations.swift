import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import Posix
import Render
import Wire

/// `ctl` operations on samples: save, delete, the sample and anchored queries, the raw store.
extension CtlCommand {
  /// `save <app> <type> <value> [<unit>] [--at <date>] [--duration <d>] [--end <date>] [--meta <k=v>] [--uuid <u>]`
  /// (`--at` defaults to the wall clock).
  func save(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let t = try type(try args.required("type"), args)
    let valueText = try args.required("value")
    let at = try date(try args.option("at"), args, "date") ?? Date(timeIntervalSince1970: Posix.wallClockSeconds())
    let durationText = try args.option("duration")
    let endText = try args.option("end")
    let uuidText = try args.option("uuid")
    var metadata: Metadata = [:]
    for item in try args.options("meta") {
      let kv = item.split(separator: "=", maxSplits: 1)
      guard kv.count == 2 else { throw args.error("invalid metadata '\(item)': expected key=value") }
      let key = MetadataKey.byConstantName[String(kv[0])] ?? String(kv[0])
      let v = String(kv[1])
      metadata[key] =
        v == "true"
        ? .bool(true)
        : v == "false" ? .bool(false) : Int64(v).map { .int($0) } ?? Double(v).map { .double($0) } ?? .string(v)
    }
    let value: SampleInput.Value
    if let canonical = t.descriptor.canonicalUnit {
      guard let number = Double(valueText) else {
        throw args.error("invalid value '\(valueText)': expected a number")
      }
      value = .quantity(number, unit: try args.positional() ?? canonical.description)
    } else if let values = t.descriptor.categoryValues {
      if let raw = Int(valueText) {
        value = .category(raw)
      } else if let named = values.first(where: { $0.name == valueText }) {
        value = .category(named.value)
      } else {
        throw args.error(
          "invalid value '\(valueText)' for \(t.name): expected one of \(values.map(\.name).joined(separator: ", "))")
      }
    } else if t.descriptor.isCharacteristic {
      throw args.error("\(t.name) is a characteristic type, not a sample type: the user sets it (set-characteristic)")
    } else {
      throw args.error("\(t.name) is a correlation type: HealthPair does not save correlations")
    }
    try args.finish()
    var end = at
    if let durationText { end = at.addingTimeInterval(try duration(durationText, args)) }
    if let e = try date(endText, args, "end") { end = e }
    var uuid = UUID()
    if let uuidText {
      guard let parsed = UUID(uuidString: uuidText) else { throw args.error("invalid UUID '\(uuidText)'") }
      uuid = parsed
    }
    try client.save(bundle, [SampleInput(uuid: uuid, type: t, value: value, start: at, end: end, metadata: metadata)])
    out("saved \(uuid.uuidString.lowercased())\n")
  }

  /// `delete <app> <uuid>…`.
  func delete(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    var uuids: [UUID] = []
    for text in try args.rest() {
      guard let u = UUID(uuidString: text) else { throw args.error("invalid UUID '\(text)'") }
      uuids.append(u)
    }
    try client.delete(bundle, uuids)
    out("deleted \(uuids.count)\n")
  }

  /// `query <app> <type> [range] [--limit <n>] [--sort start|end|-start|-end] [--source <app>] [--unit <unit>]`.
  func query(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let t = try type(try args.required("type"), args)
    let r = try range(&args)
    let limit = try args.intOption("limit", range: 0...Int(Int32.max)) ?? 0
    var sort: [SampleSort] = []
    if let s = try args.option("sort") {
      let descending = s.hasPrefix("-")
      let field = descending ? String(s.dropFirst()) : s
      guard field == "start" || field == "end" else {
        throw args.error("invalid sort '\(s)': expected start, end, -start or -end")
      }
      sort = [SampleSort(field == "start" ? .startDate : .endDate, ascending: !descending)]
    }
    let sources = try args.options("source")
    let shown = try unit(&args)
    try args.finish()
    let samples = try client.sampleQuery(
      bundle, SampleQuery(type: t, range: r, sources: sources.isEmpty ? nil : Set(sources), limit: limit, sort: sort))
    for s in samples { out(s.describe(unit: shown) + "\n") }
    out("\(samples.count) sample\(samples.count == 1 ? "" : "s")\n")
  }

  /// `anchored <app> <type> [--anchor <n>] [--limit <n>]`: the changes since the anchor, and the new anchor.
  func anchored(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let t = try type(try args.required("type"), args)
    let anchor = UInt64(try args.intOption("anchor", range: 0...Int.max) ?? 0)
    let limit = try args.intOption("limit", range: 0...Int(Int32.max)) ?? 0
    try args.finish()
    let result = try client.anchoredQuery(bundle, type: t, anchor: anchor, limit: limit)
    for s in result.added { out("+ " + s.describe() + "\n") }
    for d in result.deleted { out("- \(d.uuid.uuidString.lowercased()) \(d.type.name)\n") }
    out("anchor \(result.newAnchor)\n")
  }

  /// `samples [<type>]`: the raw store (every app's samples) and tombstones.
  func samples(_ args: inout Arguments, _ client: DeviceClient) throws {
    let t = try args.positional().map { name throws(UsageError) in try type(name, args) }
    try args.finish()
    let (samples, tombstones) = try client.storedSamples(type: t)
    for s in samples { out(s.describe() + "\n") }
    for d in tombstones where t == nil || d.type == t {
      out("deleted \(d.uuid.uuidString.lowercased()) \(d.type.name) \(d.source)\n")
    }
    out("\(samples.count) stored, \(tombstones.count) deleted\n")
  }

  /// `earliest`: `earliestPermittedSampleDate()`.
  func earliest(_ args: inout Arguments, _ client: DeviceClient) throws {
    try args.finish()
    out(formatDate(try client.earliestPermittedSampleDate()) + "\n")
  }
}
