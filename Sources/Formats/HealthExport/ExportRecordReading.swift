import FoundationEssentials
import HealthModel

/// `Record` elements: one sample each, with its metadata entries; and the attribute lookup records and
/// correlations share.
extension ExportReader {
  /// Reads a `Record`; `counted` is false for a correlation's member (Apple writes it at the top level too, where
  /// it is counted).
  mutating func record(counted: Bool = true) throws(ExportError) -> Sample? {
    let recordLine = scanner.tokenLine
    let recordColumn = scanner.tokenColumn
    let recordOffset = scanner.tokenOffset
    let file = scanner.file
    func location() -> ExportLocation {
      ExportLocation(file: file, line: recordLine, column: recordColumn, offset: recordOffset)
    }
    let a = recordAttributes()
    guard let typeIndex = a.type else {
      throw ExportError(.notAnExport, at: location(), "a '<Record>' without a 'type' attribute")
    }
    let entry = try typeEntry(typeIndex)
    guard case .known(let type) = entry, !type.descriptor.isCorrelation else {
      if case .unknown(let name) = entry { summary.skipType(name) }
      if case .known(let type) = entry { summary.skipType(type.identifier) }
      _ = try skipSubtree()
      return nil
    }
    guard let startIndex = a.startDate, let endIndex = a.endDate else {
      throw ExportError(.notAnExport, at: location(), "a '<Record>' needs 'startDate' and 'endDate' attributes")
    }
    let start = try date(startIndex)
    let end = try date(endIndex)
    if let creation = a.creationDate { _ = try date(creation) }
    guard let sourceIndex = a.sourceName else {
      throw ExportError(.notAnExport, at: location(), "a '<Record>' without a 'sourceName' attribute")
    }
    let source = try sourceEntry(sourceIndex, version: a.sourceVersion, device: a.device)
    guard let valueIndex = a.value else {
      throw ExportError(.value, at: location(), "a '<Record>' of \(type.identifier) without a 'value' attribute")
    }
    let value: SampleValue
    if type.isQuantity {
      guard let unitIndex = a.unit else {
        throw ExportError(.unit, at: location(), "a quantity '<Record>' of \(type.identifier) without a 'unit'")
      }
      let bytes = scanner.value(valueIndex)
      guard let amount = ExportNumber.parse(bytes) else {
        throw ExportError(
          .value, at: scanner.valueLocation(valueIndex),
          "value '\(String(decoding: bytes, as: UTF8.self))' is not a number")
      }
      value = .quantity(try unitConversion(unitIndex, type: type).apply(amount))
    } else {
      value = .category(try categoryValue(valueIndex, type: type))
    }
    var metadata: Metadata = [:]
    var identifier: UUID?
    if !scanner.isSelfClosing {
      let level = scanner.depth
      var children = 0
      var metadataBytes = 0
      children: while true {
        switch try scanner.next() {
        case .startTag:
          guard scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) else { continue }
          children += 1
          try Self.checkChildCount(children, of: "Record", at: location())
          if scanner.nameIs("MetadataEntry") {
            try metadataEntry(into: &metadata, identifier: &identifier, bytes: &metadataBytes)
          } else if scanner.nameIs("HeartRateVariabilityMetadataList") {
            let beats = try skipSubtree()
            summary.skip("InstantaneousBeatsPerMinute", "in HeartRateVariabilityMetadataList", count: beats)
          } else {
            summary.skip(scanner.name, "in Record")
            _ = try skipSubtree()
          }
        case .endTag:
          if scanner.depth < level { break children }
        case .endOfDocument:
          break children
        }
      }
    }
    let derived = ExportIdentity.sample(
      type: type, value: value, start: start, end: end, source: source.hash, metadata: metadata)
    let sample = Sample(
      uuid: identifier ?? derived, type: type, value: value, start: Date(timeIntervalSinceReferenceDate: start),
      end: Date(timeIntervalSinceReferenceDate: end), metadata: metadata, source: source.source)
    do { try sample.check() } catch {
      throw ExportError(.invalidRecord, at: location(), "a '<Record>' of \(type.identifier): \(error.message)")
    }
    if counted {
      counts[Int(type.code)] += 1
      summary.sources[source.index].samples += 1
    }
    return sample
  }

  /// The indices of a `Record`'s (or a `Correlation`'s) attributes in the scanner's current tag.
  struct RecordAttributes {
    var type: Int?
    var unit: Int?
    var value: Int?
    var device: Int?
    var endDate: Int?
    var startDate: Int?
    var sourceName: Int?
    var creationDate: Int?
    var sourceVersion: Int?
  }

  /// The indices of a `Record`'s attributes, found in one pass (by length and first letter, then compared).
  func recordAttributes() -> RecordAttributes {
    var a = RecordAttributes()
    for i in 0..<scanner.attributeCount {
      let name = scanner.attributeNameBytes(i)
      func equals(_ expected: StaticString) -> Bool {
        expected.utf8CodeUnitCount == name.count
          && expected.withUTF8Buffer { memcmpBytes($0.baseAddress!, name.baseAddress!, name.count) }
      }
      switch name.count {
      case 4:
        if equals("type") { a.type = i } else if equals("unit") { a.unit = i }
      case 5: if equals("value") { a.value = i }
      case 6: if equals("device") { a.device = i }
      case 7: if equals("endDate") { a.endDate = i }
      case 9: if equals("startDate") { a.startDate = i }
      case 10: if equals("sourceName") { a.sourceName = i }
      case 12: if equals("creationDate") { a.creationDate = i }
      case 13: if equals("sourceVersion") { a.sourceVersion = i }
      default: break
      }
    }
    return a
  }
}
