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

/// A file read front to back (the I/O edge of ``HealthExport``'s readers); counts the bytes read.
package final class FileInput: ByteInput {
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
  /// import up, so the store is left exactly as it was.
  /// - Throws: ``ExportError`` for the file, ``ClientError`` for the device.
  package static func importExport(
    path: String, into client: DeviceClient, options: ExportImportOptions = ExportImportOptions(),
    progress: ((ExportImportProgress) -> Void)? = nil
  ) throws -> ExportImportReport {
    let started = Posix.monotonicNanoseconds()
    let hello = try client.dump()
    if options.validateFirst {
      let (input, name, file) = try open(path)
      var reader = ExportReader(input, file: name, mapping: options.mapping)
      var count = 0
      while try reader.next() != nil {
        count += 1
        if count % 65_536 == 0 {
          progress?(
            ExportImportProgress(
              fileBytes: file.bytesRead, fileSize: file.size, records: reader.summary.records, validating: true))
        }
      }
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
    func send(_ batch: [Sample]) throws {
      inFlight.append(try client.start(.importBatch(importID, batch)))
      staged = true
      while inFlight.count > max(0, options.batchesInFlight - 1) {
        try inFlight.removeFirst().wait(timeout: options.timeout)
      }
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
  /// live sample, type by type in catalog order and by start date within a type, dates in the local time of
  /// `offsetSeconds`. The file is written beside `path` and renamed into place, so a failed export leaves no
  /// partial file. Returns how many records were written.
  /// - Throws: ``ClientError`` for the device, `SystemError` for the file.
  package static func exportStore(from client: DeviceClient, to path: String, offsetSeconds: Int = 0) throws -> Int {
    let snapshot = try client.dump()
    return try writeFile(path, offsetSeconds: offsetSeconds) { writer in
      try writer.begin(exportDate: snapshot.device.now, characteristics: snapshot.device.characteristics)
      for type in SampleType.all where (snapshot.device.sampleCounts[type] ?? 0) > 0 {
        for sample in try client.storedSamples(type: type).samples { try writer.write(sample) }
      }
      for result in try client.storedCorrelations() { try writer.write(result.correlation, members: result.objects) }
      try writer.finish()
      return writer.records
    }
  }

  /// Writes a synthetic export at `path` (zipped when it ends in `.zip`); returns its size in bytes.
  package static func writeSynthetic(_ generator: SyntheticExport, to path: String) throws -> Int {
    try writeRaw(path) { sink in try generator.write(sink) }
  }

  private static func writeFile(
    _ path: String, offsetSeconds: Int, _ body: (inout ExportWriter) throws -> Int
  ) throws -> Int {
    var records = 0
    _ = try writeRaw(path) { sink in
      try withoutActuallyEscaping(sink) { sink in
        var writer = ExportWriter(offsetSeconds: offsetSeconds, sink: sink)
        records = try body(&writer)
      }
    }
    return records
  }

  /// Creates `path` through a temporary file beside it, made exclusively under an unpredictable name
  /// (``Posix/createTemporaryFile(beside:mode:)``: nothing planted in a shared directory is written through), then
  /// renamed over `path`: `body` sends the XML through its sink; a `.zip` path gets the XML as
  /// `apple_health_export/export.xml` in a zip archive. Returns the file's size.
  private static func writeRaw(_ path: String, _ body: (([UInt8]) throws -> Void) throws -> Void) throws -> Int {
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
    if zipped { try write(zip.beginEntry("apple_health_export/export.xml")) }
    try body { chunk in
      try write(chunk)
      if zipped { chunk.withUnsafeBytes { zip.add($0) } }
    }
    if zipped {
      for patch in zip.finishEntry() {
        try patch.bytes.withUnsafeBytes { buffer in
          try Posix.pwriteAll(fd, buffer, at: patch.offset, what: temporary)
        }
      }
      try write(zip.finish())
    }
    try Posix.fsync(fd, what: temporary)
    Posix.close(fd)
    closed = true
    do { try Posix.rename(temporary, to: path) } catch {
      Posix.unlink(temporary)
      throw error
    }
    return size
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
    if !summary.characteristics.isEmpty {
      let values = summary.characteristics.sorted { $0.key < $1.key }.map {
        "\($0.key.name) \($0.value.name(for: $0.key))"
      }
      let changed =
        outcome.characteristicsSet == summary.characteristics.count
        ? "" : " (\(outcome.characteristicsSet) changed, the others already so)"
      lines.append("  me           " + values.joined(separator: ", ") + changed)
    }
    for (i, entry) in summary.sources.enumerated() {
      let source = entry.source
      let kind = source.isApple ? "Apple, \(source.device)" : "app, \(source.device)"
      lines.append(
        (i == 0 ? "  sources      " : "               ") + "\(source.details?.name ?? source.bundleID): "
          + "\(count(entry.samples)) (\(kind), \(source.bundleID))")
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

/// Reads an export on a thread of its own and hands its samples over in batches, through a queue of at most `depth`
/// batches (so memory stays bounded however far the reader could run ahead): the importer's parsing and its encoding
/// and sending run at once, each on a core when the machine has two free.
///
/// `@unchecked` only because Dispatch's semaphores are not declared `Sendable` on every platform; they are made to
/// be shared between threads, and everything else mutable is behind `queue` (a mutex).
private final class PipelinedExportReader: @unchecked Sendable {
  /// What the reading thread hands over.
  enum Item: Sendable {
    /// The next batch of samples, and how far the file had been read when it was complete.
    case batch([Sample], ExportImportProgress)
    /// The export was read to its end: what it held and skipped, and the file's size.
    case end(ImportSummary, fileSize: Int)
  }

  private enum Entry: Sendable {
    case item(Item)
    case failure(ExportError)
  }

  private struct Queue {
    var entries: [Entry] = []
    var stopped = false
  }

  private let queue = Mutex(Queue())
  /// Entries waiting in `queue`.
  private let available = DispatchSemaphore(value: 0)
  /// Room left in `queue`.
  private let space: DispatchSemaphore
  /// Signalled once, when the reading thread has returned.
  private let finished = DispatchSemaphore(value: 0)

  private init(depth: Int) { space = DispatchSemaphore(value: max(1, depth)) }

  /// Opens the export at `path` and starts reading it on a new thread, `batchSize` samples a batch.
  static func start(path: String, mapping: SourceMapping, batchSize: Int, depth: Int) -> PipelinedExportReader {
    let reader = PipelinedExportReader(depth: depth)
    Posix.startThread { reader.produce(path: path, mapping: mapping, batchSize: max(1, batchSize)) }
    return reader
  }

  /// The next batch, or the end of the export.
  /// - Throws: the ``ExportError`` that stopped the reading thread (the file could not be opened, was malformed…).
  func next() throws(ExportError) -> Item {
    available.wait()
    let entry = queue.withLock { $0.entries.removeFirst() }
    space.signal()
    switch entry {
    case .item(let item): return item
    case .failure(let error): throw error
    }
  }

  /// Stops the reading thread (it gives up at its next batch) and waits until it has returned. Called once.
  func stop() {
    queue.withLock {
      $0.stopped = true
      $0.entries.removeAll()
    }
    space.signal()
    finished.wait()
  }

  private func produce(path: String, mapping: SourceMapping, batchSize: Int) {
    defer { finished.signal() }
    do throws(ExportError) {
      let (input, name, file) = try HealthExportFiles.open(path)
      var reader = ExportReader(input, file: name, mapping: mapping)
      var batch: [Sample] = []
      batch.reserveCapacity(batchSize)
      while let sample = try reader.next() {
        batch.append(sample)
        if batch.count == batchSize {
          let read = ExportImportProgress(
            fileBytes: file.bytesRead, fileSize: file.size, records: reader.summary.records, validating: false)
          guard put(.item(.batch(batch, read))) else { return }
          batch = []
          batch.reserveCapacity(batchSize)
        }
      }
      if !batch.isEmpty {
        let read = ExportImportProgress(
          fileBytes: file.bytesRead, fileSize: file.size, records: reader.summary.records, validating: false)
        guard put(.item(.batch(batch, read))) else { return }
      }
      _ = put(.item(.end(reader.summary, fileSize: file.size)))
    } catch {
      _ = put(.failure(error))
    }
  }

  /// Queues `entry`, waiting for room; false once the consumer has stopped.
  private func put(_ entry: Entry) -> Bool {
    space.wait()
    let accepted = queue.withLock { queue -> Bool in
      guard !queue.stopped else { return false }
      queue.entries.append(entry)
      return true
    }
    if accepted { available.signal() }
    return accepted
  }
}
