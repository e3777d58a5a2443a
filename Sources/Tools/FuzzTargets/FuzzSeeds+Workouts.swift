import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Wire

// The workout family in the fuzz seeds: journal events 80–85, sync payloads 80–84 and a snapshot holding
// workouts, a route, a heartbeat series, an activity summary and deletions, so mutations start from valid workout
// bytes (a count, a date, an activity type, an event order) instead of having to build them from random ones.

extension FuzzTargets {
  /// Valid workout-family objects saved by `app` from `t0`, naming `sample`.
  struct WorkoutSeed {
    let workout: Workout
    let route: WorkoutRoute
    let series: HeartbeatSeries
    let summary: ActivitySummary
    let tombstone: Tombstone

    init(t0: Date, app: String, sample: Sample) {
      let source = SampleSource(bundleID: app, device: .watch)
      let energy = SampleType.lookup(name: "activeEnergyBurned")!
      let id = UUID(uuid: (9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6))
      let input = WorkoutInput(
        uuid: id, activityType: .running, start: t0, end: t0.addingTimeInterval(1800),
        events: [
          WorkoutEvent(type: .pause, start: t0.addingTimeInterval(600)),
          WorkoutEvent(type: .resume, start: t0.addingTimeInterval(900)),
          WorkoutEvent(type: .lap, start: t0.addingTimeInterval(900), end: t0.addingTimeInterval(1200)),
        ],
        statistics: [WorkoutStatistic(type: energy, start: t0, end: t0.addingTimeInterval(1800), sum: 300)],
        metadata: ["HKIndoorWorkout": .bool(false)], associated: [sample.uuid])
      workout = try! input.validated(source: source)
      let fixes = (0..<3).map {
        RouteLocation(timestamp: t0.addingTimeInterval(Double($0)), latitude: 48, longitude: 2)
      }
      route = try! RouteInput(uuid: UUID(uuid: (7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)), locations: fixes)
        .validated(workout: id, source: source)
      series = try! HeartbeatSeriesInput(
        uuid: UUID(uuid: (6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6)), start: t0, end: t0.addingTimeInterval(2),
        beats: [Heartbeat(offset: 0), Heartbeat(offset: 0.8, precededByGap: true)]
      ).validated(source: source)
      summary = ActivitySummary(
        day: LocalDay(year: 2026, month: 1, day: 5), moveMode: .activeEnergy, activeEnergy: 300, activeEnergyGoal: 400,
        moveTime: 0, moveTimeGoal: 30, exerciseTime: 25, exerciseTimeGoal: 30, standHours: 3, standHoursGoal: 12,
        isPaused: false)
      tombstone = Tombstone(
        uuid: series.uuid, type: SampleType.lookup(name: "heartbeatSeries")!, source: source, deletedAt: t0)
    }

    /// Journal events of every workout tag, in an order a device can apply.
    var events: [DeviceEvent] {
      [
        .workoutsSaved([workout]), .routesSaved([route]), .heartbeatSeriesSaved([series]),
        .workoutSamplesAssociated(workout: workout.uuid, samples: [workout.associated[0]]),
        .workoutObjectsDeleted([tombstone]),
        .importWorkoutsStaged(id: 5, workouts: [workout], routes: [route], summaries: [summary]),
        .peerEntriesApplied(
          [
            SyncEntry(seq: 2, payload: .workouts([workout])), SyncEntry(seq: 3, payload: .routes([route])),
            SyncEntry(seq: 4, payload: .workoutAssociations(workout: workout.uuid, samples: workout.associated)),
            SyncEntry(seq: 5, payload: .heartbeatSeries([series])),
            SyncEntry(seq: 6, payload: .workoutDeletions([tombstone])),
          ], at: workout.end),
      ]
    }

    /// Sync entries of every workout payload tag.
    var entries: [SyncEntry] {
      [
        SyncEntry(seq: 5, payload: .workouts([workout])), SyncEntry(seq: 6, payload: .routes([route])),
        SyncEntry(seq: 7, payload: .workoutAssociations(workout: workout.uuid, samples: workout.associated)),
        SyncEntry(seq: 8, payload: .heartbeatSeries([series])),
        SyncEntry(seq: 9, payload: .workoutDeletions([tombstone])),
      ]
    }
  }

  /// Valid workout-family inputs of the decoding targets, for a byte-by-byte sweep: a `journal` payload-mode input
  /// per workout event, a `messages` input carrying every workout payload, and the first `snapshot` seed (which
  /// holds the workout section).
  package static func workoutSweepInputs() -> [(target: String, bytes: [UInt8])] {
    let t0 = parseDate("2026-01-05T08:00:00Z")!
    let sample = Sample(
      uuid: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)),
      type: SampleType.lookup(name: "heartRate")!, value: .quantity(2), start: t0, end: t0,
      source: SampleSource(bundleID: "com.example.run", device: .watch))
    let seed = WorkoutSeed(t0: t0, app: "com.example.run", sample: sample)
    var inputs: [(target: String, bytes: [UInt8])] = seed.events.map { event in
      var w = BinaryWriter()
      w.event(event)
      let length = [UInt8(truncatingIfNeeded: w.bytes.count), UInt8(truncatingIfNeeded: w.bytes.count >> 8)]
      return ("journal", [1] + length + w.bytes)
    }
    inputs.append(("messages", PeerMessage.entries(seed.entries).encoded()))
    inputs += seeds("snapshot").prefix(1).map { ("snapshot", $0) }
    return inputs
  }
}
