import FoundationEssentials
import HealthModel

/// An import in progress: its staged batches, as they arrived.
package struct StagedImport: Sendable {
  /// The batches, in order.
  package var batches: [[Sample]] = []
  /// How many samples they hold.
  package var count = 0
  /// The correlations staged with them (their members are in the batches; docs/behavior.md I13).
  package var correlations: [Correlation] = []
  /// The workouts staged with them (the samples they name are in the batches).
  package var workouts: [Workout] = []
  /// The routes staged with them (their workouts are staged or stored).
  package var routes: [WorkoutRoute] = []
  /// The activity summaries staged with them.
  package var summaries: [ActivitySummary] = []
  /// The electrocardiograms staged with them.
  package var electrocardiograms: [Electrocardiogram] = []
  /// The audiograms staged with them.
  package var audiograms: [Audiogram] = []
  /// The vision prescriptions staged with them (the iPhone only).
  package var visionPrescriptions: [VisionPrescription] = []
  /// The clinical records staged with them (the iPhone only).
  package var clinicalRecords: [ClinicalRecord] = []
}

/// What committing an import did (``DeviceState/commitImport(_:wall:characteristics:)``).
package struct ImportOutcome: Hashable, Sendable {
  /// Samples added, by type.
  package var added: [SampleType: Int] = [:]
  /// Samples left out because the store already knew their identifier (imported before, or twice in one file).
  package var alreadyPresent = 0
  /// Samples left out because they end before the device's retention window (the watch).
  package var beforeRetention = 0

  /// Creates an outcome.
  package init(added: [SampleType: Int] = [:], alreadyPresent: Int = 0, beforeRetention: Int = 0) {
    self.added = added
    self.alreadyPresent = alreadyPresent
    self.beforeRetention = beforeRetention
  }

  /// Characteristics the export's `Me` set that changed the device's values.
  package var characteristicsSet = 0

  /// Samples added, all types.
  package var addedCount: Int { added.values.reduce(0, +) }
}
