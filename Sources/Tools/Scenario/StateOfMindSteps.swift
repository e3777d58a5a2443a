import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// An app's States of Mind: logging one as `save(_:)` of an `HKStateOfMind` does, and what its sample queries of
/// the type return with HealthKit's predicates (behavior.md section M).
extension RunContext {
  /// `<device>: <App> logs state of mind …`: its outcome is the app's last call.
  mutating func logStateOfMind(_ device: DeviceKind, _ name: String, _ spec: StateOfMindSpec) throws {
    let input = StateOfMindInput(
      uuid: rng.uuid(), date: spec.date.map { resolve($0, on: device) } ?? now, kind: spec.kind.rawValue,
      valence: spec.valence, labels: spec.labels, associations: spec.associations)
    if let n = spec.name { names[n] = input.uuid }
    let bundle = app(name).bundleID
    let c = client(device)
    record(device, name, "save", try capture { () throws(ClientError) in try c.saveStatesOfMind(bundle, [input]) })
  }

  /// `<App> sees <n> states of mind …`: the app's sample query of the type with the kind, label, association and
  /// valence predicates; `classified` checks every result's class.
  func checkSeesStatesOfMind(
    _ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, _ check: StateOfMindCheck, _ step: Step
  ) throws {
    var conditions: [SampleFilter] = []
    if let kind = check.kind { conditions.append(.stateOfMind(.kind, kind.rawValue)) }
    if let label = check.label { conditions.append(.stateOfMind(.label, label)) }
    if let association = check.association { conditions.append(.stateOfMind(.association, association)) }
    if let valence = check.valence {
      conditions.append(.stateOfMindValence(valence.above ? .greaterThan : .lessThan, valence.value))
    }
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort,
        filter: conditions.isEmpty ? nil : conditions.count == 1 ? conditions[0] : .and(conditions))
      let found = try queried(step, "\(spec.app)'s State of Mind query", on: device, expecting: expected) {
        () throws(ClientError) in try client(device).stateOfMindQuery(app(spec.app).bundleID, query)
      }
      let classes = found.map(\.classification)
      if found.count != expected || check.classification.map({ c in classes.contains { $0 != c } }) == true {
        throw fail(
          step,
          "\(spec.app) sees \(expected) states of mind on the \(device)"
            + (check.classification.map { " classified \($0)" } ?? ""),
          "\(found.count) state\(found.count == 1 ? "" : "s") of mind"
            + (found.isEmpty
              ? ""
              : ": "
                + found.map { "\($0.kind) \(formatNumber($0.valence)) \($0.classification)" }
                .joined(separator: "; ")))
      }
    }
  }
}
