import HealthExport
import HealthPairClient

/// What ``HealthDevice/importHealthExport(at:sources:)`` did.
public struct HealthExportImport: Sendable, CustomStringConvertible {
  /// One source of the export and how many of its samples were read.
  public struct Source: Sendable, Hashable {
    /// The source's name in the export (`Alice’s Apple Watch`, `Health`, `MyFitnessPal`).
    public let name: String
    /// The bundle identifier it got on the device (`HKSource.bundleIdentifier`).
    public let bundleIdentifier: String
    /// Whether it is one of Apple's own sources (an iPhone, an Apple Watch, the Health app).
    public let isApple: Bool
    /// Samples read from it.
    public let samples: Int
  }

  /// Samples added to the store.
  public let added: Int
  /// Samples left out because the store already held them (imported before).
  public let alreadyPresent: Int
  /// Samples left out because they end before the device's retention window (the watch).
  public let beforeRetentionWindow: Int
  /// The characteristics the export's `Me` set that changed the device's values (an app with read access reads
  /// them with `biologicalSex()`, `dateOfBirthComponents()`, …).
  public let characteristicsSet: Int
  /// `Record` elements read.
  public let records: Int
  /// `Workout` elements read, staged in the import with the samples.
  public let workouts: Int
  /// Routes read with those workouts (inline, or a `FileReference` to a GPX file; one whose file the export does
  /// not hold is counted here and under `skipped["FileReference"]`).
  public let routes: Int
  /// `ActivitySummary` elements read, stored for their days.
  public let activitySummaries: Int
  /// `Audiogram` elements read, staged in the import (those the store did not hold count in ``added``, the others
  /// in ``alreadyPresent`` or ``beforeRetentionWindow``).
  public let audiograms: Int
  /// `VisionPrescription` elements read, staged in the import of an iPhone (the watch leaves them out).
  public let visionPrescriptions: Int
  /// `ClinicalRecord` elements read (with their FHIR files), staged in the import of an iPhone.
  public let clinicalRecords: Int
  /// Electrocardiogram CSV files read from the export's `electrocardiograms/` folder, staged in the import (those
  /// the store did not hold count in ``added``, the others in ``alreadyPresent``).
  public let electrocardiograms: Int
  /// What was not imported, by element or record type (`ClinicalRecord`, `Record HKDataTypeSleepDurationGoal`, …).
  public let skipped: [String: Int]
  /// The export's sources, in order of first appearance.
  public let sources: [Source]
  /// The report `healthpair import` prints.
  public let description: String

  init(_ report: ExportImportReport) {
    added = report.outcome.addedCount
    alreadyPresent = report.outcome.alreadyPresent
    beforeRetentionWindow = report.outcome.beforeRetention
    characteristicsSet = report.outcome.characteristicsSet
    records = report.summary.records
    workouts = report.summary.workouts
    routes = report.summary.routes
    activitySummaries = report.summary.activitySummaries
    audiograms = report.summary.audiograms
    visionPrescriptions = report.summary.visionPrescriptions
    clinicalRecords = report.summary.clinicalRecords
    electrocardiograms = report.summary.electrocardiograms
    var skipped: [String: Int] = [:]
    for (type, count) in report.summary.skippedTypes { skipped["Record \(type)", default: 0] += count }
    for (element, details) in report.summary.skippedElements {
      skipped[element, default: 0] += details.values.reduce(0, +)
    }
    self.skipped = skipped
    sources = report.summary.sources.map {
      Source(
        name: $0.source.details?.name ?? $0.source.bundleID, bundleIdentifier: $0.source.bundleID,
        isApple: $0.source.isApple, samples: $0.samples)
    }
    description = report.text
  }
}
