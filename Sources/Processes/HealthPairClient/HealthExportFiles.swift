import Dispatch
import FoundationEssentials
import HealthEngine
import HealthExport
import HealthModel
import Posix
import Synchronization
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// A file read front to back (the I/O edge of ``HealthExport``'s readers), or at any offset (a zip's central
/// directory and route entries); counts the bytes read front to back.
package final class FileInput: ByteInput, RandomAccessInput {
  private let fd: Int32
  private let path: String
  /// Bytes read so far.
  package private(set) var bytesRead = 0
  /// The file's size when it was opened.
  package let size: Int

  /// Opens `path` for reading. It must be a regular file (links to one are followed: the export is the user's, not
  /// HealthPair's); a FIFO, device or directory is refused without waiting on it (`O_NONBLOCK`, then `fstat`).
  /// - Throws: ``ExportError`` (`io`) naming the file.
  package init(path: String) throws(ExportError) {
    self.path = path
    let at = ExportLocation(file: path, line: 0, column: 0, offset: 0)
    do {
      fd = try Posix.open(path, O_RDONLY | O_NONBLOCK)
    } catch {
      throw ExportError(.io, at: at, "cannot open: \(error)")
    }
    let kind = (try? Posix.status(of: fd, what: path))?.kind
    guard kind == .regular else {
      Posix.close(fd)
      let what = kind.map { "\($0)" } ?? "unknown kind"
      throw ExportError(.io, at: at, "not a regular file (\(what)): an export is a file")
    }
    size = (try? Posix.fileSize(fd)) ?? 0
  }

  deinit { Posix.close(fd) }

  /// Reads the next bytes.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    do {
      switch try Posix.read(fd, into: buffer) {
      case .bytes(let n):
        bytesRead += n
        return n
      case .endOfFile, .wouldBlock: return 0
      }
    } catch {
      throw ExportError(
        .io, at: ExportLocation(file: path, line: 0, column: 0, offset: bytesRead), "cannot read: \(error)")
    }
  }

  /// Reads at `offset` (`pread`), leaving the stream position alone.
  package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    do { return try Posix.pread(fd, into: buffer, at: offset) } catch {
      throw ExportError(
        .io, at: ExportLocation(file: path, line: 0, column: 0, offset: offset), "cannot read: \(error)")
    }
  }

  /// Whether the file starts with a zip local file header (`PK\3\4`).
  package func startsLikeZip() -> Bool {
    var magic = [UInt8](repeating: 0, count: 4)
    let n = magic.withUnsafeMutableBytes { (try? Posix.pread(fd, into: $0, at: 0)) ?? 0 }
    return n == 4 && magic == [0x50, 0x4B, 0x03, 0x04]
  }
}

/// How ``HealthExportFiles/importExport(path:into:options:progress:)`` runs.
package struct ExportImportOptions: Sendable {
  /// How export sources become sources on the device.
  package var mapping = SourceMapping()
  /// Samples per batch sent to the daemon.
  package var batchSize = 8192
  /// Batches sent before waiting for the first answer.
  package var batchesInFlight = 4
  /// Seconds to wait for each answer; the commit gets ten times as long (it applies every staged sample).
  package var timeout = 120.0
  /// Read the whole file once to check it before sending anything (a file that fails to parse then never reaches
  /// the journal).
  package var validateFirst = false

  /// The defaults.
  package init() {}
}

/// How far an import has got (for a progress line).
package struct ExportImportProgress: Sendable {
  /// Bytes of the file read (compressed bytes for a zip).
  package var fileBytes: Int
  /// The file's size.
  package var fileSize: Int
  /// Records read.
  package var records: Int
  /// Whether this is the validation pass of ``ExportImportOptions/validateFirst``.
  package var validating: Bool
}

/// What an import did.
package struct ExportImportReport: Sendable {
  /// What the file held, and what was skipped.
  package var summary: ImportSummary
  /// What the device added and left out.
  package var outcome: ImportOutcome
  /// The device imported into.
  package var device: DeviceKind
  /// The file's size in bytes.
  package var fileBytes: Int
  /// Seconds the import took.
  package var seconds: Double
}

/// Apple Health exports on disk: importing one into a device, exporting a device's store, writing a synthetic one.
package enum HealthExportFiles {
  /// Opens an export: a zip archive holding `…/export.xml` (recognized by its first bytes) or `export.xml` itself.
  /// Returns the byte input of the XML, the name errors use for it (`export.zip/apple_health_export/export.xml`)
  /// and the file (for progress).
  /// - Throws: ``ExportError`` when the file cannot be opened, or is a zip without an export.xml.
  package static func open(_ path: String) throws(ExportError) -> (input: any ByteInput, name: String, file: FileInput)
  {
    let file = try FileInput(path: path)
    guard file.startsLikeZip() else { return (file, path, file) }
    let zip = ZipExportInput(file, file: path)
    try zip.open()
    return (zip, path + "/" + (zip.entryName ?? "export.xml"), file)
  }

  /// Imports the export at `path` into the device `client` talks to, all or nothing: batches are staged on the
  /// device as they are read and become visible in one commit; any error (in the file or from the device) gives the
  /// import up, so the store is left exactly as it was. Workouts, their routes (inline, or the GPX files under
  /// `workout-routes/` beside `export.xml` or in the same zip), activity summaries, audiograms and the
  /// electrocardiograms of the CSV files under `electrocardiograms/` (beside `export.xml` or in the same zip) are
  /// staged in the same import.
  /// - Throws: ``ExportError`` for the file, ``ClientError`` for the device.
  package static func importExport(
    path: String, into client: DeviceClient, options: ExportImportOptions = ExportImportOptions(),
    progress: ((ExportImportProgress) -> Void)? = nil
  ) throws -> ExportImportReport {
    let started = Posix.monotonicNanoseconds()
    let hello = try client.dump()
    if options.validateFirst {
      let (input, name, file) = try open(path)
      let files = try files(beside: path, zipEntry: (input as? ZipExportInput)?.entryName)
      var reader = ExportReader(input, file: name, mapping: options.mapping)
      reader.pausesForObjects = true
      var count = 0
      var ignored = ImportSummary()
      while try reader.next() != nil || !reader.atEnd {
        // Every route file is read too: a damaged GPX file fails the validation, not the import.
        _ = try routes(of: reader.takeWorkouts(), in: files, summary: &ignored)
        _ = reader.takeSummaries()
        _ = reader.takeAudiograms()
        _ = reader.takePrescriptions()
        _ = try clinicalRecords(reader.takeClinicalRecords(), in: files, summary: &ignored)
        count += 1
        if count % 65_536 == 0 {
          progress?(
            ExportImportProgress(
              fileBytes: file.bytesRead, fileSize: file.size, records: reader.summary.records, validating: true))
        }
      }
      for ecg in try electrocardiogramPaths(in: files) { _ = try readElectrocardiogram(ecg, in: files) }
    }
    // The file is read and parsed on a thread of its own while this one encodes and sends the batches: on a
    // machine with cores to spare the two halves of the importer's work overlap (`make bench` row 8).
    let reading = PipelinedExportReader.start(
      path: path, mapping: options.mapping, batchSize: options.batchSize, depth: 2)
    defer { reading.stop() }
    var importID: UInt64 = 0
    while importID == 0 { importID = Posix.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    var inFlight: [PendingOperation<Void>] = []
    var staged = false
    func send(_ operation: DeviceOperation<Void>) throws {
      inFlight.append(try client.start(operation))
      staged = true
      while inFlight.count > max(0, options.batchesInFlight - 1) {
        try inFlight.removeFirst().wait(timeout: options.timeout)
      }
    }
    // Workouts follow the samples they name and routes their workouts, in one import: staged in that order, all
    // visible at its commit (issue 32: atomic).
    func send(_ batch: ExportBatch) throws {
      if !batch.samples.isEmpty { try send(.importBatch(importID, batch.samples)) }
      if !batch.workouts.isEmpty { try send(.importWorkouts(importID, batch.workouts)) }
      if !batch.routes.isEmpty { try send(.importRoutes(importID, batch.routes)) }
      if !batch.summaries.isEmpty { try send(.importActivitySummaries(importID, batch.summaries)) }
      if !batch.audiograms.isEmpty { try send(.importAudiograms(importID, batch.audiograms)) }
      if !batch.prescriptions.isEmpty { try send(.importVisionPrescriptions(importID, batch.prescriptions)) }
      if !batch.clinicalRecords.isEmpty { try send(.importClinicalRecords(importID, batch.clinicalRecords)) }
      if !batch.electrocardiograms.isEmpty { try send(.importElectrocardiograms(importID, batch.electrocardiograms)) }
    }
    do {
      var summary = ImportSummary()
      var fileSize = 0
      batches: while true {
        switch try reading.next() {
        case .batch(let batch, let read):
          try send(batch)
          progress?(read)
        case .end(let complete, let size):
          summary = complete
          fileSize = size
          break batches
        }
      }
      for pending in inFlight { try pending.wait(timeout: options.timeout) }
      inFlight.removeAll()
      // The correlations, once their members are staged (docs/behavior.md I13).
      for start in stride(from: 0, to: summary.correlations.count, by: options.batchSize) {
        let chunk = Array(summary.correlations[start..<min(start + options.batchSize, summary.correlations.count)])
        try client.perform(.importCorrelations(importID, chunk), timeout: options.timeout)
        staged = true
      }
      var outcome = ImportOutcome()
      let characteristics = summary.characteristics
      if staged || !characteristics.isEmpty {
        outcome = try client.perform(
          .importCommit(importID, characteristics: characteristics), timeout: options.timeout * 10)
      }
      return ExportImportReport(
        summary: summary, outcome: outcome, device: hello.device.device, fileBytes: fileSize,
        seconds: Double(Posix.monotonicNanoseconds() - started) / 1e9)
    } catch {
      // Give the staged batches up at once (the daemon would also drop them when this connection closes).
      if staged { try? client.start(.importAbort(importID)).wait(timeout: 5) }
      throw error
    }
  }

  /// Writes the store of the device `client` talks to as an export at `path` — `export.xml`, or a zip archive
  /// holding `apple_health_export/export.xml` (stored, not compressed) when `path` ends in `.zip` — with every
  /// live sample, type by type in catalog order and by start date within a type, then every workout (by start date),
  /// every activity summary (by day), every audiogram (by start date) and every vision prescription (by issue date),
  /// dates in the local time of `offsetSeconds`.
  /// Each route is a GPX file
  /// under `workout-routes/` named by the workout's `FileReference` (in the archive, or in the folder of
  /// `export.xml`), and each electrocardiogram a CSV file under `electrocardiograms/` (Apple's layout and names,
  /// ``ECGCSV``). Every file is written beside its place and renamed into place (`export.xml` last), so a failed
  /// export leaves no partial file. Returns how many records were written (of export.xml: the CSV files are not
  /// counted).
  /// - Throws: ``ClientError`` for the device, `SystemError` for the file.
  package static func exportStore(from client: DeviceClient, to path: String, offsetSeconds: Int = 0) throws -> Int {
    let snapshot = try client.dump()
    let workouts = try client.storedWorkouts().sorted {
      ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString)
    }
    let summaries = try client.storedActivitySummaries().sorted { $0.day < $1.day }
    let audiograms = try client.storedAudiograms().sorted {
      ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString)
    }
    let clinicalRecords = try client.storedClinicalRecords().sorted {
      ($0.date, $0.uuid.uuidString) < ($1.date, $1.uuid.uuidString)
    }
    let prescriptions = try client.storedVisionPrescriptions().sorted {
      ($0.dateIssued, $0.uuid.uuidString) < ($1.dateIssued, $1.uuid.uuidString)
    }
    func routes(of workout: Workout) throws -> [WorkoutRoute] {
      try client.storedRoutes(workout: workout.uuid).sorted {
        ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString)
      }
    }
    // The route files' names, as the XML names them; their bytes are made again when they are written (after
    // export.xml in the archive), so no more than one workout's routes are held at a time.
    var routeNames: [(workout: Workout, names: [String])] = []
    var records = 0
    _ = try writeRaw(
      path,
      { sink in
        try withoutActuallyEscaping(sink) { sink in
          var writer = ExportWriter(offsetSeconds: offsetSeconds, sink: sink)
          try writer.begin(exportDate: snapshot.device.now, characteristics: snapshot.device.characteristics)
          for type in SampleType.all where (snapshot.device.sampleCounts[type] ?? 0) > 0 {
            for sample in try client.storedSamples(type: type).samples { try writer.write(sample) }
          }
          for result in try client.storedCorrelations() {
            try writer.write(result.correlation, members: result.objects)
          }
          for workout in workouts {
            var names: [String] = []
            try writer.write(workout, routes: try routes(of: workout)) { name, _ in names.append(name) }
            if !names.isEmpty { routeNames.append((workout, names)) }
          }
          for summary in summaries { try writer.write(summary) }
          // Apple's order: the clinical records, the audiograms, the prescriptions.
          for record in clinicalRecords { try writer.write(record) }
          for audiogram in audiograms { try writer.write(audiogram) }
          for prescription in prescriptions { try writer.write(prescription) }
          try writer.finish()
          records = writer.records
        }
      },
      extras: { add in
        for (workout, names) in routeNames {
          let current = try routes(of: workout)
          guard current.count == names.count else {
            throw ExportError(
              .io, at: ExportLocation(file: path, line: 0, column: 0, offset: 0),
              "workout \(workout.uuid)'s routes changed during the export")
          }
          for (route, name) in zip(current, names) {
            try add(name, GPXWriter.document(for: route, offsetSeconds: offsetSeconds))
          }
        }
        try addElectrocardiogramFiles(from: client, offsetSeconds: offsetSeconds, add)
        try addClinicalRecordFiles(clinicalRecords, add)
      })
    return records
  }

  /// Writes a synthetic export at `path` (zipped when it ends in `.zip`); returns its size in bytes.
  package static func writeSynthetic(_ generator: SyntheticExport, to path: String) throws -> Int {
    try writeRaw(path, { sink in try generator.write(sink) })
  }

  /// Creates `path` through a temporary file beside it, made exclusively under an unpredictable name
  /// (``Posix/createTemporaryFile(beside:mode:)``: nothing planted in a shared directory is written through), then
  /// renamed over `path`: `body` sends the XML through its sink; a `.zip` path gets the XML as
  /// `apple_health_export/export.xml` in a zip archive. `extras` then adds files by path relative to the export's
  /// folder: entries after it in the archive, or files beside `export.xml` (each through a temporary file renamed
  /// into place, before `export.xml` is). Returns the size of the file at `path`.
  private static func writeRaw(
    _ path: String, _ body: (([UInt8]) throws -> Void) throws -> Void,
    extras: ((String, [UInt8]) throws -> Void) throws -> Void = { _ in }
  ) throws -> Int {
    let (fd, temporary) = try Posix.createTemporaryFile(beside: path, mode: 0o644)
    var closed = false
    defer {
      if !closed {
        Posix.close(fd)
        Posix.unlink(temporary)
      }
    }
    let zipped = path.lowercased().hasSuffix(".zip")
    var zip = ZipWriter(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0)
    var size = 0
    func write(_ bytes: [UInt8]) throws {
      try bytes.withUnsafeBytes { buffer in try Posix.writeAll(fd, buffer, what: temporary) }
      size += bytes.count
    }
    func finishEntry() throws {
      for patch in zip.finishEntry() {
        try patch.bytes.withUnsafeBytes { buffer in
          try Posix.pwriteAll(fd, buffer, at: patch.offset, what: temporary)
        }
      }
    }
    if zipped { try write(zip.beginEntry("apple_health_export/export.xml")) }
    try body { chunk in
      try write(chunk)
      if zipped { chunk.withUnsafeBytes { zip.add($0) } }
    }
    if zipped { try finishEntry() }
    let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    try extras { name, bytes in
      if zipped {
        try write(zip.beginEntry("apple_health_export/" + name))
        try write(bytes)
        bytes.withUnsafeBytes { zip.add($0) }
        try finishEntry()
      } else {
        let target = (folder.isEmpty ? "" : folder + "/") + name
        let directory = target.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !directory.isEmpty { try Posix.makeDirectory(directory, mode: 0o755) }
        try writeWhole(target, bytes)
      }
    }
    if zipped { try write(zip.finish()) }
    try Posix.fsync(fd, what: temporary)
    Posix.close(fd)
    closed = true
    do { try Posix.rename(temporary, to: path) } catch {
      Posix.unlink(temporary)
      throw error
    }
    return size
  }

  /// Writes `bytes` as the file `path`, through a temporary file beside it renamed into place.
  private static func writeWhole(_ path: String, _ bytes: [UInt8]) throws {
    let (fd, temporary) = try Posix.createTemporaryFile(beside: path, mode: 0o644)
    do {
      defer { Posix.close(fd) }
      try bytes.withUnsafeBytes { buffer in try Posix.writeAll(fd, buffer, what: temporary) }
      try Posix.fsync(fd, what: temporary)
    } catch {
      Posix.unlink(temporary)
      throw error
    }
    do { try Posix.rename(temporary, to: path) } catch {
      Posix.unlink(temporary)
      throw error
    }
  }
}

extension ExportImportReport {
  /// The report a person reads: what was added, from which sources, and what was skipped by element and type.
  package var text: String {
    func count(_ n: Int) -> String {
      let digits = String(n)
      var out = ""
      for (i, c) in digits.reversed().enumerated() {
        if i > 0 && i % 3 == 0 { out.append(",") }
        out.append(c)
      }
      return String(out.reversed())
    }
    let rate = seconds > 0 ? Int(Double(summary.records) / seconds) : 0
    var lines = [
      "imported \(count(outcome.addedCount)) samples into the \(device) in "
        + "\(formatNumber((seconds * 100).rounded() / 100)) s "
        + "(\(count(summary.records)) records read, \(count(rate)) records/s)"
    ]
    var left: [String] = []
    if outcome.alreadyPresent > 0 { left.append("\(count(outcome.alreadyPresent)) already present") }
    if outcome.beforeRetention > 0 {
      left.append("\(count(outcome.beforeRetention)) before the \(device)'s retention window")
    }
    if !left.isEmpty { lines.append("  not added    " + left.joined(separator: ", ")) }
    if !outcome.added.isEmpty {
      lines.append(
        "  added        "
          + outcome.added.sorted { $0.key < $1.key }.map { "\($0.key.name) \(count($0.value))" }
          .joined(separator: ", "))
    }
    if !summary.correlations.isEmpty {
      let byType = Dictionary(grouping: summary.correlations, by: \.type).sorted { $0.key < $1.key }
      lines.append(
        "  correlations " + byType.map { "\($0.key.name) \(count($0.value.count))" }.joined(separator: ", ")
          + " (read; their records are samples above)")
    }
    if summary.electrocardiograms > 0 {
      lines.append("  ECGs         \(count(summary.electrocardiograms)) CSV files read (staged with the samples)")
    }
    if summary.audiograms > 0 {
      lines.append("  audiograms   \(count(summary.audiograms)) (read, staged with the samples)")
    }
    if summary.clinicalRecords > 0 {
      let staged = device == .phone ? "staged with the samples" : "left out: records are kept on the iPhone"
      lines.append("  records      \(count(summary.clinicalRecords)) clinical (read, \(staged))")
    }
    if summary.visionPrescriptions > 0 {
      let staged = device == .phone ? "staged with the samples" : "left out: prescriptions are kept on the iPhone"
      lines.append("  prescriptions \(count(summary.visionPrescriptions)) (read, \(staged))")
    }
    if summary.workouts > 0 || summary.activitySummaries > 0 {
      lines.append(
        "  workouts     \(count(summary.workouts)) (\(count(summary.routes)) route\(summary.routes == 1 ? "" : "s")), "
          + "activity summaries \(count(summary.activitySummaries)) (read, staged with the samples)")
    }
    if !summary.characteristics.isEmpty {
      let values = summary.characteristics.sorted { $0.key < $1.key }.map {
        "\($0.key.name) \($0.value.name(for: $0.key))"
      }
      let changed =
        outcome.characteristicsSet == summary.characteristics.count
        ? "" : " (\(outcome.characteristicsSet) changed, the others already so)"
      lines.append("  me           " + values.joined(separator: ", ") + changed)
    }
    // A source only a route names (its workout's source has other details) adds nothing to read.
    let named = summary.sources.filter { $0.samples > 0 || $0.workouts > 0 || $0.audiograms > 0 }
    for (i, entry) in named.enumerated() {
      let source = entry.source
      let kind = source.isApple ? "Apple, \(source.device)" : "app, \(source.device)"
      lines.append(
        (i == 0 ? "  sources      " : "               ") + "\(source.details?.name ?? source.bundleID): "
          + "\(count(entry.samples))\(entry.workouts > 0 ? " + \(count(entry.workouts)) workouts" : "")"
          + "\(entry.audiograms > 0 ? " + \(count(entry.audiograms)) audiograms" : "") "
          + "(\(kind), \(source.bundleID))")
    }
    var skipped: [String] = []
    for (type, n) in summary.skippedTypes.sorted(by: { $0.key < $1.key }) {
      skipped.append("Record \(type): \(count(n)) (type not in the catalog)")
    }
    for (element, details) in summary.skippedElements.sorted(by: { $0.key < $1.key }) {
      for (detail, n) in details.sorted(by: { $0.key < $1.key }) {
        skipped.append("\(element)\(detail.isEmpty ? "" : " \(detail)"): \(count(n))")
      }
    }
    for (i, line) in skipped.enumerated() { lines.append((i == 0 ? "  skipped      " : "               ") + line) }
    return lines.joined(separator: "\n") + "\n"
  }
}
