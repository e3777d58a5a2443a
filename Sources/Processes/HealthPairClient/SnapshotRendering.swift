import FoundationEssentials
import HealthEngine
import HealthModel
import Render
import Wire

extension DaemonSnapshot {
  /// The snapshot as lines of text, for side-by-side display (status, failure reports).
  package func describe() -> [String] {
    let d = device
    var lines: [String] = []
    lines.append("clock    \(formatDate(d.now))\(d.virtualClock ? " (virtual)" : "")")
    lines.append(
      "policy   reprompt=\(d.policy.reprompt.rawValue) retention=\(d.policy.retention.map(formatDuration) ?? "none")"
        + (d.policy.authorization == .companion ? " authorization=companion" : "")
        + (d.policy.units != .us ? " units=\(d.policy.units)" : "")
        + (d.policy.timeZone == .utc ? "" : " zone=\(d.policy.timeZone)"))
    for (type, order) in d.policy.sourceOrders.sorted(by: { $0.key < $1.key }) {
      let list = order.sources.isEmpty ? "default" : order.sources.map(\.description).joined(separator: ", ")
      lines.append("sources  \(type.name): \(list)")
    }
    if d.locked {
      lines.append(
        "lock     LOCKED: protected data unavailable"
          + (d.lockedSamples > 0 ? "; \(d.lockedSamples) sample\(d.lockedSamples == 1 ? "" : "s") wait for unlock" : "")
      )
    }
    if !d.characteristics.isEmpty || !d.preferredUnits.isEmpty {
      let values = d.characteristics.sorted { $0.key < $1.key }.map { "\($0.key.name)=\($0.value.name(for: $0.key))" }
      let units = d.preferredUnits.sorted { $0.key < $1.key }.map { "\($0.key.name) in \($0.value)" }
      lines.append("health   " + (values + units).joined(separator: " "))
    }
    let s = link.sync
    lines.append(
      "link     \(link.connected ? "up" : (link.enabled ? "down" : "disconnected"))\(link.holding ? " (holding)" : "")"
        + "\(link.latency > 0 ? " latency=\(formatDuration(link.latency))" : "")")
    lines.append(
      "sync     logged=\(s.lastSeq) acked=\(s.peerAcked) applied-from-peer=\(s.appliedFromPeer) "
        + "pending=\(s.pendingItems)"
    )
    let checks =
      s.diverged ? "DIVERGED (stores differ after re-sending)" : (s.verified ? "verified" : "not verified yet")
    lines.append("check    \(checks)\(s.conflicts > 0 ? " conflicts=\(s.conflicts)" : "")")
    if d.apps.isEmpty { lines.append("apps     (none)") }
    for app in d.apps {
      lines.append("app      \(app.record.bundleID)\(app.lockedOut ? " [locked out]" : "")")
      var byType: [SampleType: (share: Decision?, read: Decision?)] = [:]
      for change in app.decisions {
        var entry = byType[change.permission.type] ?? (nil, nil)
        if change.permission.direction == .share { entry.share = change.decision } else { entry.read = change.decision }
        byType[change.permission.type] = entry
      }
      for type in byType.keys.sorted() {
        let e = byType[type]!
        // HealthKit's names for what apps can see (HKAuthorizationStatus); the hidden read decision in the same
        // words: authorized, denied, notDetermined.
        let share = e.share.map { $0 == .authorized ? "sharingAuthorized" : "sharingDenied" } ?? "notDetermined"
        lines.append("  \(type.name) share=\(share) read=\(e.read?.description ?? "notDetermined")")
      }
    }
    if d.sampleCounts.isEmpty {
      lines.append("samples  (none)")
    } else {
      lines.append(
        "samples  "
          + d.sampleCounts.sorted { $0.key < $1.key }.map { "\($0.key.name)=\($0.value)" }.joined(separator: " "))
    }
    if d.tombstoneCount > 0 { lines.append("deleted  \(d.tombstoneCount)") }
    for prompt in d.pendingPrompts {
      lines.append(
        "sheet    #\(prompt.id) \(prompt.bundleID): \(prompt.permissions.map(\.description).joined(separator: ", "))")
    }
    return lines
  }

  /// The snapshot as JSON (`status --json`, `ctl dump --json`).
  package var json: JSON { json(includingRunIdentities: true) }

  /// The snapshot as JSON; without run identities (the device and process id, the sync log identities), what is
  /// left is the same from run to run, as scenario reports need.
  package func json(includingRunIdentities: Bool) -> JSON {
    let d = device
    let identities: [(String, JSON)] =
      includingRunIdentities ? [("device", .string(d.device.description)), ("pid", .int(Int(pid)))] : []
    let logIdentities: [(String, JSON)] =
      includingRunIdentities
      ? [
        ("logID", .string(String(link.sync.logID, radix: 16))),
        ("peerLogID", .string(String(link.sync.peerLogID, radix: 16))),
      ] : []
    return .object(identities + [
      ("clock", .object([("now", .string(formatDate(d.now))), ("virtual", .bool(d.virtualClock))])),
      (
        "policy",
        .object([
          ("reprompt", .string(d.policy.reprompt.rawValue)),
          ("retentionSeconds", d.policy.retention.map { JSON.number($0) } ?? .null),
          ("timeZone", .string(d.policy.timeZone.identifier)),
          (
            "sourceOrders",
            .object(
              d.policy.sourceOrders.sorted { $0.key < $1.key }.map { type, order in
                (type.name, .array(order.sources.map { JSON.string($0.description) }))
              })
          ),
        ])
      ),
      ("earliestPermittedSampleDate", .string(formatDate(d.earliestPermittedSampleDate))),
      (
        "apps",
        .array(
          d.apps.map { app in
            .object([
              ("bundleID", .string(app.record.bundleID)),
              ("displayName", .string(app.record.displayName)),
              ("lockedOut", .bool(app.lockedOut)),
              (
                "permissions",
                .array(
                  app.decisions.map { change in
                    .object([
                      ("type", .string(change.permission.type.name)),
                      ("direction", .string(change.permission.direction.description)),
                      ("decision", .string(change.decision.description)),
                    ])
                  })
              ),
            ])
          })
      ),
      ("sampleCounts", .object(d.sampleCounts.sorted { $0.key < $1.key }.map { ($0.key.name, JSON.int($0.value)) })),
      ("tombstones", .int(d.tombstoneCount)),
      (
        "pendingSheets",
        .array(
          d.pendingPrompts.map { p in
            .object([
              ("id", .unsigned(p.id)), ("bundleID", .string(p.bundleID)),
              ("lists", .array(p.permissions.map { .string($0.description) })),
            ])
          })
      ),
      (
        "link",
        .object([
          ("enabled", .bool(link.enabled)), ("connected", .bool(link.connected)), ("holding", .bool(link.holding)),
          ("latencySeconds", .number(link.latency)), ("lastSeq", .unsigned(link.sync.lastSeq)),
          ("peerAcked", .unsigned(link.sync.peerAcked)), ("appliedFromPeer", .unsigned(link.sync.appliedFromPeer)),
          ("pendingItems", .int(link.sync.pendingItems)), ("verified", .bool(link.sync.verified)),
          ("diverged", .bool(link.sync.diverged)), ("conflicts", .int(link.sync.conflicts)),
        ] + logIdentities)
      ),
    ] + lockAndHealth(d))
  }

  /// The unit locale, the lock and the Health app's values, as `json(includingRunIdentities:)` adds them.
  private func lockAndHealth(_ d: DeviceSnapshot) -> [(String, JSON)] {
    let details = d.characteristics.sorted { $0.key < $1.key }.map { type, value in
      (type.name, JSON.string(value.name(for: type)))
    }
    let units = d.preferredUnits.sorted { $0.key < $1.key }.map { ($0.key.name, JSON.string($0.value)) }
    return [
      ("units", .string(d.policy.units.description)), ("locked", .bool(d.locked)),
      ("lockedSamples", .int(d.lockedSamples)), ("healthDetails", .object(details)), ("preferredUnits", .object(units)),
    ]
  }
}

/// Where a pair's sync stands, from both devices' status: what `status` prints and reports carry.
package enum PairSyncState: String, Sendable {
  /// Each device applied everything the other logged, and a store check confirmed both hold the same samples.
  case synced
  /// Entries are still on their way (or the link is down).
  case syncing
  /// Caught up, but the store check at these cursors has not answered yet.
  case checking
  /// Store checks kept failing after re-sends: the stores differ (see the daemons' logs).
  case diverged

  /// The state of a pair whose devices report `phone` and `watch`.
  package init(phone: DeviceSnapshot.SyncStatus, watch: DeviceSnapshot.SyncStatus) {
    if phone.diverged || watch.diverged {
      self = .diverged
    } else if phone.isSynced(with: watch) {
      self = .synced
    } else if phone.lastSeq == watch.appliedFromPeer && watch.lastSeq == phone.appliedFromPeer
      && phone.logID == watch.peerLogID && watch.logID == phone.peerLogID
    {
      self = .checking
    } else {
      self = .syncing
    }
  }

  /// Entries one device logged that the other has not applied (nil while the other counts in an older log).
  package static func lag(from origin: DeviceSnapshot.SyncStatus, to target: DeviceSnapshot.SyncStatus) -> UInt64? {
    guard target.peerLogID == origin.logID else { return nil }
    return origin.lastSeq >= target.appliedFromPeer ? origin.lastSeq - target.appliedFromPeer : 0
  }
}

extension Sample {
  /// One line: `uuid type value unit start–end app@device`.
  package func describe(unit: HealthUnit? = nil) -> String {
    let value: String
    switch self.value {
    case .quantity(let v):
      let canonical = type.descriptor.canonicalUnit!
      let shown = unit ?? canonical
      value = "\(formatNumber((try? canonical.convert(v, to: shown)) ?? v)) \(shown)"
    case .category(let c):
      value = type.descriptor.categoryValues?.first { $0.value == c }?.name ?? String(c)
    }
    let time = start == end ? formatDate(start) : "\(formatDate(start))–\(formatDate(end))"
    let meta =
      metadata.isEmpty
      ? "" : " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    return "\(uuid.uuidString.lowercased()) \(type.name) \(value) \(time) \(source)\(meta)"
  }
}
