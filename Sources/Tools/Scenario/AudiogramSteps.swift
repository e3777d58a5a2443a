import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// An app's audiograms: saving one as `save(_:)` of an `HKAudiogramSample` does, and what its sample queries of
/// the type return (behavior.md section H).
extension RunContext {
  /// `<device>: <App> saves audiogram at <time> with …`: a five-minute test of the points given, its outcome
  /// recorded as the app's last call.
  mutating func saveAudiogram(_ device: DeviceKind, _ name: String, _ spec: AudiogramSpec) throws {
    let start = resolve(spec.start, on: device)
    let input = AudiogramInput(
      uuid: rng.uuid(), start: start, end: start.addingTimeInterval(300), points: spec.modelPoints)
    if let n = spec.name { names[n] = input.uuid }
    let bundle = app(name).bundleID
    let c = client(device)
    record(device, name, "save", try capture { () throws(ClientError) in try c.saveAudiograms(bundle, [input]) })
  }

  /// `<App> sees <n> audiograms [with <m> points each] [query]`: the app's sample query of the type (the daemon
  /// applies read privacy: a denied read sees the app's own, H2).
  func checkSeesAudiograms(_ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, points: Int?, _ step: Step)
    throws
  {
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort)
      let found = try queried(step, "\(spec.app)'s audiogram query", on: device, expecting: expected) {
        () throws(ClientError) in try client(device).audiogramQuery(app(spec.app).bundleID, query)
      }
      let counts = found.map(\.points.count)
      if found.count != expected || points.map({ n in counts.contains { $0 != n } }) == true {
        throw fail(
          step,
          "\(spec.app) sees \(expected) audiograms on the \(device)" + (points.map { " with \($0) points each" } ?? ""),
          "\(found.count) audiogram\(found.count == 1 ? "" : "s")"
            + (found.isEmpty ? "" : ": " + counts.map { "\($0) points" }.joined(separator: "; ")))
      }
    }
  }
}
