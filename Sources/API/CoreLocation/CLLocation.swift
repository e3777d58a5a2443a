import Foundation

// The `CoreLocation` module on Linux: the part of Core Location that HealthKit's workout routes use (`CLLocation`
// and its coordinate), with Apple's names and signatures, so route code (`HKWorkoutRouteBuilder.insertRouteData`,
// `HKWorkoutRouteQuery`) compiles unchanged with `import CoreLocation`. Depend on it only on Linux, as on the
// `HealthKit` product (docs/testing-your-app.md). It has no location manager: HealthPair simulates no GPS.

/// Degrees of latitude or longitude (WGS 84).
public typealias CLLocationDegrees = Double
/// A distance in metres.
public typealias CLLocationDistance = Double
/// A speed in metres per second.
public typealias CLLocationSpeed = Double
/// A speed's accuracy in metres per second.
public typealias CLLocationSpeedAccuracy = Double
/// A direction in degrees from true north.
public typealias CLLocationDirection = Double
/// A direction's accuracy in degrees.
public typealias CLLocationDirectionAccuracy = Double
/// A location's accuracy in metres.
public typealias CLLocationAccuracy = Double

/// A latitude and longitude in degrees (WGS 84).
public struct CLLocationCoordinate2D: Hashable, Sendable {
  /// Degrees north of the equator (negative: south).
  public var latitude: CLLocationDegrees
  /// Degrees east of the prime meridian (negative: west).
  public var longitude: CLLocationDegrees

  /// The coordinate (0, 0).
  public init() {
    latitude = 0
    longitude = 0
  }

  /// A coordinate.
  public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
    self.latitude = latitude
    self.longitude = longitude
  }
}

/// Whether `coordinate` is a valid position: latitude within −90…90 and longitude within −180…180 degrees.
public func CLLocationCoordinate2DIsValid(_ coordinate: CLLocationCoordinate2D) -> Bool {
  (-90...90).contains(coordinate.latitude) && (-180...180).contains(coordinate.longitude)
}

/// Makes a coordinate (`CLLocationCoordinate2DMake`).
public func CLLocationCoordinate2DMake(
  _ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees
) -> CLLocationCoordinate2D {
  CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}

/// The invalid coordinate (−180, −180): `CLLocationCoordinate2DIsValid` is false for it.
public let kCLLocationCoordinate2DInvalid = CLLocationCoordinate2D(latitude: -180, longitude: -180)
/// The best accuracy, for navigation (−2).
public let kCLLocationAccuracyBestForNavigation: CLLocationAccuracy = -2
/// The best accuracy (−1).
public let kCLLocationAccuracyBest: CLLocationAccuracy = -1
/// Within ten metres.
public let kCLLocationAccuracyNearestTenMeters: CLLocationAccuracy = 10
/// Within a hundred metres.
public let kCLLocationAccuracyHundredMeters: CLLocationAccuracy = 100
/// Within a kilometre.
public let kCLLocationAccuracyKilometer: CLLocationAccuracy = 1000
/// Within three kilometres.
public let kCLLocationAccuracyThreeKilometers: CLLocationAccuracy = 3000
/// The accuracy of an approximate (reduced) location (iOS 14).
public let kCLLocationAccuracyReduced: CLLocationAccuracy = 3000
/// No distance filter (−1).
public let kCLDistanceFilterNone: CLLocationDistance = -1

/// One location fix: a coordinate, altitude, speed and course, each with its accuracy, and when it was taken.
///
/// A negative accuracy means the value it qualifies is invalid, as Core Location reports it (`speed` −1 with
/// `speedAccuracy` −1: no speed). Immutable, as Apple's is: `@unchecked Sendable` because an `NSObject` subclass
/// cannot be checked; every stored property is a `let`.
open class CLLocation: NSObject, NSCopying, @unchecked Sendable {
  /// The latitude and longitude.
  public let coordinate: CLLocationCoordinate2D
  /// Metres above mean sea level.
  public let altitude: CLLocationDistance
  /// Metres above the WGS 84 ellipsoid (iOS 15); HealthPair keeps no geoid, so it equals ``altitude``.
  public let ellipsoidalAltitude: CLLocationDistance
  /// The radius of uncertainty of the coordinate, metres (negative: invalid coordinate).
  public let horizontalAccuracy: CLLocationAccuracy
  /// The uncertainty of the altitude, metres (negative: invalid altitude).
  public let verticalAccuracy: CLLocationAccuracy
  /// Metres per second (negative: invalid).
  public let speed: CLLocationSpeed
  /// The uncertainty of the speed (negative: invalid), iOS 10.
  public let speedAccuracy: CLLocationSpeedAccuracy
  /// Degrees from true north, 0–359.9 (negative: invalid).
  public let course: CLLocationDirection
  /// The uncertainty of the course (negative: invalid), iOS 13.4.
  public let courseAccuracy: CLLocationDirectionAccuracy
  /// When the fix was taken.
  public let timestamp: Date
  /// The logical floor of the building the fix was taken in (iOS 8), nil when unknown. Apple's initializers take no
  /// floor and HealthKit's route data carries none, so every HealthPair location has nil.
  public var floor: CLFloor? { nil }

  /// A fix at `latitude`, `longitude` now, with altitude 0 and no valid altitude, speed or course (HealthPair
  /// model: horizontal accuracy 0, every other accuracy −1).
  public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
    self.init(
      coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0,
      horizontalAccuracy: 0, verticalAccuracy: -1, course: -1, courseAccuracy: -1, speed: -1, speedAccuracy: -1,
      timestamp: Date())
  }

  /// A fix without speed or course (both −1, invalid).
  public convenience init(
    coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
    verticalAccuracy vAccuracy: CLLocationAccuracy, timestamp: Date
  ) {
    self.init(
      coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
      course: -1, courseAccuracy: -1, speed: -1, speedAccuracy: -1, timestamp: timestamp)
  }

  /// A fix with speed and course, their accuracies unknown (−1).
  public convenience init(
    coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
    verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed,
    timestamp: Date
  ) {
    self.init(
      coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
      course: course, courseAccuracy: -1, speed: speed, speedAccuracy: -1, timestamp: timestamp)
  }

  /// A fix with every value and accuracy (iOS 13.4).
  public init(
    coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
    verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection,
    courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy,
    timestamp: Date
  ) {
    self.coordinate = coordinate
    self.altitude = altitude
    self.ellipsoidalAltitude = altitude
    self.horizontalAccuracy = hAccuracy
    self.verticalAccuracy = vAccuracy
    self.course = course
    self.courseAccuracy = courseAccuracy
    self.speed = speed
    self.speedAccuracy = speedAccuracy
    self.timestamp = timestamp
    super.init()
  }

  /// The mean Earth radius ``distance(from:)`` uses: 6 371 008.8 m, the IUGG mean radius R₁ (HealthPair model;
  /// Apple does not document its model).
  public static let earthRadius: CLLocationDistance = 6_371_008.8

  /// The great-circle distance in metres between the two coordinates (haversine on a sphere of
  /// ``earthRadius``); altitude is ignored, as Apple documents ("does not take altitude into account").
  public func distance(from location: CLLocation) -> CLLocationDistance {
    let radians = Double.pi / 180
    let phi1 = coordinate.latitude * radians
    let phi2 = location.coordinate.latitude * radians
    let dPhi = phi2 - phi1
    let dLambda = (location.coordinate.longitude - coordinate.longitude) * radians
    let a = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
    return 2 * Self.earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
  }

  /// The fix itself: it is immutable.
  public func copy(with zone: NSZone? = nil) -> Any { self }

  /// Equal when every value is.
  open override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? CLLocation else { return false }
    return coordinate == other.coordinate && altitude == other.altitude
      && horizontalAccuracy == other.horizontalAccuracy && verticalAccuracy == other.verticalAccuracy
      && speed == other.speed && speedAccuracy == other.speedAccuracy && course == other.course
      && courseAccuracy == other.courseAccuracy && timestamp == other.timestamp
  }

  /// The hash of the coordinate and timestamp.
  open override var hash: Int {
    var hasher = Hasher()
    hasher.combine(coordinate)
    hasher.combine(timestamp)
    return hasher.finalize()
  }

  /// As Core Location prints a fix: `<+37.33,-122.03> +/- 5.00m (speed 3.10 mps / course 90.00) @ <date>`.
  open override var description: String {
    func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
    let sign = { (v: Double) in v >= 0 ? "+" : "" }
    return "<\(sign(coordinate.latitude))\(fixed(coordinate.latitude, 8)),"
      + "\(sign(coordinate.longitude))\(fixed(coordinate.longitude, 8))> +/- \(fixed(horizontalAccuracy, 2))m "
      + "(speed \(fixed(speed, 2)) mps / course \(fixed(course, 2))) @ \(timestamp)"
  }
}

/// The floor of a building a location was taken on (iOS 8): `level` 0 is the ground floor, positive above it,
/// negative below. Apps do not create floors (Apple declares no initializer), so ``CLLocation/floor`` is nil here.
public final class CLFloor: NSObject, NSCopying, @unchecked Sendable {
  /// The logical floor: 0 the ground floor, 1 the one above it, -1 the one below.
  public let level: Int

  /// A floor at `level`; only HealthPair makes floors.
  package init(level: Int) {
    self.level = level
  }

  /// The floor itself: it is immutable.
  public func copy(with zone: NSZone? = nil) -> Any { self }
}
