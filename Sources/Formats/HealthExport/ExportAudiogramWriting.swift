import FoundationEssentials
import HealthModel

/// `Audiogram` elements, in the layout ``ExportReader`` reads back to the same audiogram.
extension ExportWriter {
  /// Writes `audiogram` as an `Audiogram` (type `HKDataTypeIdentifierAudiogram`): source and dates as a record's
  /// (the device an import or the app gave it), `_HealthPair.uuid` when the element would not derive its
  /// identifier on import, its metadata, then one `SensitivityPoint` per point in the stored order — frequency in
  /// `Hz`, each ear's test in `dBHL` with iOS 18.1's `…Masked` (`1`) and clamping bounds only when set.
  package mutating func write(_ audiogram: Audiogram) throws {
    append(" <Audiogram type=\"\(ExportReader.audiogramTypeName)\"")
    let details = audiogram.source.details
    append(" sourceName=\"\(Self.escape(details?.name ?? audiogram.source.bundleID))\"")
    if let version = details?.version { append(" sourceVersion=\"\(Self.escape(version))\"") }
    let device = Self.device(source: audiogram.source, metadata: audiogram.metadata)
    if let device { append(" device=\"\(Self.escape(device.exportDescription))\"") }
    appendDates(start: audiogram.start, end: audiogram.end, creation: audiogram.end)
    append(">\n")
    let indent = "  "
    if !ExportIdentity.derivesIdentifier(of: audiogram, device: device) {
      append(indent + "<MetadataEntry key=\"\(Self.identifierKey)\" value=\"\(audiogram.uuid.uuidString)\"/>\n")
    }
    appendMetadata(audiogram.metadata, indent: indent)
    for point in audiogram.points {
      append(indent + "<SensitivityPoint frequencyValue=\"\(ExportNumber.format(point.frequency))\"")
      append(" frequencyUnit=\"Hz\"")
      for side in AudiogramSide.allCases {
        guard let test = point.tests.first(where: { $0.side == side }) else { continue }
        let ear = side == .left ? "leftEar" : "rightEar"
        append(" \(ear)Value=\"\(ExportNumber.format(test.sensitivity))\" \(ear)Unit=\"dBHL\"")
        if test.masked { append(" \(ear)Masked=\"1\"") }
        if let lower = test.clampLower { append(" \(ear)ClampingRangeLowerBound=\"\(ExportNumber.format(lower))\"") }
        if let upper = test.clampUpper { append(" \(ear)ClampingRangeUpperBound=\"\(ExportNumber.format(upper))\"") }
      }
      append("/>\n")
    }
    append(" </Audiogram>\n")
    try flushIfFull()
  }
}
