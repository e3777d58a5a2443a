import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// An app's heartbeat series and routes: saving a series as `HKHeartbeatSeriesBuilder` does, and what its heartbeat
/// series and route queries return (the daemon applies the app's authorization).
extension RunContext {
  /// `<device>: <App> saves heartbeat series …`: the builder's beats, then `finishSeries()` (behavior.md E12).
  /// A named series is kept even when the save fails.
  mutating func saveHeartbeatSeries(_ device: DeviceKind, _ name: String, _ spec: HeartbeatSeriesSpec) throws {
    let start = resolve(spec.start, on: device)
    let input = HeartbeatSeriesInput(
      uuid: rng.uuid(), start: start, end: start.addingTimeInterval(spec.span), beats: spec.beats)
    if let n = spec.name { names[n] = input.uuid }
    let bundle = app(name).bundleID
    let c = client(device)
    record(
      device, name, "finishSeries",
      try capture { () throws(ClientError) in try c.saveHeartbeatSeries(bundle, input) })
  }

  /// `<App> sees <n> heartbeat series [with <m> beats] [and <k> gaps] [query]` (behavior.md E12–E13).
  func checkSeesHeartbeatSeries(
    _ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, _ check: HeartbeatSeriesCheck, _ step: Step
  ) throws {
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort)
      let found = try queried(step, "\(spec.app)'s heartbeat series query", on: device, expecting: expected) {
        () throws(ClientError) in
        try client(device).heartbeatSeriesQuery(app(spec.app).bundleID, query)
      }
      let beats = found.map(\.beats.count)
      let gaps = found.map { $0.beats.filter(\.precededByGap).count }
      let wrong =
        found.count != expected || check.beats.map { n in beats.contains { $0 != n } } == true
        || check.gaps.map { n in gaps.contains { $0 != n } } == true
      if wrong {
        let expectation =
          "\(spec.app) sees \(expected) heartbeat series on the \(device)"
          + (check.beats.map { " with \($0) beats" } ?? "") + (check.gaps.map { " and \($0) gaps" } ?? "")
        let actual =
          "\(found.count) series"
          + (found.isEmpty
            ? "" : ": " + zip(beats, gaps).map { "\($0) beats, \($1) gaps" }.joined(separator: "; "))
        throw fail(step, expectation, actual)
      }
    }
  }

  /// `<App> sees <n> workout routes [with <m> locations [each]] [query]`: a route query of every workout the app may
  /// read (the daemon applies the app's authorization, E10) and each route's locations.
  func checkSeesRoutes(_ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, locations: Int?, _ step: Step)
    throws
  {
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort)
      let found = try queried(step, "\(spec.app)'s route query", on: device, expecting: expected) {
        () throws(ClientError) in
        try client(device).routeQuery(app(spec.app).bundleID, workout: nil, query)
      }
      let counts = found.map(\.locations.count)
      if found.count != expected || locations.map({ n in counts.contains { $0 != n } }) == true {
        let expectation =
          "\(spec.app) sees \(expected) workout route\(expected == 1 ? "" : "s") on the \(device)"
          + (locations.map { " with \($0) locations" } ?? "")
        let actual =
          "\(found.count) route\(found.count == 1 ? "" : "s")"
          + (found.isEmpty ? "" : " with " + counts.map(String.init).joined(separator: ", ") + " locations")
        throw fail(step, expectation, actual)
      }
    }
  }
}
