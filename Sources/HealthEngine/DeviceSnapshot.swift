import FoundationEssentials
import HealthModel

/// A read-only view of one device for tests, the status command and scenario assertions, including what apps
/// never see (the read decisions).
package struct DeviceSnapshot: Hashable, Sendable {
  /// One installed app and its recorded decisions.
  package struct AppState: Hashable, Sendable {
    /// The app.
    package var record: AppRecord
    /// Every recorded decision, sorted by permission.
    package var decisions: [AuthorizationChange]
    /// Whether the strict re-prompt model locks the app out.
    package var lockedOut: Bool

    /// Creates an app state.
    package init(record: AppRecord, decisions: [AuthorizationChange], lockedOut: Bool) {
      self.record = record
      self.decisions = decisions
      self.lockedOut = lockedOut
    }

    /// The recorded decision for a permission.
    package func decision(_ permission: Permission) -> Decision? {
      decisions.first { $0.permission == permission }?.decision
    }
  }

  /// Sync cursors and backlog.
  package struct SyncStatus: Hashable, Sendable {
    /// Newest outbound sequence number.
    package var lastSeq: UInt64
    /// Highest sequence number the peer acknowledged.
    package var peerAcked: UInt64
    /// Highest peer sequence number applied here.
    package var appliedFromPeer: UInt64
    /// Outbound entries not yet acknowledged.
    package var pendingEntries: Int
    /// Outbound items (samples, deletions, settings) not yet acknowledged.
    package var pendingItems: Int
    /// This device's outbound log identity.
    package var logID: UInt64 = 0
    /// The identity of the peer log ``appliedFromPeer`` counts in.
    package var peerLogID: UInt64 = 0
    /// Whether the last store check (day digests of both stores) passed at exactly these cursors.
    package var verified = false
    /// Whether store checks kept failing after re-sends (the stores differ; see docs/behavior.md).
    package var diverged = false
    /// How many sync conflicts (one identifier, two contents) this device resolved.
    package var conflicts = 0

    /// Whether `peer`'s status says both sides applied everything the other logged and a store check confirmed
    /// that both hold the same samples: what "synced" means everywhere.
    package func isSynced(with peer: SyncStatus) -> Bool {
      lastSeq == peer.appliedFromPeer && peer.lastSeq == appliedFromPeer && logID == peer.peerLogID
        && peer.logID == peerLogID && verified && peer.verified
    }

    /// Creates a status.
    package init(lastSeq: UInt64, peerAcked: UInt64, appliedFromPeer: UInt64, pendingEntries: Int, pendingItems: Int) {
      self.lastSeq = lastSeq
      self.peerAcked = peerAcked
      self.appliedFromPeer = appliedFromPeer
      self.pendingEntries = pendingEntries
      self.pendingItems = pendingItems
    }
  }

  /// The device.
  package var device: DeviceKind
  /// Its policy.
  package var policy: DevicePolicy
  /// Its current time.
  package var now: Date
  /// Whether the virtual clock is set.
  package var virtualClock: Bool
  /// `earliestPermittedSampleDate()`.
  package var earliestPermittedSampleDate: Date
  /// Installed apps, sorted by bundle identifier.
  package var apps: [AppState]
  /// Sheets waiting for the user.
  package var pendingPrompts: [Prompt]
  /// Sheets shown since the daemon started, with outcomes.
  package var promptHistory: [PromptRecord]
  /// Live samples per type (within the retention window), sorted by type.
  package var sampleCounts: [SampleType: Int]
  /// Deletions recorded.
  package var tombstoneCount: Int
  /// The last change number (the anchor a fresh anchored query would return).
  package var changeCounter: UInt64
  /// Sync cursors.
  package var sync: SyncStatus

  /// Creates a snapshot.
  package init(
    device: DeviceKind, policy: DevicePolicy, now: Date, virtualClock: Bool, earliestPermittedSampleDate: Date,
    apps: [AppState], pendingPrompts: [Prompt], promptHistory: [PromptRecord], sampleCounts: [SampleType: Int],
    tombstoneCount: Int, changeCounter: UInt64, sync: SyncStatus
  ) {
    self.device = device
    self.policy = policy
    self.now = now
    self.virtualClock = virtualClock
    self.earliestPermittedSampleDate = earliestPermittedSampleDate
    self.apps = apps
    self.pendingPrompts = pendingPrompts
    self.promptHistory = promptHistory
    self.sampleCounts = sampleCounts
    self.tombstoneCount = tombstoneCount
    self.changeCounter = changeCounter
    self.sync = sync
  }

  /// The app with this bundle identifier.
  package func app(_ bundleID: String) -> AppState? { apps.first { $0.record.bundleID == bundleID } }
  /// Total live samples.
  package var totalSamples: Int { sampleCounts.values.reduce(0, +) }
}

extension DeviceState {
  /// A snapshot of the device at `wall`.
  package func snapshot(wall: Date) -> DeviceSnapshot {
    var byApp: [String: [AuthorizationChange]] = [:]
    for (key, decision) in decisions { byApp[key.bundleID, default: []].append(AuthorizationChange(key.permission, decision)) }
    let apps = self.apps.values.sorted { $0.bundleID < $1.bundleID }.map { app in
      DeviceSnapshot.AppState(
        record: app, decisions: (byApp[app.bundleID] ?? []).sorted { $0.permission < $1.permission },
        lockedOut: lockedOut.contains(app.bundleID))
    }
    let floor = earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    var counts: [SampleType: Int] = [:]
    for slot in store.slots where slot.live && slot.end >= floor { counts[SampleType(unchecked: slot.type), default: 0] += 1 }
    return DeviceSnapshot(
      device: device, policy: policy, now: now(wall: wall), virtualClock: virtualNow != nil,
      earliestPermittedSampleDate: earliestPermittedSampleDate(wall: wall), apps: apps, pendingPrompts: prompts,
      promptHistory: promptHistory, sampleCounts: counts, tombstoneCount: store.tombstones.count,
      changeCounter: store.changeCounter,
      sync: .init(
        lastSeq: sync.lastSeq, peerAcked: sync.peerAcked, appliedFromPeer: sync.appliedFromPeer,
        pendingEntries: sync.pendingCount, pendingItems: sync.pendingItems))
  }

  /// Every live sample in the store (within the retention window), optionally of one type, sorted by start then
  /// identifier: the raw store, regardless of any app's permissions.
  package func storedSamples(type: SampleType? = nil, wall: Date) -> [Sample] {
    let floor = earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    var result: [Sample] = []
    for index in store.slots.indices {
      let slot = store.slots[index]
      guard slot.live, slot.end >= floor, type == nil || slot.type == type!.code else { continue }
      result.append(store.materialize(index))
    }
    return result.sorted { ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString) }
  }

  /// Every tombstone recorded, in deletion order.
  package var storedTombstones: [Tombstone] { store.tombstones.map(\.tombstone) }
}
