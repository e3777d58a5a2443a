import CoreLocation
import Foundation
import Testing

@Suite("CoreLocation on Linux: CLLocation and its coordinate")
struct CoreLocationTests {
  @Test func theInitializersKeepEveryValueAndMarkWhatTheyOmitInvalid() {
    let at = Date(timeIntervalSince1970: 1_767_600_000)
    let coordinate = CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945)
    let plain = CLLocation(latitude: 48.8584, longitude: 2.2945)
    #expect(plain.coordinate == coordinate)
    #expect(plain.speed < 0 && plain.course < 0 && plain.verticalAccuracy < 0)
    let fix = CLLocation(
      coordinate: coordinate, altitude: 35, horizontalAccuracy: 4, verticalAccuracy: 6, timestamp: at)
    #expect(fix.altitude == 35 && fix.horizontalAccuracy == 4 && fix.verticalAccuracy == 6 && fix.timestamp == at)
    #expect(fix.speed == -1 && fix.speedAccuracy == -1 && fix.course == -1 && fix.courseAccuracy == -1)
    let moving = CLLocation(
      coordinate: coordinate, altitude: 35, horizontalAccuracy: 4, verticalAccuracy: 6, course: 90, speed: 3.2,
      timestamp: at)
    #expect(moving.course == 90 && moving.speed == 3.2 && moving.speedAccuracy == -1)
    let full = CLLocation(
      coordinate: coordinate, altitude: 35, horizontalAccuracy: 4, verticalAccuracy: 6, course: 90,
      courseAccuracy: 5, speed: 3.2, speedAccuracy: 0.4, timestamp: at)
    #expect(full.courseAccuracy == 5 && full.speedAccuracy == 0.4)
    #expect(full.isEqual(full.copy()))
    #expect(!full.isEqual(moving))
  }

  @Test func noLocationHasAFloorAsApplesInitializersTakeNone() {
    let at = Date(timeIntervalSince1970: 1_767_600_000)
    let coordinate = CLLocationCoordinate2D(latitude: 48.8584, longitude: 2.2945)
    let fixes = [
      CLLocation(latitude: 48.8584, longitude: 2.2945),
      CLLocation(coordinate: coordinate, altitude: 35, horizontalAccuracy: 4, verticalAccuracy: 6, timestamp: at),
      CLLocation(
        coordinate: coordinate, altitude: 35, horizontalAccuracy: 4, verticalAccuracy: 6, course: 90,
        courseAccuracy: 5, speed: 3.2, speedAccuracy: 0.4, timestamp: at),
    ]
    #expect(fixes.allSatisfy { $0.floor == nil })
    // Published route code reads `location.floor?.level`.
    let levels: [Int] = fixes.compactMap { $0.floor?.level }
    #expect(levels.isEmpty)
    let basement = CLFloor(level: -1)
    #expect(basement.level == -1 && (basement.copy() as? CLFloor) === basement)
  }

  @Test func distanceIsTheGreatCircleOnTheMeanEarthRadius() {
    let paris = CLLocation(latitude: 48.8566, longitude: 2.3522)
    let london = CLLocation(latitude: 51.5074, longitude: -0.1278)
    // 343.9 km on a sphere of 6 371 008.8 m (haversine).
    #expect(abs(paris.distance(from: london) - 343_900) < 1_000)
    #expect(abs(paris.distance(from: london) - london.distance(from: paris)) < 1e-6)
    #expect(paris.distance(from: paris) == 0)
    // One degree of latitude on that sphere: 2πR/360.
    let a = CLLocation(latitude: 0, longitude: 0)
    let b = CLLocation(latitude: 1, longitude: 0)
    #expect(abs(a.distance(from: b) - 2 * Double.pi * CLLocation.earthRadius / 360) < 1e-6)
  }

  @Test func coordinateValidityFollowsTheLatitudeAndLongitudeRanges() {
    #expect(CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: 90, longitude: -180)))
    #expect(!CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: 90.5, longitude: 0)))
    #expect(!CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: 0, longitude: 181)))
    #expect(!CLLocationCoordinate2DIsValid(kCLLocationCoordinate2DInvalid))
    #expect(CLLocationCoordinate2DMake(1, 2) == CLLocationCoordinate2D(latitude: 1, longitude: 2))
    #expect(kCLLocationAccuracyBest == -1 && kCLLocationAccuracyBestForNavigation == -2)
  }
}
