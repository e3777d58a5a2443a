import FoundationEssentials
import HealthModel

/// A device's durable sync bookkeeping: its outbound log and the two cursors.
///
/// - `lastSeq`: the sequence number of the newest outbound entry (entries are numbered 1, 2, 3, … per origin).
/// - `peerAcked`: every entry up to here reached the peer; they are dropped from memory.
/// - `appliedFromPeer`: every peer entry up to here was applied here; re-deliveries at or below it are ignored.
///
/// All of it is rebuilt by replaying the journal, which is what makes delivery at-least-once and apply idempotent
/// across crashes of either side.
///
/// Saved samples are not copied into the log: an entry records the contiguous range of store slots the save
/// occupied (slots are never removed), and ``DeviceState/outboundEntries(after:maxItems:)`` materializes them when
/// they are sent. A million unacknowledged samples cost eight bytes per entry here, not a second copy.
package struct SyncLedger: Hashable, Sendable {
  /// What an outbound entry holds.
  package enum StoredPayload: Hashable, Sendable {
    /// Samples saved here, as the store slots `start..<start+count`.
    case slots(start: Int32, count: Int32)
    /// Deletions made here.
    case deletions([Tombstone])
    /// A Watch-app settings change (phone → watch).
    case watchSettings(bundleID: String, change: SettingsChange)
    /// Companion decisions made here.
    case authorization(bundleID: String, decisions: [SharedDecision], at: Date)
    /// A Health app value the user changed here.
    case userSetting(UserSetting, at: Date)
    /// A data-source order set here.
    case sourceOrder(SampleType, SourceOrder)
    /// Correlations saved here (their members are in an earlier slots entry).
    case correlations([Correlation])
    /// Correlations deleted here.
    case correlationDeletions([Tombstone])
    /// Workouts saved here (the samples they name are in earlier slots entries).
    case workouts([Workout])
    /// Samples associated with a workout here.
    case workoutAssociations(workout: UUID, samples: [UUID])
    /// Routes saved here (their workouts are in earlier entries).
    case routes([WorkoutRoute])
    /// Heartbeat series saved here.
    case heartbeatSeries([HeartbeatSeries])
    /// Workouts, routes and series deleted here.
    case workoutDeletions([Tombstone])
    /// Electrocardiograms recorded or imported here.
    case electrocardiograms([Electrocardiogram])
    /// Audiograms saved or imported here.
    case audiograms([Audiogram])
    /// States of Mind saved here.
    case statesOfMind([StateOfMind])
    /// Scored assessments saved here.
    case scoredAssessments([ScoredAssessment])
    /// Medications added here.
    case medications([Medication])
    /// Medication doses logged here.
    case medicationDoses([MedicationDoseEvent])

    /// Items carried.
    package var itemCount: Int {
      switch self {
      case .slots(_, let count): Int(count)
      case .deletions(let t): t.count
      case .correlations(let c): c.count
      case .correlationDeletions(let t): t.count
      case .workouts(let w): w.count
      case .workoutAssociations(_, let s): max(1, s.count)
      case .routes(let r): r.count
      case .heartbeatSeries(let s): s.count
      case .workoutDeletions(let t): t.count
      case .electrocardiograms(let e): e.count
      case .audiograms(let a): a.count
      case .statesOfMind(let s): s.count
      case .scoredAssessments(let a): a.count
      case .medications(let m): m.count
      case .medicationDoses(let d): d.count
      case .watchSettings, .authorization, .userSetting, .sourceOrder: 1
      }
    }
  }

  /// A stored outbound entry.
  package struct StoredEntry: Hashable, Sendable {
    /// Its sequence number.
    package var seq: UInt64
    /// What it holds.
    package var payload: StoredPayload

    /// Creates a stored entry.
    package init(seq: UInt64, payload: StoredPayload) {
      self.seq = seq
      self.payload = payload
    }
  }

  /// This device's outbound log identity: a random number minted when the log (re)starts. Sequence numbers count
  /// within one log; a peer that sees a new identity resets its cursor (``adoptPeerLog(_:)``). 0 before the first
  /// start (a journal written before identities existed).
  package private(set) var logID: UInt64 = 0
  /// The identity of the peer log that ``appliedFromPeer`` counts in (0 when none was seen yet).
  package private(set) var peerLogID: UInt64 = 0
  /// The newest outbound sequence number.
  package private(set) var lastSeq: UInt64 = 0
  /// The peer has everything up to here.
  package private(set) var peerAcked: UInt64 = 0
  /// Everything from the peer up to here is applied.
  package private(set) var appliedFromPeer: UInt64 = 0
  /// This device's journal lost records the peer may hold, and the peer has not yet answered the request to re-send
  /// everything it holds with a new log (docs/protocol.md, "Log identities and healing").
  package private(set) var resendRequested = false
  private var entries: [StoredEntry] = []
  private var head = 0
  /// The items of `entries[head...]`, kept as they change: the daemon reads it for every request's context.
  private var pendingItemTotal = 0

  /// Creates an empty ledger.
  package init() {}

  /// Restores a ledger from a snapshot: its cursors and the entries the peer has not acknowledged, which must be
  /// exactly `peerAcked + 1 ... lastSeq` in order.
  /// - Throws: ``StateRestoreError`` when the cursors and entries do not fit together.
  package init(
    restoringLogID logID: UInt64, peerLogID: UInt64, lastSeq: UInt64, peerAcked: UInt64, appliedFromPeer: UInt64,
    pending: [StoredEntry], resendRequested: Bool = false
  ) throws(StateRestoreError) {
    guard peerAcked <= lastSeq, UInt64(pending.count) == lastSeq - peerAcked else {
      throw StateRestoreError(
        "sync ledger holds \(pending.count) pending entries for acknowledged \(peerAcked) of \(lastSeq)")
    }
    for (i, entry) in pending.enumerated() where entry.seq != peerAcked + UInt64(i) + 1 {
      throw StateRestoreError(
        "pending sync entry \(i) has sequence number \(entry.seq), expected \(peerAcked + UInt64(i) + 1)")
    }
    self.logID = logID
    self.peerLogID = peerLogID
    self.lastSeq = lastSeq
    self.peerAcked = peerAcked
    self.appliedFromPeer = appliedFromPeer
    self.resendRequested = resendRequested
    self.entries = pending
    self.pendingItemTotal = pending.reduce(0) { $0 + $1.payload.itemCount }
  }

  /// The entries the peer has not acknowledged, oldest first.
  package var pendingEntries: ArraySlice<StoredEntry> { entries[head...] }

  /// The most items one outbound entry carries; larger saves are split so frames stay small.
  package static let maxItemsPerEntry = 4096

  /// Entries not yet acknowledged by the peer.
  package var pendingCount: Int { entries.count - head }

  /// Items (samples, tombstones, settings) not yet acknowledged.
  package var pendingItems: Int { pendingItemTotal }

  /// Appends outbound samples saved into store slots `start..<start+count`, in entries of at most
  /// ``maxItemsPerEntry``.
  package mutating func appendSlots(start: Int32, count: Int32) {
    var offset: Int32 = 0
    while offset < count {
      let n = min(Int32(Self.maxItemsPerEntry), count - offset)
      appendOne(.slots(start: start + offset, count: n))
      offset += n
    }
  }

  /// Appends outbound deletions, in entries of at most ``maxItemsPerEntry``.
  package mutating func appendDeletions(_ tombstones: [Tombstone]) {
    appendChunked(tombstones) { .deletions($0) }
  }

  /// Appends saved correlations, in entries of at most ``maxItemsPerEntry``.
  package mutating func appendCorrelations(_ correlations: [Correlation]) {
    appendChunked(correlations) { .correlations($0) }
  }

  /// Appends correlation deletions, in entries of at most ``maxItemsPerEntry``.
  package mutating func appendCorrelationDeletions(_ tombstones: [Tombstone]) {
    appendChunked(tombstones) { .correlationDeletions($0) }
  }

  /// Appends saved workouts, in entries of at most ``maxItemsPerEntry``.
  package mutating func appendWorkouts(_ workouts: [Workout]) {
    appendChunked(workouts) { .workouts($0) }
  }

  /// Appends an association of samples with a workout (one entry).
  package mutating func appendWorkoutAssociation(workout: UUID, samples: [UUID]) {
    appendOne(.workoutAssociations(workout: workout, samples: samples))
  }

  /// Appends saved routes, in entries of at most ``maxItemsPerEntry``.
  package mutating func appendRoutes(_ routes: [WorkoutRoute]) {
    appendChunked(routes) { .routes($0) }
  }

  /// Appends saved heartbeat series, in entries of at most ``maxItemsPerEntry``.
  package mutating func appendHeartbeatSeries(_ series: [HeartbeatSeries]) {
    appendChunked(series) { .heartbeatSeries($0) }
  }

  /// Appends deletions of workouts, routes and series, in entries of at most ``maxItemsPerEntry``.
  package mutating func appendWorkoutDeletions(_ tombstones: [Tombstone]) {
    // Prescriptions and CDA documents stay on the iPhone (V2, O1), and so do their deletions.
    let synced = tombstones.filter { !$0.type.descriptor.readsPerObject }
    appendChunked(synced) { .workoutDeletions($0) }
  }

  /// The most electrocardiograms one entry carries (about 1 MB of 30-second recordings).
  package static let maxRecordingsPerEntry = 16

  /// Appends companion decisions.
  package mutating func appendAuthorization(bundleID: String, decisions: [SharedDecision], at: Date) {
    appendOne(.authorization(bundleID: bundleID, decisions: decisions, at: at))
  }

  /// Appends a Health app value the user changed.
  package mutating func appendUserSetting(_ setting: UserSetting, at: Date) {
    appendOne(.userSetting(setting, at: at))
  }

  /// Appends a data-source order.
  package mutating func appendSourceOrder(_ type: SampleType, _ order: SourceOrder) {
    appendOne(.sourceOrder(type, order))
  }

  /// Appends a Watch-app settings change.
  package mutating func appendWatchSettings(bundleID: String, change: SettingsChange) {
    appendOne(.watchSettings(bundleID: bundleID, change: change))
  }

  /// Appends `items` in entries of at most `limit` (``maxItemsPerEntry`` by default), each made by `entry`.
  private mutating func appendChunked<Item>(
    _ items: [Item], by limit: Int = maxItemsPerEntry, _ entry: ([Item]) -> StoredPayload
  ) {
    for chunk in stride(from: 0, to: items.count, by: limit) {
      appendOne(entry(Array(items[chunk..<min(chunk + limit, items.count)])))
    }
  }

  mutating func appendOne(_ payload: StoredPayload) {
    lastSeq += 1
    entries.append(StoredEntry(seq: lastSeq, payload: payload))
    pendingItemTotal += payload.itemCount
  }

  /// Records the peer's acknowledgement and forgets what it covers.
  package mutating func acknowledge(upTo seq: UInt64) {
    guard seq > peerAcked else { return }
    peerAcked = min(seq, lastSeq)
    while head < entries.count, entries[head].seq <= peerAcked {
      pendingItemTotal -= entries[head].payload.itemCount
      head += 1
    }
    if head > 1024, head * 2 > entries.count {
      entries.removeFirst(head)
      head = 0
    }
  }

  /// Starts a new outbound log: a new identity, numbering from 1, nothing acknowledged, holding a re-send of
  /// every live sample (as slot runs) and every deletion, the correlations, the workouts, routes, heartbeat series
  /// and their deletions, the electrocardiograms, audiograms and States of Mind, then the Watch-app settings, companion
  /// decisions and
  /// source orders still pending, then every Health app value the user set here (`userSettings`, with when each was
  /// set). Used when the peer's cursor into the old log cannot be trusted (this device's journal lost records, or the
  /// stores were found to differ); the peer applies the re-send idempotently.
  package mutating func restart(
    logID: UInt64, liveRuns: [(start: Int32, count: Int32)], tombstones: [Tombstone],
    userSettings: [(setting: UserSetting, at: Date)] = [], correlations: CorrelationStore = CorrelationStore(),
    workouts: WorkoutStore = WorkoutStore(), specialObjects: SpecialObjectStore = SpecialObjectStore()
  ) {
    let settings: [StoredPayload] = entries[head...].compactMap {
      switch $0.payload {
      case .watchSettings, .authorization, .sourceOrder: return $0.payload
      case .slots, .deletions, .userSetting, .correlations, .correlationDeletions, .workouts, .workoutAssociations,
        .routes, .heartbeatSeries, .workoutDeletions, .electrocardiograms, .audiograms, .statesOfMind,
        .scoredAssessments, .medications, .medicationDoses:
        return nil
      }
    }
    self.logID = logID
    lastSeq = 0
    peerAcked = 0
    entries = []
    head = 0
    pendingItemTotal = 0
    for run in liveRuns { appendSlots(start: run.start, count: run.count) }
    appendDeletions(tombstones)
    appendCorrelations(correlations.ordered)
    appendCorrelationDeletions(correlations.orderedDeletions)
    // Workouts after the samples they name, routes after their workouts (each workout carries its associations).
    appendWorkouts(workouts.orderedWorkouts.map(\.value))
    appendRoutes(workouts.orderedRoutes.map(\.value))
    appendHeartbeatSeries(workouts.orderedSeries.map(\.value))
    appendWorkoutDeletions(workouts.orderedDeletions.map(\.value))
    appendShelved(specialObjects.electrocardiograms.ordered.map(\.value))
    appendShelved(specialObjects.audiograms.ordered.map(\.value))
    appendShelved(specialObjects.statesOfMind.ordered.map(\.value))
    appendShelved(specialObjects.scoredAssessments.ordered.map(\.value))
    // Medications before the doses that name them.
    appendShelved(specialObjects.medications.ordered.map(\.value))
    appendShelved(specialObjects.medicationDoses.ordered.map(\.value))
    for payload in settings { appendOne(payload) }
    for item in userSettings { appendOne(.userSetting(item.setting, at: item.at)) }
  }

  /// The peer started a new log: nothing of it is applied yet. `answeringResend` when it answers
  /// ``resendRequested``, which it clears.
  package mutating func adoptPeerLog(_ id: UInt64, answeringResend: Bool = false) {
    peerLogID = id
    appliedFromPeer = 0
    if answeringResend { resendRequested = false }
  }

  /// Records that this device asks the peer to re-send everything it holds.
  package mutating func requestResend() { resendRequested = true }

  /// Records that peer entries up to `seq` are applied.
  package mutating func markApplied(upTo seq: UInt64) { appliedFromPeer = max(appliedFromPeer, seq) }

  /// Stored outbound entries after `seq` and up to `last`, at most `maxItems` items (at least one entry when any is
  /// pending).
  package func storedEntries(after seq: UInt64, through last: UInt64 = .max, maxItems: Int) -> [StoredEntry] {
    guard seq < lastSeq, seq < last, let first = entries[head...].first else { return [] }
    var index = head + Int(max(seq, first.seq - 1) - (first.seq - 1))
    var result: [StoredEntry] = []
    var items = 0
    while index < entries.count {
      let entry = entries[index]
      if entry.seq > last || (!result.isEmpty && items + entry.payload.itemCount > maxItems) { break }
      result.append(entry)
      items += entry.payload.itemCount
      index += 1
    }
    return result
  }

  /// Two ledgers are equal when their cursors and pending entries are.
  package static func == (a: SyncLedger, b: SyncLedger) -> Bool {
    a.logID == b.logID && a.peerLogID == b.peerLogID && a.lastSeq == b.lastSeq && a.peerAcked == b.peerAcked
      && a.appliedFromPeer == b.appliedFromPeer && a.resendRequested == b.resendRequested
      && Array(a.entries[a.head...]) == Array(b.entries[b.head...])
  }

  /// Hashes the cursors.
  package func hash(into hasher: inout Hasher) {
    hasher.combine(logID)
    hasher.combine(lastSeq)
    hasher.combine(peerAcked)
    hasher.combine(appliedFromPeer)
    hasher.combine(resendRequested)
  }
}
