import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

@Suite("Workout events a save would never make: refused by the store, left out of the sync log")
struct WorkoutHostileApplyTests {
  /// A journal event (only a hostile journal writes one that a save's checks would refuse) naming an identifier a
  /// sample holds, a route of no live workout, or an association with no live workout changes nothing and sends
  /// nothing.
  @Test func refusedObjectsAreNeitherStoredNorLogged() throws {
    var phone = try runDevice()
    let beat = heartRateInput(120)
    _ = try phone.save(runApp.bundleID, [beat], wall: t0)
    let logged = phone.sync.lastSeq
    let source = SampleSource(bundleID: runApp.bundleID, device: .phone)
    let clash = try run(uuid: beat.uuid).validated(source: source)
    phone.apply(.workoutsSaved([clash]))
    #expect(phone.workoutStore.workouts.isEmpty, "a sample already holds the identifier")
    let orphan = try route().validated(workout: UUID(), source: source)
    phone.apply(.routesSaved([orphan]))
    phone.apply(.workoutSamplesAssociated(workout: UUID(), samples: [beat.uuid]))
    #expect(phone.workoutStore.routes.isEmpty)
    #expect(phone.sync.lastSeq == logged, "nothing the store refused reaches the sync log")
  }

  /// A workout from the peer whose identifier a sample here already holds is left out, as a known identifier is.
  @Test func aPeerWorkoutClashingWithASampleHereIsLeftOut() throws {
    var phone = try runDevice()
    var watch = try runDevice(.watch)
    let beat = heartRateInput(120)
    _ = try watch.save(runApp.bundleID, [beat], wall: t0)
    _ = try phone.saveWorkout(runApp.bundleID, run(uuid: beat.uuid), route: nil, wall: t0)
    #expect(phone.workoutStore.workouts.count == 1)
    deliver(phone, to: &watch)
    #expect(watch.workoutStore.workouts.isEmpty)
    #expect(watch.store.liveSample(beat.uuid) != nil)
  }
}
