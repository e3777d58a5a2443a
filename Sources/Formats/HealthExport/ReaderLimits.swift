extension ExportReader {
  /// The most child elements a `Record` or a `Correlation` may have (Apple's records have a few `MetadataEntry`s; a
  /// food correlation a few dozen records): one with more is refused with a located error, so what a single element
  /// holds in memory (its metadata, its members) stays bounded.
  package static let maxChildren = 4096

  /// The most bytes of metadata (keys and values as written) one `Record` or `Correlation` may hold: one value may
  /// be 1 MiB (``StoredLimits/metadataString``), but thousands of them would hold gigabytes in one sample.
  package static let maxMetadataBytes = 1 << 21

  /// Throws when an element's metadata so far, `bytes`, exceeds ``maxMetadataBytes`` (at the entry at `location`).
  static func checkMetadataBytes(_ bytes: Int, at location: ExportLocation) throws(ExportError) {
    guard bytes > maxMetadataBytes else { return }
    throw ExportError(.invalidRecord, at: location, "more than \(maxMetadataBytes) bytes of metadata in one element")
  }

  /// Calls `child` for each direct child element of the element the scanner is at (`element`, opened at
  /// `location`; none when it is self-closing), its start tag current, after checking ``maxChildren``; `child`
  /// reads or skips the child's subtree. Returns at the element's end (or the document's).
  mutating func forEachChild(
    of element: String, at location: ExportLocation, _ child: (inout ExportReader) throws(ExportError) -> Void
  ) throws(ExportError) {
    guard !scanner.isSelfClosing else { return }
    let level = scanner.depth
    var children = 0
    while true {
      switch try scanner.next() {
      case .startTag:
        guard scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) else { continue }
        children += 1
        try Self.checkChildCount(children, of: element, at: location)
        try child(&self)
      case .endTag:
        if scanner.depth < level { return }
      case .endOfDocument:
        return
      }
    }
  }

  /// Throws when `count` children exceed ``maxChildren`` in the `element` at `location`.
  static func checkChildCount(_ count: Int, of element: String, at location: ExportLocation) throws(ExportError) {
    guard count > maxChildren else { return }
    throw ExportError(
      .invalidRecord, at: location, "a '<\(element)>' with more than \(maxChildren) child elements")
  }
}

extension ImportSummary {
  /// The most element names, details or record types a summary lists one by one; the rest are counted together
  /// under ``otherKinds``, so a file of endlessly varied names cannot grow the summary without bound.
  package static let maxKinds = 1024
  /// The name under which kinds beyond ``maxKinds`` are counted.
  package static let otherKinds = "(others)"
}
