import FoundationEssentials
import HealthModel

/// `DeviceState`: the sync log: entries to send, entries received, log restarts and digests.
extension DeviceState {
  // MARK: - Sync

  /// Outbound entries after `seq` and up to `last`, at most `maxItems` items (at least one entry when any is
  /// pending), with their samples read back from the store.
  package func outboundEntries(after seq: UInt64, through last: UInt64 = .max, maxItems: Int) -> [SyncEntry] {
    sync.storedEntries(after: seq, through: last, maxItems: maxItems).map { stored in
      switch stored.payload {
      case .slots(let start, let count):
        SyncEntry(seq: stored.seq, payload: .samples((Int(start)..<Int(start + count)).map { store.materialize($0) }))
      case .deletions(let tombstones):
        SyncEntry(seq: stored.seq, payload: .deletions(tombstones))
      case .watchSettings(let bundleID, let change):
        SyncEntry(seq: stored.seq, payload: .watchSettings(bundleID: bundleID, change: change))
      case .authorization(let bundleID, let decisions, let at):
        SyncEntry(seq: stored.seq, payload: .authorization(bundleID: bundleID, decisions: decisions, at: at))
      case .sourceOrder(let type, let order):
        SyncEntry(seq: stored.seq, payload: .sourceOrder(type, order))
      case .userSetting(let setting, let at):
        SyncEntry(seq: stored.seq, payload: .userSetting(setting, at: at))
      case .correlations(let correlations):
        SyncEntry(seq: stored.seq, payload: .correlations(correlations))
      case .correlationDeletions(let tombstones):
        SyncEntry(seq: stored.seq, payload: .correlationDeletions(tombstones))
      case .workouts(let workouts): SyncEntry(seq: stored.seq, payload: .workouts(workouts))
      case .workoutAssociations(let workout, let samples):
        SyncEntry(seq: stored.seq, payload: .workoutAssociations(workout: workout, samples: samples))
      case .routes(let routes): SyncEntry(seq: stored.seq, payload: .routes(routes))
      case .heartbeatSeries(let series): SyncEntry(seq: stored.seq, payload: .heartbeatSeries(series))
      case .workoutDeletions(let tombstones): SyncEntry(seq: stored.seq, payload: .workoutDeletions(tombstones))
      case .electrocardiograms(let ecgs): SyncEntry(seq: stored.seq, payload: .electrocardiograms(ecgs))
      case .audiograms(let audiograms): SyncEntry(seq: stored.seq, payload: .audiograms(audiograms))
      case .statesOfMind(let states): SyncEntry(seq: stored.seq, payload: .statesOfMind(states))
      case .scoredAssessments(let assessments): SyncEntry(seq: stored.seq, payload: .scoredAssessments(assessments))
      case .medications(let medications): SyncEntry(seq: stored.seq, payload: .medications(medications))
      case .medicationDoses(let doses): SyncEntry(seq: stored.seq, payload: .medicationDoses(doses))
      }
    }
  }

  /// Applies entries received from the peer (the contiguous run after what is already applied); returns the
  /// events to journal, empty when everything was a re-delivery.
  package mutating func receivePeerEntries(_ entries: [SyncEntry], wall: Date) -> [DeviceEvent] {
    guard sync.appliedFromPeer < UInt64.max else { return [] }
    var expected = sync.appliedFromPeer + 1
    var fresh: [SyncEntry] = []
    let at = now(wall: wall)
    let floor = policy.retention.map { at.addingTimeInterval(-$0) }
    for entry in entries where entry.seq >= expected {
      guard entry.seq == expected, expected < UInt64.max else { break }
      fresh.append(SyncEntry(seq: entry.seq, payload: effective(entry.payload, floor: floor)))
      expected += 1
    }
    if fresh.isEmpty { return [] }
    return commit([.peerEntriesApplied(fresh, at: at)])
  }

  /// Restarts the outbound sync log under `logID` (a fresh random identity from the shell), re-sending every live
  /// sample and deletion. Nothing happens for 0, which is reserved.
  package mutating func restartSyncLog(logID: UInt64) -> [DeviceEvent] {
    guard logID != 0 else { return [] }
    return commit([.syncLogRestarted(logID: logID)])
  }

  /// Adopts the peer's new log identity: the cursor into its log starts from 0 again.
  package mutating func adoptPeerLog(_ logID: UInt64) -> [DeviceEvent] {
    guard logID != 0, logID != sync.peerLogID else { return [] }
    return commit([.peerLogAdopted(logID: logID)])
  }

  /// Records that this device's journal lost records the peer may hold, so the link asks the peer for everything it
  /// holds until it answers (docs/protocol.md, "Asking for a re-send"). Nothing when the request is already pending.
  package mutating func requestPeerResend() -> [DeviceEvent] {
    guard !sync.resendRequested else { return [] }
    return commit([.peerResendRequested])
  }

  /// Adopts the peer's new log as the answer to this device's re-send request: the cursor into it starts from 0 and
  /// the request is cleared.
  package mutating func adoptResentPeerLog(_ logID: UInt64) -> [DeviceEvent] {
    guard logID != 0, sync.resendRequested || logID != sync.peerLogID else { return [] }
    return commit([.peerResendAnswered(logID: logID)])
  }

  /// The first UTC day a sync check compares on this device: the first whole day inside its retention window, or
  /// every day when it keeps everything.
  package func syncCheckFirstDay(wall: Date) -> Int64 {
    guard let retention = policy.retention else { return Int64.min }
    let floor = now(wall: wall).addingTimeInterval(-retention).timeIntervalSinceReferenceDate
    return SampleStore.day(of: floor) &+ 1
  }

  /// Compares the peer's day digests (from its first compared day on) with this store's, over the days both
  /// devices hold in full. Nil when they agree; else a description of the first differing day.
  package func compareDigests(_ theirs: [SampleStore.DayDigest], firstDay: Int64, wall: Date) -> String? {
    let from = max(firstDay, syncCheckFirstDay(wall: wall))
    let mine = store.dayDigests(from: from)
    let other = theirs.filter { $0.day >= from }
    guard mine != other else { return nil }
    var byDay: [Int64: (mine: UInt64, theirs: UInt64)] = [:]
    for d in mine { byDay[d.day, default: (0, 0)].mine = d.count }
    for d in other { byDay[d.day, default: (0, 0)].theirs = d.count }
    let day = Set(mine).symmetricDifference(Set(other)).map(\.day).min() ?? from
    let counts = byDay[day] ?? (0, 0)
    let date = Date(timeIntervalSinceReferenceDate: Double(day) * 86_400)
    return
      "stores differ on \(formatDate(date).prefix(10)): \(counts.mine) samples here, "
      + "\(counts.theirs) on the \(device.peer)"
  }

  /// The part of a received payload that changes something here: items already stored identically (re-sends
  /// after a log restart), already deleted, or older than the retention floor are left out, so a re-sent store
  /// costs the journal nothing for what it already holds. A sample this device pruned that ends inside its window
  /// again (the window widened, the clock moved back) is taken back (behavior.md W9). The entry keeps its sequence
  /// number.
  func effective(_ payload: SyncPayload, floor: Date?) -> SyncPayload {
    switch payload {
    case .samples(let samples):
      let changing = samples.filter { sample in
        if store.isKnown(sample.uuid) {
          if let live = store.liveSample(sample.uuid) { return live != sample }
          guard store.wasPruned(sample.uuid) else { return false }
        }
        return floor.map { sample.end >= $0 } ?? true
      }
      return changing.count == samples.count ? payload : .samples(changing)
    case .deletions(let tombstones):
      let changing = tombstones.filter { !store.isTombstoned($0.uuid) }
      return changing.count == tombstones.count ? payload : .deletions(changing)
    case .correlations(let correlations):
      let changing = correlations.filter { c in
        !correlationStore.isKnown(c.uuid) && (floor.map { c.end >= $0 } ?? true)
      }
      return changing.count == correlations.count ? payload : .correlations(changing)
    case .correlationDeletions(let tombstones):
      let changing = tombstones.filter { correlationStore.deleted[$0.uuid] == nil }
      return changing.count == tombstones.count ? payload : .correlationDeletions(changing)
    case .workouts(let workouts):
      let changing = changingWorkouts(workouts, floor: floor)
      return changing.count == workouts.count ? payload : .workouts(changing)
    case .routes(let routes):
      // Not checked against the workouts here: the workout may come in an earlier entry of the same batch.
      let changing = unknownInside(routes, floor: floor, uuid: \.uuid, end: \.end)
      return changing.count == routes.count ? payload : .routes(changing)
    case .heartbeatSeries(let series):
      let changing = unknownInside(series, floor: floor, uuid: \.uuid, end: \.end)
      return changing.count == series.count ? payload : .heartbeatSeries(changing)
    case .workoutDeletions(let tombstones):
      let changing = tombstones.filter { workoutStore.deleted[$0.uuid] == nil }
      return changing.count == tombstones.count ? payload : .workoutDeletions(changing)
    case .electrocardiograms(let ecgs):
      let changing = unknownInside(ecgs, floor: floor, uuid: \.uuid, end: \.end)
      return changing.count == ecgs.count ? payload : .electrocardiograms(changing)
    case .audiograms(let audiograms):
      let changing = unknownInside(audiograms, floor: floor, uuid: \.uuid, end: \.end)
      return changing.count == audiograms.count ? payload : .audiograms(changing)
    case .statesOfMind(let states):
      let changing = unknownInside(states, floor: floor, uuid: \.uuid, end: \.date)
      return changing.count == states.count ? payload : .statesOfMind(changing)
    case .scoredAssessments(let assessments):
      let changing = unknownInside(assessments, floor: floor, uuid: \.uuid, end: \.date)
      return changing.count == assessments.count ? payload : .scoredAssessments(changing)
    case .medications(let medications):
      let changing = medications.filter { !isKnownObject($0.uuid) }
      return changing.count == medications.count ? payload : .medications(changing)
    case .medicationDoses(let doses):
      let changing = unknownInside(doses, floor: floor, uuid: \.uuid, end: \.date)
      return changing.count == doses.count ? payload : .medicationDoses(changing)
    case .workoutAssociations:
      return payload
    case .watchSettings, .authorization, .userSetting, .sourceOrder:
      return payload
    }
  }

  /// Records the peer's acknowledgement of our outbound entries.
  package mutating func receivePeerAck(_ seq: UInt64) -> [DeviceEvent] {
    guard seq > sync.peerAcked, seq <= sync.lastSeq else { return [] }
    return commit([.peerAcknowledged(seq)])
  }
}
