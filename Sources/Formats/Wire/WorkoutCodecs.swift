import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The codecs of the workout family's request fields and reply payloads (docs/protocol.md: `workout-input`,
// `route-input`, `heartbeat-series-input`, `workout`, `route`, `heartbeat-series`, `activity-summary`,
// `local-day`). Each forwards to the shared encodings in HealthCodec's WorkoutCoding.swift, which the journal
// and snapshots use too.

extension Codec {
  /// A workout an app saves (numbers as sent; the device checks them).
  package enum NewWorkout: FieldCodec {
    /// The smallest encoded workout input.
    package static var minimumSize: Int { WorkoutCodingSize.workoutInput }
    /// Writes `value`.
    package static func write(_ value: WorkoutInput, into w: inout BinaryWriter) { w.workoutInput(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> WorkoutInput { try r.workoutInput() }
  }
  /// A route an app saves: its identifier, locations as inserted and metadata.
  package enum NewRoute: FieldCodec {
    /// The smallest encoded route input.
    package static var minimumSize: Int { WorkoutCodingSize.routeInput }
    /// Writes `value`.
    package static func write(_ value: RouteInput, into w: inout BinaryWriter) { w.routeInput(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> RouteInput { try r.routeInput() }
  }
  /// A heartbeat series an app saves.
  package enum NewHeartbeatSeries: FieldCodec {
    /// The smallest encoded series input.
    package static var minimumSize: Int { WorkoutCodingSize.heartbeatSeriesInput }
    /// Writes `value`.
    package static func write(_ value: HeartbeatSeriesInput, into w: inout BinaryWriter) {
      w.heartbeatSeriesInput(value)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> HeartbeatSeriesInput {
      try r.heartbeatSeriesInput()
    }
  }
  /// A stored workout (replies, imports): finite, in order, each associated sample once.
  package enum StoredWorkout: FieldCodec {
    /// The smallest encoded workout.
    package static var minimumSize: Int { WorkoutCodingSize.workout }
    /// Writes `value`.
    package static func write(_ value: Workout, into w: inout BinaryWriter) { w.workout(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Workout { try r.workout() }
  }
  /// A stored route (replies, imports): finite locations in timestamp order.
  package enum StoredRoute: FieldCodec {
    /// The smallest encoded route.
    package static var minimumSize: Int { WorkoutCodingSize.route }
    /// Writes `value`.
    package static func write(_ value: WorkoutRoute, into w: inout BinaryWriter) { w.workoutRoute(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> WorkoutRoute { try r.workoutRoute() }
  }
  /// A stored heartbeat series (replies).
  package enum StoredHeartbeatSeries: FieldCodec {
    /// The smallest encoded series.
    package static var minimumSize: Int { WorkoutCodingSize.heartbeatSeries }
    /// Writes `value`.
    package static func write(_ value: HeartbeatSeries, into w: inout BinaryWriter) { w.heartbeatSeries(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> HeartbeatSeries {
      try r.heartbeatSeries()
    }
  }
  /// One day's activity summary (replies, imports).
  package enum Summary: FieldCodec {
    /// The encoded size of every summary.
    package static var minimumSize: Int { WorkoutCodingSize.activitySummary }
    /// Writes `value`.
    package static func write(_ value: ActivitySummary, into w: inout BinaryWriter) { w.activitySummary(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> ActivitySummary {
      try r.activitySummary()
    }
  }
  /// A sample filter (docs/protocol.md, `filter`; nested at most 32 deep).
  package enum Filter: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SampleFilter, into w: inout BinaryWriter) { w.sampleFilter(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleFilter { try r.sampleFilter() }
  }
  /// A calendar day: year `i64` | month `u8` | day `u8` (a real Gregorian date).
  package enum Day: FieldCodec {
    /// Six bytes.
    package static var minimumSize: Int { WorkoutCodingSize.localDay }
    /// Writes `value`.
    package static func write(_ value: LocalDay, into w: inout BinaryWriter) { w.localDay(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> LocalDay { try r.localDay() }
  }
  /// Anchored results of workouts, routes or heartbeat series: workouts [workout] | routes [route]
  /// | series [heartbeat-series] | deleted [tombstone] | newAnchor u64.
  package enum AnchoredWorkouts: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: AnchoredWorkoutResult, into w: inout BinaryWriter) {
      Many<StoredWorkout>.write(value.workouts, into: &w)
      Many<StoredRoute>.write(value.routes, into: &w)
      Many<StoredHeartbeatSeries>.write(value.series, into: &w)
      Many<ECGHeader>.write(value.electrocardiograms, into: &w)
      Many<StoredAudiogram>.write(value.audiograms, into: &w)
      Many<StoredStateOfMind>.write(value.statesOfMind, into: &w)
      Many<StoredVisionPrescription>.write(value.visionPrescriptions, into: &w)
      Many<StoredClinicalRecord>.write(value.clinicalRecords, into: &w)
      Many<StoredScoredAssessment>.write(value.scoredAssessments, into: &w)
      Many<StoredCDADocument>.write(value.cdaDocuments, into: &w)
      Many<StoredMedicationDose>.write(value.medicationDoses, into: &w)
      w.array(value.deleted) { $0.tombstone($1) }
      w.u64(value.newAnchor)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AnchoredWorkoutResult {
      AnchoredWorkoutResult(
        workouts: try Many<StoredWorkout>.read(from: &r), routes: try Many<StoredRoute>.read(from: &r),
        series: try Many<StoredHeartbeatSeries>.read(from: &r),
        electrocardiograms: try Many<ECGHeader>.read(from: &r), audiograms: try Many<StoredAudiogram>.read(from: &r),
        statesOfMind: try Many<StoredStateOfMind>.read(from: &r),
        visionPrescriptions: try Many<StoredVisionPrescription>.read(from: &r),
        clinicalRecords: try Many<StoredClinicalRecord>.read(from: &r),
        scoredAssessments: try Many<StoredScoredAssessment>.read(from: &r),
        cdaDocuments: try Many<StoredCDADocument>.read(from: &r),
        medicationDoses: try Many<StoredMedicationDose>.read(from: &r),
        deleted: try r.array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() },
        newAnchor: try r.u64())
    }
  }
}
