import Dispatch
import FoundationEssentials
import HealthExport
import HealthModel
import Posix
import Synchronization

/// Reads an export on a thread of its own and hands its samples — with the workouts (their route files resolved
/// against the files beside the export), routes, activity summaries and audiograms read since the last batch — over in
/// batches, through a queue of at most `depth` batches (so memory stays bounded however far the reader could run
/// ahead): the importer's parsing and its encoding and sending run at once, each on a core when the machine has two
/// free.
///
/// `@unchecked` only because Dispatch's semaphores are not declared `Sendable` on every platform; they are made to
/// be shared between threads, and everything else mutable is behind `queue` (a mutex).
final class PipelinedExportReader: @unchecked Sendable {
  /// What the reading thread hands over.
  enum Item: Sendable {
    /// The next batch of samples, the workouts, routes and summaries read with them, and how far the file had been
    /// read when it was complete.
    case batch(ExportBatch, ExportImportProgress)
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
      let files = try HealthExportFiles.files(beside: path, zipEntry: (input as? ZipExportInput)?.entryName)
      var reader = ExportReader(input, file: name, mapping: mapping)
      var batch = ExportBatch()
      batch.samples.reserveCapacity(batchSize)
      var missing = ImportSummary()
      func flush(_ reader: borrowing ExportReader) -> Bool {
        let read = ExportImportProgress(
          fileBytes: file.bytesRead, fileSize: file.size, records: reader.summary.records, validating: false)
        defer {
          batch = ExportBatch()
          batch.samples.reserveCapacity(batchSize)
        }
        return put(.item(.batch(batch, read)))
      }
      reader.pausesForObjects = true
      while true {
        let next = try reader.next()
        if let sample = next { batch.samples.append(sample) }
        let workouts = reader.takeWorkouts()
        if !workouts.isEmpty {
          batch.workouts += workouts.map(\.workout)
          batch.routes += try HealthExportFiles.routes(of: workouts, in: files, summary: &missing)
        }
        batch.summaries += reader.takeSummaries()
        batch.audiograms += reader.takeAudiograms()
        batch.prescriptions += reader.takePrescriptions()
        batch.clinicalRecords += try HealthExportFiles.clinicalRecords(
          reader.takeClinicalRecords(), in: files, summary: &missing)
        if batch.samples.count == batchSize || batch.isFullOfWorkouts {
          guard flush(reader) else { return }
        }
        if next == nil && reader.atEnd { break }
      }
      if !batch.isEmpty { guard flush(reader) else { return } }
      // The electrocardiograms, one CSV file each beside export.xml (export.xml names none).
      let ecgPaths = try HealthExportFiles.electrocardiogramPaths(in: files)
      for path in ecgPaths {
        batch.electrocardiograms.append(try HealthExportFiles.readElectrocardiogram(path, in: files))
        if batch.isFullOfWorkouts { guard flush(reader) else { return } }
      }
      if !batch.isEmpty { guard flush(reader) else { return } }
      var summary = reader.summary
      summary.electrocardiograms = ecgPaths.count
      for (element, details) in missing.skippedElements {
        for (detail, count) in details { summary.skip(element, detail, count: count) }
      }
      _ = put(.item(.end(summary, fileSize: file.size)))
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

/// What one batch of an import carries: samples, and the workouts (with their routes), activity summaries,
/// audiograms, vision prescriptions and clinical records read among them (workouts follow the samples they name, in Apple's exports and
/// HealthPair's); after the XML, the electrocardiograms of the `electrocardiograms/` files.
struct ExportBatch: Sendable {
  var samples: [Sample] = []
  var workouts: [Workout] = []
  var routes: [WorkoutRoute] = []
  var summaries: [ActivitySummary] = []
  var audiograms: [Audiogram] = []
  var prescriptions: [VisionPrescription] = []
  var clinicalRecords: [ClinicalRecord] = []
  var electrocardiograms: [Electrocardiogram] = []

  /// Whether nothing was read.
  var isEmpty: Bool {
    samples.isEmpty && workouts.isEmpty && routes.isEmpty && summaries.isEmpty && audiograms.isEmpty
      && prescriptions.isEmpty && clinicalRecords.isEmpty && electrocardiograms.isEmpty
  }

  /// Whether the batch holds enough workouts, route fixes, summaries, audiograms or voltages to be sent now
  /// (bounding memory and the request's size however many the export holds).
  var isFullOfWorkouts: Bool {
    workouts.count >= 256 || summaries.count >= 4096 || audiograms.count >= 4096 || prescriptions.count >= 4096
      || clinicalRecords.reduce(0) { $0 + $1.data.count } >= 1 << 24
      || routes.reduce(0) { $0 + $1.locations.count } >= 1 << 18
      || electrocardiograms.reduce(0) { $0 + $1.voltages.count } >= 1 << 19
  }
}
