import FoundationEssentials
import HealthExport
import HealthModel
import Posix

extension DirectoryExportFiles {
  /// The names ending in `.csv` or any other that are not folders, directly in `folder` under ``root``, as paths
  /// relative to it, sorted; empty when there is no such folder.
  /// - Throws: ``ExportError`` (`io`) when the folder exists but cannot be listed.
  package func paths(in folder: String) throws(ExportError) -> [String] {
    let full = displayName(of: folder.hasSuffix("/") ? String(folder.dropLast()) : folder)
    guard Posix.directoryExists(full) else { return [] }
    do {
      return try Posix.listDirectory(full).filter { !Posix.directoryExists(full + "/" + $0) }.map { folder + $0 }
    } catch {
      throw ExportError(.io, at: ExportLocation(file: full, line: 0, column: 0, offset: 0), "cannot list: \(error)")
    }
  }
}

extension HealthExportFiles {
  /// The electrocardiogram files of an export: the paths of the `.csv` files (any case) directly in its
  /// `electrocardiograms/` folder, sorted by name.
  /// - Throws: ``ExportError`` when the folder cannot be listed.
  static func electrocardiogramPaths(in files: any ExportFiles) throws(ExportError) -> [String] {
    try files.paths(in: ECGCSV.folder).filter { $0.lowercased().hasSuffix(".csv") }
  }

  /// Reads the electrocardiogram file at `path` (relative to the export's folder) through `files`
  /// (``ECGCSV/read(_:file:)``).
  /// - Throws: ``ExportError``: the file is gone, larger than ``ECGCSV/maxFileSize``, cannot be read, or does not
  ///   parse (located at its line).
  static func readElectrocardiogram(_ path: String, in files: any ExportFiles) throws(ExportError)
    -> Electrocardiogram
  {
    let name = files.displayName(of: path)
    let at = ExportLocation(file: name, line: 0, column: 0, offset: 0)
    guard var input = try files.open(path) else { throw ExportError(.io, at: at, "the file is gone") }
    var bytes: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    defer { chunk.deallocate() }
    while true {
      let n = try input.read(into: chunk)
      if n == 0 { break }
      guard bytes.count + n <= ECGCSV.maxFileSize else {
        throw ExportError(.invalidRecord, at: at, "more than \(ECGCSV.maxFileSize) bytes: not an ECG file")
      }
      bytes += chunk[0..<n]
    }
    return try ECGCSV.read(bytes, file: name)
  }

  /// The files `exportStore` adds for the electrocardiograms on the device `client` talks to: one CSV each under
  /// `electrocardiograms/` (``ECGCSV/files(for:offsetSeconds:)``, ``ECGCSV/document(for:offsetSeconds:)``), dates
  /// in the local time of `offsetSeconds`.
  /// - Throws: ``ClientError`` for the device; what `add` throws.
  static func addElectrocardiogramFiles(
    from client: DeviceClient, offsetSeconds: Int, _ add: (String, [UInt8]) throws -> Void
  ) throws {
    for (path, ecg) in ECGCSV.files(for: try client.storedElectrocardiograms(), offsetSeconds: offsetSeconds) {
      try add(path, ECGCSV.document(for: ecg, offsetSeconds: offsetSeconds))
    }
  }
}
