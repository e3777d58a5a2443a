import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// Store checks: the raw store (every app's samples, no authorization applied), the last import, the earliest
/// permitted sample date.
extension RunContext {
  /// `store has <n> [<type>] samples` / `store has no samples`.
  func checkStoreCount(_ devices: Devices, _ type: SampleType?, _ expected: Int, _ step: Step) throws {
    for device in devices.list {
      let actual = try client(device).storedSamples(type: type).samples.count
      if actual != expected {
        throw fail(step, "the \(device) stores \(expected) \(type?.name ?? "") samples", "\(actual)")
      }
    }
  }

  /// `store has <name>` / `store lacks <name>`.
  func checkStoreHas(_ devices: Devices, _ sample: String, _ expected: Bool, _ step: Step) throws {
    for device in devices.list {
      let uuid = names[sample] ?? UUID()
      let actual = try client(device).storedSamples().samples.contains { $0.uuid == uuid }
      if actual != expected {
        throw fail(
          step, "the \(device) \(expected ? "stores" : "does not store") \(sample)",
          actual ? "it is stored" : "it is not stored")
      }
    }
  }

  /// `store has <n> [<type>] samples [from <source>] [with <key>=<value>…]`: the source is its name in an imported
  /// export or its bundle identifier.
  func checkStoreCountMatching(
    _ devices: Devices, _ type: SampleType?, _ expected: Int, source: String?, metadata: Metadata, _ step: Step
  ) throws {
    for device in devices.list {
      let actual = try client(device).storedSamples(type: type).samples.filter { sample in
        (source.map { sample.source.details?.name == $0 || sample.source.bundleID == $0 } ?? true)
          && metadata.allSatisfy { sample.metadata[$0.key] == $0.value }
      }.count
      if actual != expected {
        let from = source.map { " from \"\($0)\"" } ?? ""
        let with =
          metadata.isEmpty
          ? "" : " with " + metadata.keys.sorted().map { "\($0)=\(metadata[$0]!)" }.joined(separator: " and ")
        throw fail(step, "the \(device) stores \(expected) \(type?.name ?? "") samples\(from)\(with)", "\(actual)")
      }
    }
  }

  /// `earliest permitted sample date is <time>`: `earliestPermittedSampleDate()`.
  func checkEarliestPermitted(_ device: DeviceKind, _ time: TimeSpec, _ step: Step) throws {
    let actual = try client(device).earliestPermittedSampleDate()
    let expected = resolve(time, on: device)
    if actual != expected { throw fail(step, formatDate(expected), formatDate(actual)) }
  }

  /// `last import added <n> samples [and <m> already present] [and <k> before the retention window]`: the counts
  /// written, of the last `import` on the device.
  func checkLastImport(
    _ device: DeviceKind, added: Int, alreadyPresent: Int?, beforeRetention: Int?, _ step: Step
  ) throws {
    guard let report = lastImport[device] else {
      throw fail(step, "an import into the \(device)", "no import ran on the \(device)")
    }
    let outcome = report.outcome
    func describe(_ a: Int, _ p: Int?, _ r: Int?) -> String {
      "\(a) added" + (p.map { ", \($0) already present" } ?? "")
        + (r.map { ", \($0) before the retention window" } ?? "")
    }
    if outcome.addedCount != added || alreadyPresent.map({ $0 != outcome.alreadyPresent }) == true
      || beforeRetention.map({ $0 != outcome.beforeRetention }) == true
    {
      throw fail(
        step, describe(added, alreadyPresent, beforeRetention),
        describe(outcome.addedCount, outcome.alreadyPresent, outcome.beforeRetention))
    }
  }
}
