import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

let basalEnergy = SampleType.lookup(name: "basalEnergyBurned")!
let runDistance = SampleType.lookup(name: "distanceWalkingRunning")!

func energyInput(_ kcal: Double, at date: Date, seconds: Double = 5) -> SampleInput {
  SampleInput(
    uuid: UUID(), type: activeEnergy, value: .quantity(kcal, unit: "kcal"), start: date,
    end: date.addingTimeInterval(seconds))
}

func liveBuilder(_ configuration: WorkoutConfiguration = outdoorRun, app: String = runApp.bundleID)
  -> LiveWorkoutBuilder
{
  LiveWorkoutBuilder(
    session: WorkoutSessionID(uuid: UUID()), configuration: configuration,
    source: SampleSource(bundleID: app, device: .watch))
}

@Suite("Workout sessions: the live builder (workouts.md §2.5–§2.7, §6.1)")
struct LiveBuilderTests {
  @Test func defaultTypesFollowTheConfiguration() {
    func names(_ configuration: WorkoutConfiguration) -> Set<String> {
      Set(LiveCollection.defaults(for: configuration).map(\.name))
    }
    let run = names(outdoorRun)
    #expect(run.isSuperset(of: ["heartRate", "activeEnergyBurned", "basalEnergyBurned", "distanceWalkingRunning"]))
    #expect(run.contains("runningStrideLength"))
    #expect(!names(WorkoutConfiguration(activityType: .running, location: .indoor)).contains("runningStrideLength"))
    #expect(names(WorkoutConfiguration(activityType: .cycling, location: .outdoor)).contains("distanceCycling"))
    #expect(!names(WorkoutConfiguration(activityType: .cycling, location: .indoor)).contains("distanceCycling"))
    #expect(
      names(WorkoutConfiguration(activityType: .swimming)).isSuperset(of: ["distanceSwimming", "swimmingStrokeCount"]))
    #expect(
      names(WorkoutConfiguration(activityType: WorkoutActivityType(name: "wheelchairRunPace")!)).contains("pushCount"))
    #expect(
      names(WorkoutConfiguration(activityType: .other)) == ["heartRate", "activeEnergyBurned", "basalEnergyBurned"])
    #expect(LiveCollection(configuration: nil).types.isEmpty)
  }

  @Test func enableAndDisableCollectionWithAPredicate() throws {
    var builder = liveBuilder()
    try builder.beginCollection(at: at(0))
    builder.collection.disable(heartRate)
    builder.collection.enable(water, predicate: nil)
    builder.collection.enable(activeEnergy, predicate: .sources(["someone.else"]))
    let inputs = [heartRateInput(130, at: at(1)), waterInput(100, at: at(1)), energyInput(2, at: at(1))]
    let result = builder.collect(inputs, sessionState: .running, denied: [])
    #expect(result.stored.map(\.type) == [water])
    #expect(result.callbacks == [.didCollectDataOf([water])])
    builder.collection.enable(activeEnergy, predicate: .sources([runApp.bundleID]))
    #expect(builder.collect([energyInput(2, at: at(2))], sessionState: .running, denied: []).stored.count == 1)
  }

  @Test func samplesAreCollectedOnlyWhileRunningAndNotBeforeTheStart() throws {
    var builder = liveBuilder()
    #expect(builder.collect([heartRateInput(100, at: at(1))], sessionState: .running, denied: []).stored.isEmpty)
    try builder.beginCollection(at: at(10))
    #expect(builder.collect([heartRateInput(100, at: at(5))], sessionState: .running, denied: []).stored.isEmpty)
    for state in [WorkoutSessionState.paused, .stopped, .ended, .prepared] {
      #expect(builder.collect([heartRateInput(100, at: at(20))], sessionState: state, denied: []).stored.isEmpty)
    }
    #expect(builder.collect([heartRateInput(100, at: at(20))], sessionState: .running, denied: []).stored.count == 1)
  }

  @Test func deniedHeartRateIsDroppedAndTheRestCollected() throws {
    var builder = liveBuilder()
    try builder.beginCollection(at: at(0))
    let result = builder.collect(
      [heartRateInput(140, at: at(5)), energyInput(1.5, at: at(5))], sessionState: .running, denied: [heartRate])
    #expect(result.stored.map(\.type) == [activeEnergy])
    #expect(builder.statistics(for: heartRate) == nil)
    #expect(builder.elapsedTime(at: at(60)) == 60, "the clock runs without heart rate")
  }

  @Test func elapsedTimeExcludesPauses() throws {
    var builder = liveBuilder()
    #expect(builder.elapsedTime(at: at(5)) == 0)
    try builder.beginCollection(at: at(0))
    _ = builder.sessionGenerated(WorkoutEvent(type: .pause, start: at(100)))
    #expect(builder.elapsedTime(at: at(150)) == 100, "frozen while paused")
    _ = builder.sessionGenerated(WorkoutEvent(type: .resume, start: at(200)))
    #expect(builder.elapsedTime(at: at(300)) == 200)
    try builder.endCollection(at: at(400))
    #expect(builder.elapsedTime(at: at(1000)) == 300, "stops at the end")
  }

  @Test func liveStatisticsSumAndAverage() throws {
    var builder = liveBuilder()
    try builder.beginCollection(at: at(0))
    let inputs = [
      heartRateInput(100, at: at(5)), heartRateInput(140, at: at(10)), energyInput(2, at: at(5)),
      energyInput(3, at: at(10)),
    ]
    _ = builder.collect(inputs, sessionState: .running, denied: [])
    let energy = try #require(builder.statistics(for: activeEnergy))
    #expect(energy.sum == 5)
    let rate = try #require(builder.statistics(for: heartRate))
    // Statistics are in the canonical unit (count/s).
    func perMinute(_ value: Double?) -> Double { ((value ?? .nan) * 60 * 1e6).rounded() / 1e6 }
    #expect(perMinute(rate.average) == 120 && perMinute(rate.minimum) == 100 && perMinute(rate.maximum) == 140)
    #expect(perMinute(rate.mostRecent) == 140)
    #expect(builder.statistics(for: runDistance) == nil)
  }

  @Test func finishWorkoutProducesTheWorkoutWithItsSamplesAndItSaves() throws {
    var device = try runDevice(.watch)
    var registry = SessionRegistry(device: .watch)
    _ = registry.setRunState(runApp.bundleID, .foreground)
    let id = registry.create(app: runApp.bundleID, uuid: UUID(), configuration: outdoorRun)
    _ = registry.associatedBuilder(id)
    _ = registry.apply(.startActivity(at(0)), to: id, at: at(0))
    try registry.beginCollection(id, at: at(0))
    var stored: [Sample] = []
    for step in 1...4 {
      let inputs = [
        heartRateInput(120 + Double(step), at: at(Double(step) * 5)), energyInput(1, at: at(Double(step) * 5)),
      ]
      for case .store(let samples) in registry.sensorSamples(inputs, denied: [], at: at(Double(step) * 5)) {
        stored += samples
      }
    }
    _ = registry.apply(.pause, to: id, at: at(30))
    _ = registry.apply(.resume, to: id, at: at(40))
    // Order B (workouts.md §2.7): stop, end collection, finish, then end.
    _ = registry.apply(.stopActivity(at(60)), to: id, at: at(60))
    let uuid = UUID()
    try registry.endCollection(id, at: at(60))
    let workout = try registry.finishWorkout(id, uuid: uuid)
    _ = registry.apply(.end, to: id, at: at(61))
    #expect(workout.start == at(0) && workout.end == at(60))
    #expect(workout.events.map(\.type) == [.pause, .resume])
    #expect(Set(workout.associated) == Set(stored.map(\.uuid)) && stored.count == 8)
    #expect(workout.statistics.first { $0.type == activeEnergy }?.sum == 4)
    _ = try device.save(runApp.bundleID, stored.map(\.asInput), wall: at(61))
    _ = try device.saveWorkout(runApp.bundleID, workout, route: nil, wall: at(61))
    let saved = try #require(device.workoutStore.workout(uuid))
    #expect(saved.duration == 50)
    #expect(saved.associated.count == 8)
  }

  @Test func orderAEndsTheSessionFirstAndTheBuilderStillFinishes() throws {
    var registry = watchRegistry()
    let id = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = registry.associatedBuilder(id)
    _ = registry.apply(.startActivity(at(0)), to: id, at: at(0))
    try registry.beginCollection(id, at: at(0))
    _ = registry.apply(.end, to: id, at: at(100))
    try registry.endCollection(id, at: at(100))
    #expect(try registry.finishWorkout(id, uuid: UUID()).end == at(100))
    expectError(.errorInvalidArgument) { try registry.discardWorkout(id) }
    let mirroredLike = WorkoutSessionID(uuid: UUID())
    expectError(.errorInvalidArgument) { try registry.beginCollection(mirroredLike, at: at(0)) }
  }

  @Test func lifecycleMisuseFailsWithCode3() throws {
    var builder = liveBuilder()
    expectError(.errorInvalidArgument) { try builder.endCollection(at: at(1)) }
    try builder.beginCollection(at: at(10))
    expectError(.errorInvalidArgument) { try builder.beginCollection(at: at(11)) }
    expectError(.errorInvalidArgument) { _ = try builder.finishWorkout(uuid: UUID()) }
    expectError(.errorInvalidArgument) { try builder.endCollection(at: at(5)) }
    expectError(.errorInvalidArgument) { _ = try builder.add(events: [WorkoutEvent(type: .marker, start: at(1))]) }
    #expect(try builder.add(events: [WorkoutEvent(type: .marker, start: at(12))]).count == 1)
    try builder.endCollection(at: at(20))
    _ = try builder.finishWorkout(uuid: UUID())
    expectError(.errorInvalidArgument) { try builder.discard() }
    var other = liveBuilder()
    try other.beginCollection(at: at(0))
    try other.discard()
    #expect(other.phase == .discarded)
    expectError(.errorInvalidArgument) { try other.endCollection(at: at(1)) }
  }

  @Test func activitiesSwapTheDefaultTypesAndCarryTheirStatistics() throws {
    var builder = liveBuilder(WorkoutConfiguration(activityType: WorkoutActivityType(name: "swimBikeRun")!))
    try builder.beginCollection(at: at(0))
    let swim = WorkoutActivity(
      uuid: UUID(), configuration: WorkoutConfiguration(activityType: .swimming), start: at(0), end: nil)
    #expect(builder.sessionBegan(swim) == [.didBeginActivity(swim)])
    #expect(builder.collection.types.contains(SampleType.lookup(name: "distanceSwimming")!))
    _ = builder.collect([energyInput(5, at: at(10))], sessionState: .running, denied: [])
    var endedSwim = swim
    endedSwim.end = at(100)
    _ = builder.sessionEnded(endedSwim)
    let runLeg = WorkoutActivity(uuid: UUID(), configuration: outdoorRun, start: at(100), end: nil)
    _ = builder.sessionBegan(runLeg)
    #expect(!builder.collection.types.contains(SampleType.lookup(name: "distanceSwimming")!))
    #expect(builder.collection.types.contains(runDistance))
    _ = builder.collect([energyInput(7, at: at(110))], sessionState: .running, denied: [])
    try builder.endCollection(at: at(200))
    let workout = try builder.finishWorkout(uuid: UUID())
    #expect(workout.activities.map { $0.statistics.first?.sum } == [5, 7])
    #expect(workout.activities.last?.end == at(200))
  }

  @Test func statisticsKeptAsTheBuilderCollectsMatchARescanOfItsSamples() throws {
    var builder = liveBuilder()
    try builder.beginCollection(at: at(0))
    for batch in 0..<5 {
      let t = Double(batch * 20)
      let inputs = [
        heartRateInput(90 + t, at: at(t + 5)), heartRateInput(150 - t, at: at(t + 10)), energyInput(t / 10, at: at(t)),
      ]
      _ = builder.collect(inputs, sessionState: .running, denied: [])
    }
    try builder.endCollection(at: at(120))
    // A range covering every sample takes the rescanning path; the whole interval, the kept totals.
    let whole = builder.workoutStatistics()
    let rescanned = builder.workoutStatistics(from: at(0), to: at(120))
    #expect(whole.map(\.type) == [activeEnergy, heartRate].sorted())
    #expect(whole == rescanned)
    #expect(whole.first { $0.type == activeEnergy }?.sum == 20)
  }
}

extension Sample {
  /// The sample as an app would hand it to `save` (canonical unit).
  var asInput: SampleInput {
    let value: SampleInput.Value =
      switch self.value {
      case .quantity(let v): .quantity(v, unit: type.descriptor.canonicalUnit!.description)
      case .category(let v): .category(v)
      }
    return SampleInput(uuid: uuid, type: type, value: value, start: start, end: end, metadata: metadata)
  }
}
