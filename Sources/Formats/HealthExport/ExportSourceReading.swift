import FoundationEssentials
import HealthModel

/// Sources: a record's `sourceName`, `sourceVersion` and `device` mapped to a stored source, once per spelling.
extension ExportReader {
  /// Whether the attribute `index` holds, as written, exactly `stored` (nil on both sides counts as equal).
  private func same(_ stored: [UInt8]?, _ index: Int?, stripping: Bool = false) -> Bool {
    guard let stored, let index else { return stored == nil && index == nil }
    let raw = scanner.rawValue(index)
    let b = stripping ? Self.withoutAddress(raw) : raw
    return stored.count == b.count
      && (b.isEmpty || stored.withUnsafeBufferPointer { memcmpBytes($0.baseAddress!, b.baseAddress!, b.count) })
  }

  /// The source the attributes at `nameIndex`, `versionIndex` and `deviceIndex` describe; a new one is added to
  /// ``summary``.
  mutating func sourceEntry(_ nameIndex: Int, version versionIndex: Int?, device deviceIndex: Int?)
    throws(ExportError) -> SourceEntry
  {
    // Consecutive records mostly share a source.
    if let last = lastSource, same(last.name, nameIndex), same(last.version, versionIndex),
      same(last.device, deviceIndex, stripping: true)
    {
      return last
    }
    // Keyed on the attributes as written (equal bytes decode alike), without the device description's object
    // address, which varies per record.
    var key = ByteCache<Int>.hash(scanner.rawValue(nameIndex), salt: 1)
    if let versionIndex { key = ByteCache<Int>.hash(scanner.rawValue(versionIndex), salt: key ^ 2) }
    if let deviceIndex { key = ByteCache<Int>.hash(Self.withoutAddress(scanner.rawValue(deviceIndex)), salt: key ^ 3) }
    if let candidates = sources[key] {
      for candidate in candidates
      where same(candidate.name, nameIndex) && same(candidate.version, versionIndex)
        && same(candidate.device, deviceIndex, stripping: true)
      {
        lastSource = candidate
        return candidate
      }
    }
    let rawName = Array(scanner.rawValue(nameIndex))
    let rawVersion = versionIndex.map { Array(scanner.rawValue($0)) }
    let rawDevice = deviceIndex.map { Array(Self.withoutAddress(scanner.rawValue($0))) }
    let nameText = try scanner.string(nameIndex)
    var versionText: String?
    if let versionIndex { versionText = try scanner.string(versionIndex) }
    var hardware: HardwareDetails?
    if let deviceIndex { hardware = ExportIdentity.hardware(readFrom: try scanner.string(deviceIndex)) }
    let source = mapping.source(name: nameText, version: versionText, hardware: hardware)
    var entry: SourceEntry
    // The same source written differently (`&#8217;` for `’`): one source, under both spellings.
    if let known = sourcesByValue[source] {
      entry = known
      entry.name = rawName
      entry.version = rawVersion
      entry.device = rawDevice
    } else {
      // What the export says, not what the mapping made of it: importing again with other `--source` names finds
      // the same samples already present.
      entry = SourceEntry(
        name: rawName, version: rawVersion, device: rawDevice, source: source,
        hash: ExportIdentity.sourceHash(name: nameText, version: versionText, hardware: hardware),
        index: summary.sources.count)
      summary.sources.append(ImportSummary.SourceCount(source: source, samples: 0))
      sourcesByValue[source] = entry
    }
    sources[key, default: []].append(entry)
    lastSource = entry
    return entry
  }

  /// A device description as written, without its leading object address (`<<HKDevice: 0x…>, ` or, escaped,
  /// `&lt;&lt;HKDevice: 0x…&gt;, `): from the comma after the address's closing `>`.
  private static func withoutAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    guard bytes.count > 14, bytes[0] == UInt8(ascii: "<") || bytes[0] == UInt8(ascii: "&") else { return bytes }
    var i = 1
    while i + 1 < bytes.count {
      if bytes[i + 1] == UInt8(ascii: ","), bytes[i] == UInt8(ascii: ">") || bytes[i] == UInt8(ascii: ";") {
        return UnsafeBufferPointer(rebasing: bytes[(i + 1)...])
      }
      i += 1
    }
    return bytes
  }
}
