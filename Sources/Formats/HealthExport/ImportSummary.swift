import FoundationEssentials
import HealthModel

/// What reading an export found: the export's date, the samples by type and source, and every element and record
/// type that was not imported, with counts.
package struct ImportSummary: Hashable, Sendable {
  /// A source and how many of its samples were read.
  package struct SourceCount: Hashable, Sendable {
    /// The source as it is stored (bundle identifier, device kind, name, version, hardware).
    package var source: SampleSource
    /// Samples read from it.
    package var samples: Int
    /// Workouts read from it.
    package var workouts = 0
    /// Audiograms read from it.
    package var audiograms = 0
  }

  /// `ExportDate`.
  package var exportDate: Date?
  /// `HealthData`'s `locale`.
  package var locale: String?
  /// Top-level `Record` elements read.
  package var records = 0
  /// Samples read, by type (records of types the catalog knows).
  package var samples: [SampleType: Int] = [:]
  /// `Record` types the catalog does not know, by identifier (skipped).
  package var skippedTypes: [String: Int] = [:]
  /// Elements not imported — `Me` attributes of characteristics the catalog does not hold, a `Workout` of an
  /// activity type the model does not know, a `WorkoutStatistics` of a type the catalog does not hold, a
  /// `WorkoutRoute` without fixes, a `FileReference` to a file the export does not hold (counted by the file side),
  /// a `Correlation` whose records do not make one, a `ClinicalRecord` of a type the catalog does not hold or whose
  /// file the export does not hold, an `Audiogram` of another type, a
  /// prescription's `Attachment`, heart-rate variability beat lists, unknown elements — by element, then by type (the
  /// element's `type` or `workoutActivityType`, or what was wrong; empty when it has none).
  package var skippedElements: [String: [String: Int]] = [:]
  /// The sources, in order of first appearance.
  package var sources: [SourceCount] = []
  /// The characteristics `Me` sets (those it says are not set are left out).
  package var characteristics: [SampleType: CharacteristicValue] = [:]
  /// The `Correlation` elements read (blood pressure, food), by their members' identifiers: the members are read
  /// as samples too (docs/behavior.md I13).
  package var correlations: [Correlation] = []

  /// `Workout` elements read (handed out by ``ExportReader/takeWorkouts()``).
  package var workouts = 0
  /// `WorkoutRoute` elements read with their workouts (with fixes or a file reference).
  package var routes = 0
  /// `ActivitySummary` elements read (handed out by ``ExportReader/takeSummaries()``).
  package var activitySummaries = 0
  /// `Audiogram` elements read (handed out by ``ExportReader/takeAudiograms()``).
  package var audiograms = 0
  /// `VisionPrescription` elements read (handed out by ``ExportReader/takePrescriptions()``).
  package var visionPrescriptions = 0
  /// `ClinicalRecord` elements read (handed out by ``ExportReader/takeClinicalRecords()``).
  package var clinicalRecords = 0
  /// Electrocardiogram CSV files read from `electrocardiograms/` (counted by the file side).
  package var electrocardiograms = 0

  /// Creates an empty summary.
  package init() {}

  /// Samples read, all types.
  package var sampleCount: Int { samples.values.reduce(0, +) }
  /// Records and elements skipped, all kinds.
  package var skippedCount: Int {
    skippedTypes.values.reduce(0, +) + skippedElements.values.reduce(0) { $0 + $1.values.reduce(0, +) }
  }

  /// Counts `count` skipped `element`s of kind `detail`, under ``otherKinds`` past ``maxKinds``.
  package mutating func skip(_ element: String, _ detail: String = "", count: Int = 1) {
    let element = skippedElements[element] != nil || skippedElements.count < Self.maxKinds ? element : Self.otherKinds
    let detail =
      skippedElements[element]?[detail] != nil || (skippedElements[element]?.count ?? 0) < Self.maxKinds
      ? detail : Self.otherKinds
    skippedElements[element, default: [:]][detail, default: 0] += count
  }

  /// Counts one skipped record of `type`, under ``otherKinds`` past ``maxKinds``.
  mutating func skipType(_ type: String) {
    let type = skippedTypes[type] != nil || skippedTypes.count < Self.maxKinds ? type : Self.otherKinds
    skippedTypes[type, default: 0] += 1
  }
}
