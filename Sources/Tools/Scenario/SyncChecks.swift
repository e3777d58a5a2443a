import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// Sync checks: the link, whether both stores hold the same samples and deletions, sync conflicts.
extension RunContext {
  /// `expect converged`: both raw stores hold the same samples (identifiers, values, dates, metadata, sources) and
  /// deletions.
  func checkConverged(_ step: Step) throws {
    let phone = try client(.phone).storedSamples()
    let watch = try client(.watch).storedSamples()
    let differences = convergence(phone: phone.samples, watch: watch.samples)
    let phoneDeleted = Set(phone.tombstones.map(\.uuid))
    let watchDeleted = Set(watch.tombstones.map(\.uuid))
    var problems = differences
    if phoneDeleted != watchDeleted {
      let phoneOnly = phoneDeleted.subtracting(watchDeleted).map { name(of: $0) }.sorted()
      let watchOnly = watchDeleted.subtracting(phoneDeleted).map { name(of: $0) }.sorted()
      problems.append(
        "deletions only on the phone: \(phoneOnly.joined(separator: ", ")); only on the watch: "
          + watchOnly.joined(separator: ", "))
    }
    if !problems.isEmpty {
      throw fail(
        step, "both devices store the same samples (values, dates, metadata, sources) and deletions",
        problems.joined(separator: "\n"))
    }
  }

  /// `expect diverged:` and its lines: the stores differ by exactly these named samples.
  func checkDiverged(_ expected: [Divergence], _ step: Step) throws {
    let phone = Set(try client(.phone).storedSamples().samples.map(\.uuid))
    let watch = Set(try client(.watch).storedSamples().samples.map(\.uuid))
    let actual = [
      "only on phone: " + phone.subtracting(watch).map(name).sorted().joined(separator: ", "),
      "only on watch: " + watch.subtracting(phone).map(name).sorted().joined(separator: ", "),
    ]
    var wantedPhone: [String] = []
    var wantedWatch: [String] = []
    for d in expected { if d.onlyOn == .phone { wantedPhone += d.names } else { wantedWatch += d.names } }
    let wanted = [
      "only on phone: " + wantedPhone.sorted().joined(separator: ", "),
      "only on watch: " + wantedWatch.sorted().joined(separator: ", "),
    ]
    if wanted != actual { throw fail(step, wanted.joined(separator: "\n"), actual.joined(separator: "\n")) }
  }

  /// `<n> sync conflicts`.
  func checkSyncConflicts(_ devices: Devices, _ expected: Int, _ step: Step) throws {
    for device in devices.list {
      let actual = try client(device).dump().link.sync.conflicts
      if actual != expected {
        throw fail(step, "\(expected) sync conflicts on the \(device)", "\(actual)")
      }
    }
  }

  /// `expect link is up|down`: up when both sides are linked.
  func checkLinkUp(_ expected: Bool, _ step: Step) throws {
    let phone = try client(.phone).link(.reconnectNow).connected
    let watch = try client(.watch).link(.reconnectNow).connected
    if (phone && watch) != expected {
      throw fail(
        step, expected ? "link up" : "link down", "phone \(phone ? "up" : "down"), watch \(watch ? "up" : "down")")
    }
  }

  /// What differs between the phone's and the watch's samples: identifiers on one side only, and samples whose
  /// content (type, value, dates, metadata, source) differs under one identifier.
  private func convergence(phone: [Sample], watch: [Sample]) -> [String] {
    let phoneByID = Dictionary(phone.map { ($0.uuid, $0) }, uniquingKeysWith: { a, _ in a })
    let watchByID = Dictionary(watch.map { ($0.uuid, $0) }, uniquingKeysWith: { a, _ in a })
    var problems: [String] = []
    let phoneOnly = Set(phoneByID.keys).subtracting(watchByID.keys).map { name(of: $0) }.sorted()
    let watchOnly = Set(watchByID.keys).subtracting(phoneByID.keys).map { name(of: $0) }.sorted()
    if !phoneOnly.isEmpty || !watchOnly.isEmpty {
      problems.append(
        "only on the phone: \(phoneOnly.joined(separator: ", ")); "
          + "only on the watch: \(watchOnly.joined(separator: ", "))")
    }
    // Names only for the samples that differ, each computed once before sorting (naming an unnamed sample formats
    // its UUID and searches the scenario's names).
    var differing: [(name: String, a: Sample, b: Sample)] = []
    for (uuid, a) in phoneByID {
      guard let b = watchByID[uuid], a != b else { continue }
      differing.append((name(of: uuid), a, b))
    }
    differing.sort { $0.name < $1.name }
    for (sampleName, a, b) in differing {
      var fields: [String] = []
      if a.type != b.type { fields.append("type \(a.type) / \(b.type)") }
      if a.value != b.value { fields.append("value \(show(a)) / \(show(b))") }
      if a.start != b.start || a.end != b.end {
        let dates = { (s: Sample) in "\(formatDate(s.start))–\(formatDate(s.end))" }
        fields.append("dates \(dates(a)) / \(dates(b))")
      }
      if a.metadata != b.metadata { fields.append("metadata \(show(a.metadata)) / \(show(b.metadata))") }
      if a.source != b.source { fields.append("source \(a.source) / \(b.source)") }
      problems.append("\(sampleName) differs (phone / watch): " + fields.joined(separator: "; "))
    }
    return problems
  }

  /// A sample's value as the report shows it.
  private func show(_ sample: Sample) -> String {
    switch sample.value {
    case .quantity(let v): show(v, sample.type.descriptor.canonicalUnit!)
    case .category(let c): sample.type.descriptor.categoryValues?.first { $0.value == c }?.name ?? String(c)
    }
  }

  /// Metadata as the report shows it, keys sorted.
  private func show(_ metadata: Metadata) -> String {
    "[" + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "]"
  }
}
