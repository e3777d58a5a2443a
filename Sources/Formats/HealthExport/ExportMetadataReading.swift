import FoundationEssentials
import HealthModel

/// `MetadataEntry` elements: keys and values, typed by ``MetadataText``, within the per-element bound.
extension ExportReader {
  /// Reads the `<MetadataEntry>` the scanner is at (a child of a `Record` or a `Correlation`) into `metadata`, or,
  /// for HealthPair's own identifier key, into `identifier`: HealthPair's exports keep an app-saved object's
  /// identifier (I10).
  @inline(__always)
  mutating func metadataEntry(into metadata: inout Metadata, identifier: inout UUID?, bytes: inout Int)
    throws(ExportError)
  {
    guard let keyIndex = scanner.attribute("key"), let textIndex = scanner.attribute("value") else {
      throw ExportError(
        .notAnExport, at: scanner.tokenLocation, "a '<MetadataEntry>' needs 'key' and 'value' attributes")
    }
    bytes += scanner.rawValue(keyIndex).count + scanner.rawValue(textIndex).count
    try Self.checkMetadataBytes(bytes, at: scanner.tokenLocation)
    let key = try metadataKey(keyIndex)
    if key == ExportWriter.identifierKey {
      let text = try scanner.string(textIndex)
      guard let uuid = UUID(uuidString: text) else {
        throw ExportError(.value, at: scanner.valueLocation(textIndex), "'\(text)' is not a UUID")
      }
      identifier = uuid
    } else {
      metadata[key] = try metadataValue(textIndex, key: key)
    }
    _ = try skipSubtree()
  }

  private mutating func metadataKey(_ index: Int) throws(ExportError) -> String {
    let raw = scanner.rawValue(index)
    if let hit = metadataKeys.find(raw) { return hit }
    let bytes = scanner.value(index)
    guard let key = String(validating: bytes, as: UTF8.self), !key.isEmpty, bytes.count <= StoredLimits.identifier
    else {
      throw ExportError(
        .value, at: scanner.valueLocation(index),
        "a metadata key must be 1 to \(StoredLimits.identifier) bytes of UTF-8")
    }
    metadataKeys.insert(scanner.rawValue(index), key)
    return key
  }

  private mutating func metadataValue(_ index: Int, key: String) throws(ExportError) -> MetadataValue {
    let raw = scanner.rawValue(index)
    let hash = ByteCache<Int>.hash(raw, salt: UInt64(truncatingIfNeeded: key.hashValue))
    if raw.count <= 64, let hit = metadataValues.find(raw, hash: hash) { return hit }
    let bytes = scanner.value(index)
    guard let text = String(validating: bytes, as: UTF8.self), bytes.count <= StoredLimits.metadataString else {
      throw ExportError(
        .value, at: scanner.valueLocation(index),
        "a metadata value must be at most \(StoredLimits.metadataString) bytes of UTF-8")
    }
    let value = MetadataText.value(key: key, text: text)
    if raw.count <= 64 { metadataValues.insert(scanner.rawValue(index), hash: hash, value) }
    return value
  }
}
