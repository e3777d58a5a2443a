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
    lines.append("policy   reprompt=\(d.policy.reprompt.rawValue) retention=\(d.policy.retention.map(formatDuration) ?? "none")")
    let s = link.sync
    lines.append(
      "link     \(link.connected ? "up" : (link.enabled ? "down" : "disconnected"))\(link.holding ? " (holding)" : "")"
        + "\(link.latency > 0 ? " latency=\(formatDuration(link.latency))" : "")")
    lines.append("sync     logged=\(s.lastSeq) acked=\(s.peerAcked) applied-from-peer=\(s.appliedFromPeer) pending=\(s.pendingItems)")
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
        lines.append("  \(type.name) share=\(e.share?.description ?? "-") read=\(e.read?.description ?? "-")")
      }
    }
    if d.sampleCounts.isEmpty {
      lines.append("samples  (none)")
    } else {
      lines.append("samples  " + d.sampleCounts.sorted { $0.key < $1.key }.map { "\($0.key.name)=\($0.value)" }.joined(separator: " "))
    }
    if d.tombstoneCount > 0 { lines.append("deleted  \(d.tombstoneCount)") }
    for prompt in d.pendingPrompts {
      lines.append("sheet    #\(prompt.id) \(prompt.bundleID): \(prompt.permissions.map(\.description).joined(separator: ", "))")
    }
    return lines
  }

  /// The snapshot as JSON.
  package var json: JSON {
    let d = device
    return .object([
      ("device", .string(d.device.description)),
      ("pid", .int(Int(pid))),
      ("clock", .object([("now", .string(formatDate(d.now))), ("virtual", .bool(d.virtualClock))])),
      ("policy", .object([
        ("reprompt", .string(d.policy.reprompt.rawValue)),
        ("retentionSeconds", d.policy.retention.map { JSON.number($0) } ?? .null),
      ])),
      ("earliestPermittedSampleDate", .string(formatDate(d.earliestPermittedSampleDate))),
      ("apps", .array(d.apps.map { app in
        .object([
          ("bundleID", .string(app.record.bundleID)),
          ("displayName", .string(app.record.displayName)),
          ("lockedOut", .bool(app.lockedOut)),
          ("permissions", .array(app.decisions.map { change in
            .object([
              ("type", .string(change.permission.type.name)), ("direction", .string(change.permission.direction.description)),
              ("decision", .string(change.decision.description)),
            ])
          })),
        ])
      })),
      ("sampleCounts", .object(d.sampleCounts.sorted { $0.key < $1.key }.map { ($0.key.name, JSON.int($0.value)) })),
      ("tombstones", .int(d.tombstoneCount)),
      ("pendingSheets", .array(d.pendingPrompts.map { p in
        .object([("id", .int(Int(p.id))), ("bundleID", .string(p.bundleID)), ("lists", .array(p.permissions.map { .string($0.description) }))])
      })),
      ("link", .object([
        ("enabled", .bool(link.enabled)), ("connected", .bool(link.connected)), ("holding", .bool(link.holding)),
        ("latencySeconds", .number(link.latency)), ("lastSeq", .int(Int(link.sync.lastSeq))),
        ("peerAcked", .int(Int(link.sync.peerAcked))), ("appliedFromPeer", .int(Int(link.sync.appliedFromPeer))),
        ("pendingItems", .int(link.sync.pendingItems)),
      ])),
    ])
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
    let meta = metadata.isEmpty ? "" : " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    return "\(uuid.uuidString.lowercased()) \(type.name) \(value) \(time) \(source)\(meta)"
  }
}
