import FoundationEssentials
import Testing

@testable import HealthModel

/// The shortcuts `validated` takes (identifiers checked without a `Set`, fixes and events already in order) give
/// what the plain algorithms give.
@Suite("Workout validation fast paths")
struct WorkoutValidationFastPathTests {
  let source = SampleSource(bundleID: "com.example.run", device: .watch)
  let t0 = parseDate("2026-01-05T08:00:00Z")!

  /// The first occurrences of `ids`, in order: the reference the fast paths must match.
  func firstOccurrences(_ ids: [UUID]) -> [UUID] {
    var seen: Set<UUID> = []
    return ids.filter { seen.insert($0).inserted }
  }

  func uuid(_ high: UInt64, _ low: UInt64) -> UUID {
    var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &bytes) { raw in
      raw.storeBytes(of: high, as: UInt64.self)
      raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
    }
    return UUID(uuid: bytes)
  }

  @Test(arguments: [0, 1, 5, 16, 17, 40, 5000])
  func repeatedAssociationsAreDroppedKeepingTheFirst(count: Int) throws {
    let distinct = (0..<count).map { _ in UUID() }
    #expect(uniqueIdentifiers(distinct) == distinct)
    guard count > 0 else { return }
    let repeated = distinct + distinct.prefix(3) + [distinct[count / 2]]
    #expect(uniqueIdentifiers(repeated) == firstOccurrences(repeated))
    let workout = try WorkoutInput(
      uuid: UUID(), activityType: .running, start: t0, end: t0.addingTimeInterval(60), associated: repeated
    ).validated(source: source)
    #expect(workout.associated == distinct)
  }

  @Test func identifiersCraftedToCollideFallBackToTheSet() {
    // Equal halves XOR to zero: every identifier lands in one slot, and the probe budget runs out.
    let crafted = (0..<3000).map { uuid(UInt64($0), UInt64($0)) }
    #expect(uniqueIdentifiers(crafted) == crafted)
    let repeated = crafted + [crafted[7]]
    #expect(uniqueIdentifiers(repeated) == crafted)
  }

  @Test func eventsAndFixesOutOfOrderAreStillSortedStably() throws {
    let late = WorkoutEvent(type: .marker, start: t0.addingTimeInterval(30), end: t0.addingTimeInterval(30))
    let early = WorkoutEvent(type: .marker, start: t0.addingTimeInterval(10), end: t0.addingTimeInterval(10))
    let workout = try WorkoutInput(
      uuid: UUID(), activityType: .running, start: t0, end: t0.addingTimeInterval(60), events: [late, early]
    ).validated(source: source)
    #expect(workout.events == [early, late])
    func fix(_ s: Double, _ latitude: Double) -> RouteLocation {
      RouteLocation(timestamp: t0.addingTimeInterval(s), latitude: latitude, longitude: 2)
    }
    let route = try RouteInput(uuid: UUID(), locations: [fix(2, 1), fix(1, 2), fix(1, 3)])
      .validated(workout: UUID(), source: source)
    #expect(route.locations == [fix(1, 2), fix(1, 3), fix(2, 1)])
  }
}
