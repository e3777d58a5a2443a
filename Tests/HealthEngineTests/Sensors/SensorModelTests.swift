import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// The sensor model: plausible values, determinism under chunking, pauses and the watch taken off.
@Suite struct SensorModelTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  let run = WorkoutConfiguration(activityType: .running, location: .outdoor)

  func session(seed: UInt64 = 7, running: [TimeSpan]? = nil) -> SensorSession {
    SensorSession(configuration: run, start: start, seed: seed, running: running ?? [TimeSpan(start: start)])
  }

  func total(_ samples: [SampleInput], _ name: String) -> Double {
    samples.filter { $0.type.name == name }.reduce(0) {
      if case .quantity(let v, _) = $1.value { return $0 + v }
      return $0
    }
  }

  @Test func easyRunIsPlausible() {
    let wearer = Wearer(effort: EffortProfile(.pace(minutesPerKilometre: 6)))
    let types = SensorModel.defaultCollectedTypes(run)
    let samples = SensorModel.samples(
      session: session(), wearer: wearer, from: start, to: start.addingTimeInterval(1800), types: types)
    let distance = total(samples, "distanceWalkingRunning")
    #expect(distance > 4900 && distance < 5100)
    let active = total(samples, "activeEnergyBurned")
    #expect(active > 300 && active < 400)
    let rates = samples.filter { $0.type.name == "heartRate" && $0.start > start.addingTimeInterval(300) }
      .compactMap { if case .quantity(let v, _) = $0.value { v } else { nil } }
    #expect(rates.count == 299)  // 5 s grid, after the 300 s mark
    #expect(rates.allSatisfy { $0 >= 130 && $0 <= 150 })
    #expect(samples.filter { $0.type.name == "heartRate" }.count == 360)
  }

  @Test func chunkingEqualsOnePass() {
    let wearer = Wearer(
      effort: EffortProfile(segments: [(600, .easy), (300, .hard), (300, .rest), (600, .moderate)]),
      offWrist: [TimeSpan(start: start.addingTimeInterval(1000), end: start.addingTimeInterval(1093.5))])
    let sess = session(running: [
      TimeSpan(start: start, end: start.addingTimeInterval(700.25)),
      TimeSpan(start: start.addingTimeInterval(760), end: nil),
    ])
    let types = SensorModel.defaultCollectedTypes(run)
    let end = start.addingTimeInterval(1800)
    let whole = SensorModel.samples(session: sess, wearer: wearer, from: start, to: end, types: types)
    let wholeRoute = SensorModel.routeLocations(session: sess, wearer: wearer, from: start, to: end)
    var rng = SplitMix(seed: 42)
    for _ in 0..<20 {
      var cuts = (0..<Int.random(in: 1...12, using: &rng)).map { _ in Double.random(in: 0..<1800, using: &rng) }
      cuts = [0] + cuts.sorted() + [1800]
      var chunked: [SampleInput] = []
      var route: [RouteLocation] = []
      for (a, b) in zip(cuts, cuts.dropFirst()) {
        let from = start.addingTimeInterval(a)
        let to = start.addingTimeInterval(b)
        chunked += SensorModel.samples(session: sess, wearer: wearer, from: from, to: to, types: types)
        route += SensorModel.routeLocations(session: sess, wearer: wearer, from: from, to: to)
      }
      #expect(chunked == whole)
      #expect(route == wholeRoute)
    }
  }

  @Test func sameSeedSameSamplesOtherSeedOtherNoise() {
    let types = SensorModel.defaultCollectedTypes(run)
    let end = start.addingTimeInterval(600)
    let a = SensorModel.samples(session: session(seed: 1), wearer: Wearer(), from: start, to: end, types: types)
    let b = SensorModel.samples(session: session(seed: 1), wearer: Wearer(), from: start, to: end, types: types)
    let c = SensorModel.samples(session: session(seed: 2), wearer: Wearer(), from: start, to: end, types: types)
    #expect(a == b)
    #expect(a.map(\.uuid) != c.map(\.uuid))
    #expect(a.map(\.value) != c.map(\.value))
    #expect(Set(a.map(\.uuid)).count == a.count)
  }

  @Test func pausesAndOffWristProduceNothing() {
    let paused = (start.addingTimeInterval(300), start.addingTimeInterval(400))
    let off = (start.addingTimeInterval(500), start.addingTimeInterval(550))
    let sess = session(running: [TimeSpan(start: start, end: paused.0), TimeSpan(start: paused.1)])
    let wearer = Wearer(offWrist: [TimeSpan(start: off.0, end: off.1)])
    let samples = SensorModel.samples(
      session: sess, wearer: wearer, from: start, to: start.addingTimeInterval(900),
      types: SensorModel.defaultCollectedTypes(run))
    for (from, to) in [paused, off] {
      #expect(!samples.contains { $0.start < to && $0.end > from })
      #expect(!samples.contains { $0.start == $0.end && $0.start >= from && $0.start < to })
    }
    let route = SensorModel.routeLocations(
      session: sess, wearer: wearer, from: start, to: start.addingTimeInterval(900))
    #expect(!route.contains { $0.timestamp >= paused.0 && $0.timestamp < paused.1 })
    #expect(route.count == 900 - 100 - 50)
  }

  @Test func heartRateFollowsEffortWithLag() {
    let wearer = Wearer(effort: EffortProfile(segments: [(600, .easy), (600, .hard)]))
    let timeline = SensorTimeline(session: session(), wearer: wearer, horizon: 1200)
    #expect(timeline.heartRate(at: 600) < timeline.heartRate(at: 615))
    #expect(timeline.heartRate(at: 615) < SensorTimeline.target(0.85, wearer: wearer) - 10)
    #expect(abs(timeline.heartRate(at: 1190) - SensorTimeline.target(0.85, wearer: wearer)) < 1)
  }

  @Test func routeFixesAreDenseAccurateAndMoveAtPace() {
    let route = SensorModel.routeLocations(
      session: session(), wearer: Wearer(), from: start, to: start.addingTimeInterval(120))
    #expect(route.count == 120)
    #expect(route.allSatisfy { $0.horizontalAccuracy <= 50 && $0.horizontalAccuracy > 0 })
    #expect(route.allSatisfy { $0.course >= 0 && $0.course < 360 })
    let indoor = SensorSession(
      configuration: WorkoutConfiguration(activityType: .running, location: .indoor), start: start, seed: 1,
      running: [TimeSpan(start: start)])
    #expect(SensorModel.routeLocations(session: indoor, wearer: Wearer(), from: start, to: start + 60).isEmpty)
  }

  @Test func defaultTypesFollowTheTable() {
    let names = { (c: WorkoutConfiguration) in Set(SensorModel.defaultCollectedTypes(c).map(\.name)) }
    #expect(names(run).isSuperset(of: ["heartRate", "activeEnergyBurned", "basalEnergyBurned",
      "distanceWalkingRunning", "stepCount"]))
    #expect(!names(WorkoutConfiguration(activityType: .cycling, location: .indoor)).contains("distanceCycling"))
    #expect(names(WorkoutConfiguration(activityType: .swimming)).contains("swimmingStrokeCount"))
    #expect(names(WorkoutConfiguration(activityType: .other)) == ["heartRate", "activeEnergyBurned",
      "basalEnergyBurned"])
  }
}
