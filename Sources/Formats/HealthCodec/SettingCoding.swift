import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of apps, authorization, device policies and the Health app's values, shared by the wire
// protocol, the journal and snapshots. Each `encode` has a matching reader that validates enumerations and codes;
// docs/protocol.md lists the layouts.

extension BinaryWriter {
  /// bundle id, display name, optional write and read usage descriptions.
  package mutating func app(_ a: AppRecord) {
    string(a.bundleID)
    string(a.displayName)
    optional(a.writeUsageDescription) { $0.string($1) }
    optional(a.readUsageDescription) { $0.string($1) }
  }
  /// optional clinical usage description, [required type identifier string].
  package mutating func healthRecordsInfo(_ info: HealthRecordsInfo) {
    optional(info.usageDescription) { $0.string($1) }
    array(info.requiredTypes) { $0.string($1) }
  }
  /// A snapshot's trailing section 7: `u8` 7, then [bundle id, health-records info] of the apps that have any
  /// clinical-record Info.plist key, by bundle id; nothing when none has.
  package mutating func healthRecordsSection(_ apps: [String: AppRecord]) {
    let listed = apps.values.filter { !$0.healthRecords.isEmpty }.sorted { $0.bundleID < $1.bundleID }
    guard !listed.isEmpty else { return }
    u8(7)
    array(listed) { w, app in
      w.string(app.bundleID)
      w.healthRecordsInfo(app.healthRecords)
    }
  }
  /// type, `u8` direction.
  package mutating func permission(_ p: Permission) {
    sampleType(p.type)
    u8(p.direction.rawValue)
  }
  /// permission, `u8` decision.
  package mutating func change(_ c: AuthorizationChange) {
    permission(c.permission)
    u8(c.decision.rawValue)
  }
  /// `u8` tag (0 set + permission + bool, 1 turn all off, 2 reset).
  package mutating func settingsChange(_ c: SettingsChange) {
    switch c {
    case .set(let p, let on):
      u8(0)
      permission(p)
      bool(on)
    case .turnAllOff: u8(1)
    case .reset: u8(2)
    }
  }
  /// `u8` flags (bit 0: reprompt strict, bit 1: companion authorization, bit 2: no Health settings on the watch,
  /// bits 4–5: the unit locale, 0 us, 1 metric, 2 uk; bit 6: a custom background-delivery model, whose response
  /// window and retry delay follow the retention as two f64; bit 3: a time zone other than UTC, whose identifier
  /// follows; bit 7: source orders, which follow last), optional f64 retention. The defaults leave bits 1 to 7 clear,
  /// so a default policy is one flags byte and its retention (`EventFixtureTests` pins both kinds).
  package mutating func policy(_ p: DevicePolicy) {
    let customBackground = p.background != .standard
    let hasZone = p.timeZone != .utc
    let hasOrders = !p.sourceOrders.isEmpty
    u8(
      (p.reprompt == .standard ? 0 : 1) | (p.authorization == .companion ? 2 : 0)
        | (p.watchSettings == .iPhoneOnly ? 4 : 0) | (hasZone ? 8 : 0) | (p.units.rawValue << 4)
        | (customBackground ? 64 : 0) | (hasOrders ? 128 : 0))
    optional(p.retention) { $0.f64($1) }
    if customBackground {
      f64(p.background.responseWindow)
      f64(p.background.retryDelay)
    }
    if hasZone { string(p.timeZone.identifier) }
    if hasOrders {
      array(p.sourceOrders.sorted { $0.key < $1.key }) { w, entry in
        w.sampleType(entry.key)
        w.sourceOrder(entry.value)
      }
    }
  }
  /// [source], at date, `u8` device.
  package mutating func sourceOrder(_ o: SourceOrder) {
    array(o.sources) { $0.source($1) }
    date(o.at)
    u8(o.device.rawValue)
  }
  /// `u8` tag (0 date of birth: `i32` year, `u8` month, `u8` day; 1 enumeration: `i64` raw value).
  package mutating func characteristicValue(_ v: CharacteristicValue) {
    switch v {
    case .dateOfBirth(let y, let m, let d):
      u8(0)
      u32(UInt32(bitPattern: Int32(clamping: y)))
      u8(UInt8(clamping: m))
      u8(UInt8(clamping: d))
    case .value(let raw):
      u8(1)
      i64(Int64(raw))
    }
  }
  /// `[type | characteristic-value]`, by type: characteristics an import sets.
  package mutating func characteristics(_ values: [SampleType: CharacteristicValue]) {
    array(values.sorted { $0.key < $1.key }) { w, item in
      w.sampleType(item.key)
      w.characteristicValue(item.value)
    }
  }
  /// `u8` kind (0 characteristic: type, optional value; 1 preferred unit: type, optional unit string).
  package mutating func userSetting(_ setting: UserSetting) {
    switch setting {
    case .characteristic(let t, let v):
      u8(0)
      sampleType(t)
      optional(v) { $0.characteristicValue($1) }
    case .preferredUnit(let t, let unit):
      u8(1)
      sampleType(t)
      optional(unit) { $0.string($1) }
    }
  }
  /// permission, `u8` decision (0xFF: forgotten).
  package mutating func sharedDecision(_ d: SharedDecision) {
    permission(d.permission)
    u8(d.decision?.rawValue ?? 0xFF)
  }
  package mutating func entitlements(_ e: Set<Entitlement>) {
    array(e.sorted()) { $0.u8($1.rawValue) }
  }
}

extension BinaryReader {
  package mutating func entitlements() throws(DecodeError) -> Set<Entitlement> {
    var result: Set<Entitlement> = []
    for raw in try array(minElementSize: 1, { r throws(DecodeError) in try r.u8() }) {
      guard let entitlement = Entitlement(rawValue: raw) else { throw error("unknown entitlement \(raw)") }
      guard result.insert(entitlement).inserted else { throw error("entitlement \(entitlement) listed twice") }
    }
    return result
  }
  /// Reads an `HKUpdateFrequency` raw value.
  package mutating func updateFrequency() throws(DecodeError) -> UpdateFrequency {
    let raw = try u8()
    guard let frequency = UpdateFrequency(rawValue: raw) else { throw error("unknown update frequency \(raw)") }
    return frequency
  }
  /// Reads an app record.
  package mutating func app() throws(DecodeError) -> AppRecord {
    AppRecord(
      bundleID: try string(maxLength: StoredLimits.identifier),
      displayName: try string(maxLength: StoredLimits.identifier),
      writeUsageDescription: try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.description)
      },
      readUsageDescription: try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.description) })
  }
  /// Reads an app's clinical-record Info.plist keys (at most ``HealthRecordsInfo/maxRequiredTypes`` required types).
  package mutating func healthRecordsInfo() throws(DecodeError) -> HealthRecordsInfo {
    let usage = try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.description) }
    var probe = self
    let count = try probe.u32()
    guard count <= HealthRecordsInfo.maxRequiredTypes else {
      throw error("\(count) required clinical types (at most \(HealthRecordsInfo.maxRequiredTypes))")
    }
    let required = try array(minElementSize: 4) { r throws(DecodeError) in
      try r.string(maxLength: StoredLimits.identifier)
    }
    return HealthRecordsInfo(usageDescription: usage, requiredTypes: required)
  }
  /// Reads section 7's entries (after its tag) into the apps they belong to.
  /// - Throws: ``DecodeError`` for an app not installed, listed twice or with no key.
  package mutating func healthRecordsSection(into apps: inout [String: AppRecord]) throws(DecodeError) {
    let listed = try array(minElementSize: 9) { r throws(DecodeError) in
      (r.reportBase + r.offset, try r.string(maxLength: StoredLimits.identifier), try r.healthRecordsInfo())
    }
    for (at, bundleID, info) in listed {
      guard apps[bundleID] != nil else {
        throw DecodeError(offset: at, "health records keys of app '\(bundleID)', which is not installed")
      }
      guard apps[bundleID]!.healthRecords.isEmpty, !info.isEmpty else {
        throw DecodeError(offset: at, "health records keys of app '\(bundleID)' listed twice or empty")
      }
      apps[bundleID]!.healthRecords = info
    }
  }
  /// Reads a permission.
  package mutating func permission() throws(DecodeError) -> Permission {
    let type = try sampleType()
    let raw = try u8()
    guard let direction = Direction(rawValue: raw) else { throw error("unknown direction \(raw)") }
    return Permission(type, direction)
  }
  /// Reads an authorization change.
  package mutating func change() throws(DecodeError) -> AuthorizationChange {
    let p = try permission()
    let raw = try u8()
    guard let decision = Decision(rawValue: raw) else { throw error("unknown decision \(raw)") }
    return AuthorizationChange(p, decision)
  }
  /// Reads a settings change.
  package mutating func settingsChange() throws(DecodeError) -> SettingsChange {
    switch try u8() {
    case 0: return .set(try permission(), on: try bool())
    case 1: return .turnAllOff
    case 2: return .reset
    case let tag: throw error("unknown settings change tag \(tag)")
    }
  }
  /// Reads a device policy; a retention window must be finite, a time zone one HealthPair knows.
  package mutating func policy() throws(DecodeError) -> DevicePolicy {
    let raw = try u8()
    guard let units = UnitLocale(rawValue: (raw >> 4) & 3) else { throw error("unknown policy flags \(raw)") }
    let retention = try optional { r throws(DecodeError) in try r.finiteF64("retention") }
    var background = BackgroundDeliveryModel.standard
    if raw & 64 != 0 {
      background = BackgroundDeliveryModel(
        responseWindow: try finiteF64("background response window"), retryDelay: try finiteF64("background retry delay")
      )
    }
    var zone = TimeZoneRule.utc
    if raw & 8 != 0 {
      let name = try string(maxLength: 64)
      do { zone = try TimeZoneRule(identifier: name) } catch { throw self.error("\(error)") }
    }
    var orders: [SampleType: SourceOrder] = [:]
    if raw & 128 != 0 {
      let entries = try array(minElementSize: 15) { r throws(DecodeError) in (try r.sampleType(), try r.sourceOrder()) }
      for (type, order) in entries {
        guard orders.updateValue(order, forKey: type) == nil else { throw error("two source orders for \(type)") }
      }
    }
    return DevicePolicy(
      reprompt: raw & 1 == 0 ? .standard : .strict, retention: retention,
      authorization: raw & 2 == 0 ? .independent : .companion, watchSettings: raw & 4 == 0 ? .onWatch : .iPhoneOnly,
      units: units, background: background, timeZone: zone, sourceOrders: orders)
  }
  /// Reads a source order (at most ``SourceOrder/maxSources`` sources; its date finite).
  package mutating func sourceOrder() throws(DecodeError) -> SourceOrder {
    let sources = try array(minElementSize: 5) { r throws(DecodeError) in try r.source() }
    guard sources.count <= SourceOrder.maxSources else { throw error("a source order of \(sources.count) sources") }
    return SourceOrder(sources: sources, at: try finiteDate("source order date"), device: try device())
  }
  /// Reads a characteristic value that fits `type` (a real date of birth, one of the type's cases).
  package mutating func characteristicValue(for type: SampleType) throws(DecodeError) -> CharacteristicValue {
    let start = offset
    let value: CharacteristicValue
    switch try u8() {
    case 0:
      let year = Int(Int32(bitPattern: try u32()))
      value = .dateOfBirth(year: year, month: Int(try u8()), day: Int(try u8()))
    case 1:
      let raw = try i64()
      guard (-Int64(Int32.max)...Int64(Int32.max)).contains(raw) else {
        throw error("characteristic value \(raw) out of range")
      }
      value = .value(Int(raw))
    case let tag: throw error("unknown characteristic value tag \(tag)")
    }
    do { return try value.validated(for: type) } catch {
      throw DecodeError(offset: reportBase + start, error.message)
    }
  }
  /// Reads `[type | characteristic-value]`: characteristic types, each once, with values that fit them.
  package mutating func characteristics() throws(DecodeError) -> [SampleType: CharacteristicValue] {
    var values: [SampleType: CharacteristicValue] = [:]
    let start = offset
    let list = try array(minElementSize: 4) { r throws(DecodeError) -> (SampleType, CharacteristicValue) in
      let typeOffset = r.offset
      let type = try r.sampleType()
      guard type.descriptor.isCharacteristic else {
        throw DecodeError(offset: r.reportBase + typeOffset, "\(type.name) is not a characteristic type")
      }
      return (type, try r.characteristicValue(for: type))
    }
    for (type, value) in list {
      guard values.updateValue(value, forKey: type) == nil else {
        throw DecodeError(offset: reportBase + start, "\(type.name) is listed twice")
      }
    }
    return values
  }
  /// Reads a Health app change: a characteristic of a characteristic type, a preferred unit that parses and
  /// measures its quantity type.
  package mutating func userSetting() throws(DecodeError) -> UserSetting {
    let kind = try u8()
    let typeOffset = offset
    let type = try sampleType()
    switch kind {
    case 0:
      guard type.descriptor.isCharacteristic else {
        throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a characteristic type")
      }
      return .characteristic(type, try optional { r throws(DecodeError) in try r.characteristicValue(for: type) })
    case 1:
      guard let canonical = type.descriptor.canonicalUnit else {
        throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a quantity type")
      }
      let unitOffset = offset
      let unit = try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.unit) }
      if let unit {
        guard let parsed = try? HealthUnit(parsing: unit), parsed.isCompatible(with: canonical) else {
          throw DecodeError(offset: reportBase + unitOffset, "unit '\(unit)' does not measure \(type.name)")
        }
      }
      return .preferredUnit(type, unit)
    case let tag: throw error("unknown Health app setting kind \(tag)")
    }
  }
  /// Reads a shared decision.
  package mutating func sharedDecision() throws(DecodeError) -> SharedDecision {
    let p = try permission()
    let raw = try u8()
    if raw == 0xFF { return SharedDecision(p, nil) }
    guard let decision = Decision(rawValue: raw) else { throw error("unknown decision \(raw)") }
    return SharedDecision(p, decision)
  }

  /// Reads a sync log identity (never 0, which means "none").
  package mutating func logIdentity() throws(DecodeError) -> UInt64 {
    let id = try u64()
    guard id != 0 else { throw error("sync log identity 0 is reserved") }
    return id
  }

  /// Reads an import identity (never 0, which is reserved).
  package mutating func importIdentity() throws(DecodeError) -> UInt64 {
    let id = try u64()
    guard id != 0 else { throw error("import identity 0 is reserved") }
    return id
  }
}
