import HealthModel

/// How an export's sources become sources on the device (a HealthPair model: exports name sources but carry no
/// bundle identifiers, docs/behavior.md I2).
///
/// - A name given in ``overrides`` gets that bundle identifier.
/// - A name that is a bundle identifier (`com.example.water`, as HealthPair's own exports name app sources) is used
///   as is.
/// - The Health app — `Health`, or its name in another language — is `com.apple.Health`.
/// - An iPhone or an Apple Watch recording its own data (the record's device is Apple's `iPhone` or `Watch` model,
///   and the source's version is that device's software version or its name contains the device's name) is
///   `com.apple.health.<UUID>`, as HealthKit names device sources, with a UUID derived from the source's name; a
///   record without a device whose source name contains `Apple Watch` or `iPhone` is taken for one too.
/// - Any other source is an app: `com.healthpair.imported.<name in lowercase letters and digits>`.
///
/// Bundle identifiers in `com.apple.` are Apple's own sources (``SampleSource/isApple``). A sample's device kind is
/// the watch when its hardware (or, without hardware, its source name) is an Apple Watch, else the phone.
package struct SourceMapping: Sendable {
  /// Source names mapped to bundle identifiers chosen by the user (`--source "Sleep Cycle=com.lexwarelabs.sleep"`).
  package var overrides: [String: String]

  /// The Health app's name in the languages it ships in (Apple's localized app names).
  package static let healthAppNames: Set<String> = [
    "Health", "Santé", "Salud", "Salute", "Saúde", "Gezondheid", "Zdrowie", "ヘルスケア", "健康", "Здоровье", "Sağlık",
    "Здоров'я", "Hälsa", "Helse", "Sundhed", "Terveys", "Υγεία", "Zdraví", "Egészség", "Sănătate", "건강", "สุขภาพ",
    "בריאות", "الصحة", "Kesehatan", "Sức khỏe",
  ]

  /// A mapping with these overrides.
  package init(overrides: [String: String] = [:]) { self.overrides = overrides }

  /// The source of an export's records from `name`, with `version` and `hardware`.
  package func source(name: String, version: String?, hardware: HardwareDetails?) -> SampleSource {
    let details = SourceDetails(name: name, version: version, hardware: hardware)
    let kind = hardware?.appleDeviceKind ?? (Self.mentions(name, "Apple Watch") ? .watch : .phone)
    if let bundle = overrides[name] { return SampleSource(bundleID: bundle, device: kind, details: details) }
    if Self.looksLikeBundleIdentifier(name) {
      return SampleSource(bundleID: name, device: kind, details: details)
    }
    if Self.healthAppNames.contains(name) {
      return SampleSource(bundleID: "com.apple.Health", device: .phone, details: details)
    }
    if Self.isDeviceSource(name: name, version: version, hardware: hardware) {
      var hash = Hash128()
      hash.add(name)
      return SampleSource(bundleID: "com.apple.health.\(hash.uuid.uuidString)", device: kind, details: details)
    }
    return SampleSource(bundleID: Self.appBundle(name), device: kind, details: details)
  }

  /// Whether a source name is a bundle identifier (three or more dot-separated parts of ASCII letters, digits and
  /// `-`, such as `com.example.water`): HealthPair's exports name app sources that way, and it is used as is.
  static func looksLikeBundleIdentifier(_ name: String) -> Bool {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count >= 3
      && parts.allSatisfy { part in
        !part.isEmpty
          && part.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains(Character($0)) || $0 == "-")
          }
      }
  }

  /// Whether a source is an iPhone or an Apple Watch recording its own data.
  static func isDeviceSource(name: String, version: String?, hardware: HardwareDetails?) -> Bool {
    guard let hardware else { return mentions(name, "Apple Watch") || mentions(name, "iPhone") }
    guard hardware.appleDeviceKind != nil else { return false }
    if let version, let software = hardware.softwareVersion, version == software { return true }
    if let deviceName = hardware.name, !deviceName.isEmpty, name.contains(deviceName) { return true }
    return false
  }

  /// Whether `name` holds `word` (bytes compared: the generic substring search costs more than the rest of a new
  /// source together, and every new source asks).
  static func mentions(_ name: String, _ word: StaticString) -> Bool {
    let n = word.utf8CodeUnitCount
    var name = name
    return name.withUTF8 { text in
      guard text.count >= n, let base = text.baseAddress else { return false }
      let first = word.utf8Start.pointee
      for i in 0...(text.count - n) where base[i] == first && memcmpBytes(base + i, word.utf8Start, n) { return true }
      return false
    }
  }

  /// `com.healthpair.imported.<slug>`: the name's ASCII letters and digits in lowercase, other runs as `-`; a name
  /// with none gets a slug from its hash.
  static func appBundle(_ name: String) -> String {
    var slug = ""
    var pendingDash = false
    for scalar in name.unicodeScalars {
      if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar)) {
        if pendingDash && !slug.isEmpty { slug.append("-") }
        pendingDash = false
        slug.append(Character(scalar).lowercased())
      } else {
        pendingDash = true
      }
    }
    if slug.isEmpty {
      var hash = Hash128()
      hash.add(name)
      slug = "source-" + hash.uuid.uuidString.prefix(8).lowercased()
    }
    return "com.healthpair.imported." + slug
  }

  /// Parses one `--source` argument, `NAME=BUNDLE`.
  package static func parseOverride(_ text: String) -> (name: String, bundleID: String)? {
    guard let equals = text.lastIndex(of: "=") else { return nil }
    let name = String(text[..<equals])
    let bundle = String(text[text.index(after: equals)...])
    guard !name.isEmpty, !bundle.isEmpty, !bundle.contains(where: \.isWhitespace) else { return nil }
    return (name, bundle)
  }
}

extension HardwareDetails {
  /// Parses an export's device description, `<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., …>`:
  /// the `key:value` fields after the object's address. Nil when it has none.
  package init?(exportDescription text: String) {
    var body = Substring(text)
    if body.hasPrefix("<<"), let close = body.firstRange(of: ">, ") {
      body = body[close.upperBound...]
    } else if body.hasPrefix("<") {
      body = body.dropFirst()
    }
    while body.hasSuffix(">") { body = body.dropLast() }
    var fields: [Field] = []
    for part in body.split(separator: ", ", omittingEmptySubsequences: true) {
      guard let colon = part.firstIndex(of: ":") else {
        // A value holding ", " (a model name with a comma and a space) continues the previous field.
        if !fields.isEmpty {
          fields[fields.count - 1].value += ", " + part
          continue
        }
        return nil
      }
      fields.append(Field(String(part[..<colon]), String(part[part.index(after: colon)...])))
    }
    guard !fields.isEmpty, fields.count <= Self.maxFields else { return nil }
    self.init(fields: fields)
  }

  /// The description an export writes: `<<HKDevice: 0x…>, key:value, …>`, with an address derived from the fields
  /// (real exports show the object's memory address, which means nothing).
  package var exportDescription: String {
    var hash = Hash128()
    for field in fields {
      hash.add(field.key)
      hash.add(field.value)
    }
    let address = String(hash.uuid.uuidString.filter { $0 != "-" }.prefix(9).lowercased())
    return "<<HKDevice: 0x\(address)>, " + fields.map { "\($0.key):\($0.value)" }.joined(separator: ", ") + ">"
  }
}
