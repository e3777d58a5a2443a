import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// An app's scored assessments: logging one as `save(_:)` of an `HKGAD7Assessment` or `HKPHQ9Assessment` does, and
/// what its sample queries of the type return (behavior.md section N).
extension RunContext {
  /// `<device>: <App> logs GAD-7|PHQ-9 answers …`: its outcome is the app's last call.
  mutating func logAssessment(_ device: DeviceKind, _ name: String, _ spec: AssessmentSpec) throws {
    let input = ScoredAssessmentInput(
      uuid: rng.uuid(), kind: spec.kind.rawValue, date: spec.date.map { resolve($0, on: device) } ?? now,
      answers: spec.answers)
    if let n = spec.name { names[n] = input.uuid }
    let bundle = app(name).bundleID
    let c = client(device)
    record(
      device, name, "save", try capture { () throws(ClientError) in try c.saveScoredAssessments(bundle, [input]) })
  }

  /// `<App> sees <n> GAD-7|PHQ-9 assessments …`: the app's sample query of the type; `check` holds for every result.
  func checkSeesAssessments(
    _ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, _ check: AssessmentCheck, _ step: Step
  ) throws {
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort)
      let found = try queried(step, "\(spec.app)'s assessment query", on: device, expecting: expected) {
        () throws(ClientError) in
        try client(device).scoredAssessmentQuery(app(spec.app).bundleID, query)
      }
      let wrong = found.contains { a in
        check.score.map { $0 != a.score } == true || check.risk.map { $0 != a.riskName } == true
      }
      if found.count != expected || wrong {
        let kind = spec.type == SpecialObjectStore.gad7Type ? AssessmentKind.gad7 : .phq9
        throw fail(
          step,
          "\(spec.app) sees \(expected) \(kind) assessment\(expected == 1 ? "" : "s") on the \(device)"
            + (check.score.map { " scoring \($0)" } ?? "") + (check.risk.map { " at risk \($0)" } ?? ""),
          "\(found.count) assessment\(found.count == 1 ? "" : "s")"
            + (found.isEmpty ? "" : ": " + found.map { "score \($0.score) \($0.riskName)" }.joined(separator: "; ")))
      }
    }
  }
}
