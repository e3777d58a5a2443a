import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import Render
import Wire

/// `ctl` operations on the Health app's settings as the user makes them and an app reads them: characteristics,
/// preferred units, data-source order.
extension CtlCommand {
  /// `characteristic <app> <type>`: the app's read of a characteristic (its answer).
  func characteristic(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let t = try characteristicType(try args.required("type"), args)
    try args.finish()
    let value = try client.readCharacteristic(bundle, t)
    out("\(t.name): \(value?.name(for: t) ?? "notSet")\n")
  }

  /// `set-characteristic <type> <value>|notSet`: the user, in the Health app (dates: YYYY-MM-DD).
  func setCharacteristic(_ args: inout Arguments, _ client: DeviceClient) throws {
    let t = try characteristicType(try args.required("type"), args)
    let text = try args.required("value (or notSet)")
    try args.finish()
    var value: CharacteristicValue?
    if text.lowercased() != "notset" {
      guard let parsed = CharacteristicValue.parse(text, for: t) else {
        let valid = t.descriptor.characteristicValues?.map(\.name) ?? []
        throw args.error(
          "invalid value '\(text)' for \(t.name): expected "
            + (valid.isEmpty ? "a date such as 1990-04-02" : (["notSet"] + valid).joined(separator: ", ")))
      }
      value = parsed
    }
    try client.changeUserSetting(.characteristic(t, value))
    out("\(t.name) set to \(value?.name(for: t) ?? "notSet") in the \(device)'s Health app\n")
  }

  /// `units <app> <type,type>`: `preferredUnits(for:)` as the app gets it.
  func units(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let list = try types(try args.required("types"), args)
    try args.finish()
    for (t, unit) in try client.preferredUnits(bundle, list).sorted(by: { $0.key < $1.key }) {
      out("\(t.name): \(unit)\n")
    }
  }

  /// `prefer-unit <type> <unit>|default`: the user chooses a display unit in the Health app.
  func preferUnit(_ args: inout Arguments, _ client: DeviceClient) throws {
    let t = try type(try args.required("type"), args)
    let text = try args.required("unit (or default)")
    try args.finish()
    let unit: String? = text == "default" ? nil : text
    if let unit {
      do { _ = try HealthUnit(parsing: unit) } catch { throw args.error("invalid unit '\(unit)': \(error)") }
    }
    try client.changeUserSetting(.preferredUnit(t, unit))
    out("\(t.name) shown in \(unit ?? "the locale's default unit") on the \(device)\n")
  }

  /// `source-order <type> <app@phone|app@watch>…`, `source-order <type> --default` (phone): the Health app's
  /// data-source order of the type.
  func sourceOrder(_ args: inout Arguments, _ client: DeviceClient) throws {
    let t = try type(try args.required("type"), args)
    let reset = args.flag("default")
    var sources: [SampleSource] = []
    for text in try args.rest() {
      let parts = text.split(separator: "@", omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].isEmpty, let on = DeviceKind(name: String(parts[1])) else {
        throw args.error("invalid source '\(text)': expected <app>@phone or <app>@watch")
      }
      sources.append(SampleSource(bundleID: String(parts[0]), device: on))
    }
    guard reset != !sources.isEmpty else {
      throw args.error("give the sources in order (<app>@phone, <app>@watch) or --default, not both")
    }
    try client.setSourceOrder(t, sources)
    out(
      reset
        ? "\(t.name): default source order\n" : "\(t.name): \(sources.map(\.description).joined(separator: ", "))\n")
  }
}
