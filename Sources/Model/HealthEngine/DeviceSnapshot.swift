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
  /// Whether the device is locked (the watch: off the wrist).
  package var locked = false
  /// Samples saved while locked, waiting to merge at unlock.
  package var lockedSamples = 0
  /// The characteristic values the user set in the Health app.
  package var characteristics: [SampleType: CharacteristicValue] = [:]
  /// The display units the user chose in the Health app.
  package var preferredUnits: [SampleType: String] = [:]
  /// App extensions' requests waiting for their containing app to present them (behavior.md A23), oldest first.
  package var waitingExtensionRequests: [Prompt] = []

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
    for (key, decision) in decisions {
      byApp[key.bundleID, default: []].append(AuthorizationChange(key.permission, decision))
    }
    let apps = self.apps.values.sorted { $0.bundleID < $1.bundleID }.map { app in
      DeviceSnapshot.AppState(
        record: app, decisions: (byApp[app.bundleID] ?? []).sorted { $0.permission < $1.permission },
        lockedOut: lockedOut.contains(app.bundleID))
    }
    let floor = earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    var counts: [SampleType: Int] = [:]
    for slot in store.slots where slot.live && slot.end >= floor {
      counts[SampleType(unchecked: slot.type), default: 0] += 1
    }
    var snapshot = DeviceSnapshot(
      device: device, policy: policy, now: now(wall: wall), virtualClock: virtualNow != nil,
      earliestPermittedSampleDate: earliestPermittedSampleDate(wall: wall), apps: apps, pendingPrompts: prompts,
      promptHistory: promptHistory, sampleCounts: counts, tombstoneCount: store.tombstones.count,
      changeCounter: store.changeCounter,
      sync: .init(
        lastSeq: sync.lastSeq, peerAcked: sync.peerAcked, appliedFromPeer: sync.appliedFromPeer,
        pendingEntries: sync.pendingCount, pendingItems: sync.pendingItems))
    snapshot.locked = isLocked
    snapshot.lockedSamples = lockedJournal.count
    snapshot.characteristics = characteristics
    snapshot.preferredUnits = preferredUnits
    snapshot.waitingExtensionRequests = extensionRequests.filter { $0.sheet == nil }.map(\.prompt)
    return snapshot
  }

  /// Every live sample in the store (within the retention window), optionally of one type, sorted by start then
  /// identifier (``Sample/storedOrder(_:_:)``): the raw store, regardless of any app's permissions.
  package func storedSamples(type: SampleType? = nil, wall: Date) -> [Sample] {
    let floor = earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    var result: [Sample] = []
    for index in store.slots.indices {
      let slot = store.slots[index]
      guard slot.live, slot.end >= floor, type == nil || slot.type == type!.code else { continue }
      result.append(store.materialize(index))
    }
    return Sample.inStoredOrder(result)
  }

  /// Every tombstone recorded, in deletion order.
  package var storedTombstones: [Tombstone] { store.tombstones.map(\.tombstone) }

  /// One page of the raw store, so a store of any size can be read in bounded replies: the samples
  /// ``storedSamples(type:wall:)`` returns, from slot `from.sample` on in insertion order (unsorted), then every
  /// tombstone from `from.tombstone` on in deletion order.
  ///
  /// The page ends after `limit` items (0: no count limit) or before the items' costs (`sampleCost`,
  /// `tombstoneCost`: their encoded sizes) would pass `budget`; it always holds at least one item when one is
  /// left. ``StoredPage/next`` is where the next page starts, nil once both lists are exhausted. Slots and
  /// tombstones are only ever appended, so a cursor stays valid across writes: a read that overlaps them sees each
  /// sample at most once, and the tombstone of any sample deleted meanwhile.
  package func storedPage(
    type: SampleType?, from: StoredCursor, wall: Date, limit: Int, budget: Int,
    sampleCost: (Sample) -> Int, tombstoneCost: (Tombstone) -> Int
  ) -> StoredPage {
    let floor = earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    let maxItems = limit > 0 ? limit : Int.max
    var page = StoredPage(samples: [], tombstones: [], next: nil)
    var used = 0
    var count = 0
    var sampleIndex = min(Int(clamping: from.sample), store.slots.count)
    var tombstoneIndex = min(Int(clamping: from.tombstone), store.tombstones.count)
    /// Whether an item of `cost` still fits; counts it when it does.
    func admit(_ cost: Int) -> Bool {
      guard count < maxItems, count == 0 || used + cost <= budget else { return false }
      used += cost
      count += 1
      return true
    }
    while sampleIndex < store.slots.count {
      let slot = store.slots[sampleIndex]
      if slot.live, slot.end >= floor, type == nil || slot.type == type!.code {
        let sample = store.materialize(sampleIndex)
        guard admit(sampleCost(sample)) else { break }
        page.samples.append(sample)
      }
      sampleIndex += 1
    }
    if sampleIndex == store.slots.count {
      while tombstoneIndex < store.tombstones.count {
        let tombstone = store.tombstones[tombstoneIndex].tombstone
        guard admit(tombstoneCost(tombstone)) else { break }
        page.tombstones.append(tombstone)
        tombstoneIndex += 1
      }
    }
    if sampleIndex < store.slots.count || tombstoneIndex < store.tombstones.count {
      page.next = StoredCursor(sample: UInt64(sampleIndex), tombstone: UInt64(tombstoneIndex))
    }
    return page
  }
}

/// Where a paged read of the raw store continues (``DeviceState/storedPage(type:from:wall:limit:budget:sampleCost:
/// tombstoneCost:)``): positions in the store's insertion order of samples and of tombstones. Opaque to clients.
package struct StoredCursor: Hashable, Sendable {
  /// The next sample slot to look at.
  package var sample: UInt64
  /// The next tombstone to return.
  package var tombstone: UInt64

  /// Creates a cursor.
  package init(sample: UInt64, tombstone: UInt64) {
    self.sample = sample
    self.tombstone = tombstone
  }

  /// The beginning of the store.
  package static let start = StoredCursor(sample: 0, tombstone: 0)
}

/// One page of the raw store (``DeviceState/storedPage(type:from:wall:limit:budget:sampleCost:tombstoneCost:)``).
package struct StoredPage: Hashable, Sendable {
  /// Live samples, in insertion order.
  package var samples: [Sample]
  /// Tombstones, in deletion order.
  package var tombstones: [Tombstone]
  /// Where the next page starts; nil when this was the last.
  package var next: StoredCursor?

  /// Creates a page.
  package init(samples: [Sample], tombstones: [Tombstone], next: StoredCursor?) {
    self.samples = samples
    self.tombstones = tombstones
    self.next = next
  }
}

extension Sample {
  /// `samples` in ``storedOrder(_:_:)``. A store's pages come in insertion order, which is usually that order
  /// already (checked in one pass); otherwise the samples are ordered by their keys and moved once, instead of being
  /// swapped whole (a sample is a large value) at every step of a sort.
  package static func inStoredOrder(_ samples: [Sample]) -> [Sample] {
    guard samples.indices.dropFirst().contains(where: { storedOrder(samples[$0], samples[$0 - 1]) }) else {
      return samples
    }
    return samples.indices.sorted { storedOrder(samples[$0], samples[$1]) }.map { samples[$0] }
  }

  /// The order of ``DeviceState/storedSamples(type:wall:)``: by start date, then by identifier. Identifiers compare
  /// by their bytes, which is the order of their uppercase string form without building the strings.
  package static func storedOrder(_ a: Sample, _ b: Sample) -> Bool {
    if a.start != b.start { return a.start < b.start }
    return withUnsafeBytes(of: a.uuid.uuid) { x in
      withUnsafeBytes(of: b.uuid.uuid) { y in
        for i in 0..<16 where x[i] != y[i] { return x[i] < y[i] }
        return false
      }
    }
  }
}
