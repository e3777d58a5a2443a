import FoundationEssentials
import HealthModel

#if canImport(Glibc)
  import Glibc  // exp, sin and cos (pure functions; no system calls)
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the wearer's route starts and how it bends: a seeded loop through a start point.
///
/// HealthPair model: the path is a circle through ``latitude``/``longitude`` (default Apple Park, 37.3349,
/// −122.0090) of a seeded radius 250–450 m, entered at a seeded bearing, clockwise or not by the seed; the wearer
/// is at the point the session's distance so far reaches on it. Altitude is a seeded base 5–300 m plus a 6 m swell
/// twice a lap. Each fix has a seeded horizontal accuracy of 3–8 m (and is displaced by at most a third of it),
/// vertical accuracy 4–10 m, speed within 2 % of the model's (accuracy 0.3 m/s) and the path's course (accuracy
/// 5–15°; invalid, −1, when standing).
package struct RoutePath: Hashable, Sendable {
  /// The start's latitude, degrees.
  package var latitude: Double
  /// The start's longitude, degrees.
  package var longitude: Double

  /// Creates a path start.
  package init(latitude: Double = 37.3349, longitude: Double = -122.0090) {
    self.latitude = latitude
    self.longitude = longitude
  }
}

extension SensorModel {
  /// The route stream's noise stream (beyond every sample type code).
  static let routeStream: UInt64 = 0x1_0000

  /// The route fixes in `[from, to)` of `session` on `wearer`, one every ``routeCadence`` on the grid anchored at
  /// the session's start while it runs and the watch is worn; empty when the configuration records no route
  /// (``ActivityMotion/recordsRoute(_:)``). Chunking holds as for ``samples(session:wearer:from:to:types:)``.
  package static func routeLocations(
    session: SensorSession, wearer: Wearer, path: RoutePath = RoutePath(), from: Date, to: Date
  ) -> [RouteLocation] {
    guard ActivityMotion.recordsRoute(session.configuration) else { return [] }
    let lower = from.timeIntervalSince(session.start)
    let upper = to.timeIntervalSince(session.start)
    guard upper > lower, upper > 0 else { return [] }
    let timeline = SensorTimeline(session: session, wearer: wearer, horizon: upper)
    let spans = wornRunningSpans(session: session, wearer: wearer)
    let seed = session.seed
    func unit(_ lane: UInt64) -> Double { Double(bits(seed, stream: routeStream, -1, lane) >> 11) / Double(1 << 53) }
    let radius = 250 + 200 * unit(1)
    let entry = 2 * Double.pi * unit(2)  // bearing of travel at the start, radians from north
    let turn: Double = unit(3) < 0.5 ? 1 : -1  // +1 clockwise
    let baseAltitude = 5 + 295 * unit(4)
    let swellPhase = 2 * Double.pi * unit(5)
    // The centre lies a radius away, perpendicular to the entry bearing, on the turning side.
    let toCentre = entry + turn * Double.pi / 2
    let centreNorth = radius * cos(toCentre)
    let centreEast = radius * sin(toCentre)
    let metresPerDegree = 111_320.0
    let metresPerDegreeEast = metresPerDegree * cos(path.latitude * Double.pi / 180)
    var fixes: [RouteLocation] = []
    var index = max(0, (lower / routeCadence).rounded(.up))
    while index * routeCadence < upper {
      let t = index * routeCadence
      defer { index += 1 }
      guard t >= lower, spans.contains(where: { $0.start <= t && t < $0.end }) else { continue }
      let grid = Int64(index)
      func fixUnit(_ lane: UInt64) -> Double {
        Double(bits(seed, stream: routeStream, grid, lane) >> 11) / Double(1 << 53)
      }
      let angle = timeline.distance(at: t) / radius
      // Seen from the centre the wearer starts at bearing toCentre + π and moves `turn`-wise.
      let fromCentre = toCentre + Double.pi + turn * angle
      let accuracy = 3 + 5 * fixUnit(1)
      let jitter = accuracy / 3 * fixUnit(2)
      let jitterBearing = 2 * Double.pi * fixUnit(3)
      let north = centreNorth + radius * cos(fromCentre) + jitter * cos(jitterBearing)
      let east = centreEast + radius * sin(fromCentre) + jitter * sin(jitterBearing)
      let speed = timeline.speed(at: t)
      var course = -1.0
      if speed > 0 {
        let degrees = (entry + turn * angle) * 180 / Double.pi
        course = degrees.truncatingRemainder(dividingBy: 360)
        if course < 0 { course += 360 }
      }
      fixes.append(
        RouteLocation(
          timestamp: session.start.addingTimeInterval(t), latitude: path.latitude + north / metresPerDegree,
          longitude: path.longitude + east / metresPerDegreeEast,
          altitude: baseAltitude + 6 * sin(2 * angle + swellPhase), horizontalAccuracy: accuracy,
          verticalAccuracy: 4 + 6 * fixUnit(4), speed: speed * (1 + 0.02 * (2 * fixUnit(5) - 1)),
          speedAccuracy: speed > 0 ? 0.3 : -1, course: course, courseAccuracy: speed > 0 ? 5 + 10 * fixUnit(6) : -1))
    }
    return fixes
  }
}
