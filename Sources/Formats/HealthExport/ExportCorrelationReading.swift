import FoundationEssentials
import HealthModel

/// `Correlation` elements: a blood pressure or a food, its metadata and its member records.
extension ExportReader {
  /// Reads a `Correlation` (docs/behavior.md I13): its attributes as a record's (without value and unit), its
  /// `MetadataEntry`s, and its `Record`s, which become samples as top-level records do — with the same content, so
  /// the same identifiers as the copies Apple writes at the top level: a member is stored once. The correlation's
  /// identifier derives from its type, dates, source, metadata and members (or is HealthPair's `_HealthPair.uuid`).
  /// Returns the first member (the others follow from ``next()``); nil when there is none to hand out.
  mutating func correlation() throws(ExportError) -> Sample? {
    let location = scanner.tokenLocation
    let a = recordAttributes()
    guard let typeIndex = a.type else {
      throw ExportError(.notAnExport, at: location, "a '<Correlation>' without a 'type' attribute")
    }
    let typeName = try scanner.string(typeIndex)
    guard let type = SampleType.lookup(name: typeName), type.descriptor.isCorrelation else {
      summary.skip("Correlation", typeName)
      _ = try skipSubtree()
      return nil
    }
    guard let startIndex = a.startDate, let endIndex = a.endDate else {
      throw ExportError(.notAnExport, at: location, "a '<Correlation>' needs 'startDate' and 'endDate' attributes")
    }
    let start = try date(startIndex)
    let end = try date(endIndex)
    if let creation = a.creationDate { _ = try date(creation) }
    guard let sourceIndex = a.sourceName else {
      throw ExportError(.notAnExport, at: location, "a '<Correlation>' without a 'sourceName' attribute")
    }
    let source = try sourceEntry(sourceIndex, version: a.sourceVersion, device: a.device)
    var metadata: Metadata = [:]
    var identifier: UUID?
    var members: [Sample] = []
    var metadataBytes = 0
    try forEachChild(of: "Correlation", at: location) { r throws(ExportError) in
      if r.scanner.nameIs("MetadataEntry") {
        try r.metadataEntry(into: &metadata, identifier: &identifier, bytes: &metadataBytes)
      } else if r.scanner.nameIs("Record") {
        if let member = try r.record(counted: false) { members.append(member) }
      } else {
        r.summary.skip(r.scanner.name, "in Correlation")
        _ = try r.skipSubtree()
      }
    }
    // Members of types the catalog does not hold were skipped; what is left must still make a correlation.
    var seen = Set<UUID>()
    let unique = members.filter { seen.insert($0.uuid).inserted }
    // One that does not (a blood pressure without its diastolic record, say) is skipped and reported by type, its
    // records with it (docs/behavior.md I13; CorrelationReadingTests).
    guard (try? CorrelationInput.checkMembers(of: type, unique.map(\.type))) != nil, start <= end else {
      summary.skip("Correlation", type.identifier)
      return nil
    }
    let derived = ExportIdentity.correlation(
      type: type, start: start, end: end, source: source.hash, metadata: metadata, members: unique.map(\.uuid))
    let correlation = Correlation(
      uuid: identifier ?? derived, type: type, start: Date(timeIntervalSinceReferenceDate: start),
      end: Date(timeIntervalSinceReferenceDate: end), metadata: metadata, source: source.source,
      members: unique.map(\.uuid))
    do { try metadata.checkValues() } catch {
      throw ExportError(.invalidRecord, at: location, "a '<Correlation>' of \(type.identifier): \(error.message)")
    }
    summary.correlations.append(correlation)
    pendingMembers = unique.reversed()
    return pendingMembers.popLast()
  }
}
