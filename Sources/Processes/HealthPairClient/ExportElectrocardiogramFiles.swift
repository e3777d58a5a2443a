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
    guard let bytes = try readFile(path, in: files, max: ECGCSV.maxFileSize, what: "an ECG file") else {
      throw ExportError(.io, at: at, "the file is gone")
    }
    return try ECGCSV.read(bytes, file: name)
  }

  /// The bytes of the file at `path` through `files`, or nil when the export holds no such file.
  /// - Throws: ``ExportError`` when it cannot be read, or holds more than `max` bytes (then it is not `what`).
  static func readFile(_ path: String, in files: any ExportFiles, max: Int, what: String) throws(ExportError)
    -> [UInt8]?
  {
    let at = ExportLocation(file: files.displayName(of: path), line: 0, column: 0, offset: 0)
    guard var input = try files.open(path) else { return nil }
    var bytes: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    defer { chunk.deallocate() }
    while true {
      let n = try input.read(into: chunk)
      if n == 0 { break }
      guard bytes.count + n <= max else {
        throw ExportError(.invalidRecord, at: at, "more than \(max) bytes: not \(what)")
      }
      bytes += chunk[0..<n]
    }
    return bytes
  }

  /// The clinical records of `pending` (elements read from export.xml), each with the FHIR file it names read
  /// through `files` (``ClinicalRecordFile/record(_:data:file:)``); an element whose file the export does not hold
  /// is skipped and reported in `summary`.
  /// - Throws: ``ExportError`` for a file that cannot be read or is not a FHIR resource HealthKit keeps.
  static func clinicalRecords(
    _ pending: [PendingClinicalRecord], in files: any ExportFiles, summary: inout ImportSummary
  )
    throws(ExportError) -> [ClinicalRecord]
  {
    var records: [ClinicalRecord] = []
    for element in pending {
      guard
        let data = try readFile(
          element.path, in: files, max: ClinicalRecord.maxData, what: "a FHIR resource HealthKit keeps")
      else {
        summary.skip("ClinicalRecord", "file not in the export")
        continue
      }
      records.append(try ClinicalRecordFile.record(element, data: data, file: files.displayName(of: element.path)))
    }
    return records
  }

  /// The FHIR files `exportStore` adds for the clinical records on the device `client` talks to.
  /// - Throws: ``ClientError`` for the device; what `add` throws.
  static func addClinicalRecordFiles(_ records: [ClinicalRecord], _ add: (String, [UInt8]) throws -> Void) throws {
    for record in records { try add(ClinicalRecordFile.name(of: record), record.data) }
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
