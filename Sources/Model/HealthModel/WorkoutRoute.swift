import FoundationEssentials

/// One location fix of a route (what `CLLocation` carries): degrees, metres, metres per second, degrees of
/// course, each accuracy in the same unit (negative: invalid, as Core Location reports it).
package struct RouteLocation: Hashable, Sendable {
  /// When the fix was taken.
  package var timestamp: Date
  /// Latitude in degrees.
  package var latitude: Double
  /// Longitude in degrees.
  package var longitude: Double
  /// Altitude in metres.
  package var altitude: Double
  /// Horizontal accuracy in metres.
  package var horizontalAccuracy: Double
  /// Vertical accuracy in metres.
  package var verticalAccuracy: Double
  /// Speed in metres per second.
  package var speed: Double
  /// Speed accuracy in metres per second.
  package var speedAccuracy: Double
  /// Course in degrees from true north.
  package var course: Double
  /// Course accuracy in degrees.
  package var courseAccuracy: Double

  /// Creates a fix.
  package init(
    timestamp: Date, latitude: Double, longitude: Double, altitude: Double = 0, horizontalAccuracy: Double = 5,
    verticalAccuracy: Double = 5, speed: Double = -1, speedAccuracy: Double = -1, course: Double = -1,
    courseAccuracy: Double = -1
  ) {
    self.timestamp = timestamp
    self.latitude = latitude
    self.longitude = longitude
    self.altitude = altitude
    self.horizontalAccuracy = horizontalAccuracy
    self.verticalAccuracy = verticalAccuracy
    self.speed = speed
    self.speedAccuracy = speedAccuracy
    self.course = course
    self.courseAccuracy = courseAccuracy
  }
}

/// A stored `HKWorkoutRoute`: the locations of one workout, which it belongs to for ever (a route never moves).
package struct WorkoutRoute: Hashable, Sendable {
  /// The route's identifier.
  package var uuid: UUID
  /// The workout the route belongs to.
  package var workout: UUID
  /// The first fix's timestamp.
  package var start: Date
  /// The last fix's timestamp.
  package var end: Date
  /// The fixes, in timestamp order.
  package var locations: [RouteLocation]
  /// The route's metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates a route; `locations` must already be in timestamp order and not empty.
  package init(
    uuid: UUID, workout: UUID, locations: [RouteLocation], metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.workout = workout
    self.start = locations.first?.timestamp ?? .distantPast
    self.end = locations.last?.timestamp ?? .distantPast
    self.locations = locations
    self.metadata = metadata
    self.source = source
  }
}

/// One beat of a heartbeat series: seconds since the series' start, and whether beats were missed just before it.
package struct Heartbeat: Hashable, Sendable {
  /// Seconds since the series' start date.
  package var offset: Double
  /// Whether the sensor missed beats before this one (`precededByGap`).
  package var precededByGap: Bool

  /// Creates a beat.
  package init(offset: Double, precededByGap: Bool = false) {
    self.offset = offset
    self.precededByGap = precededByGap
  }
}

/// A stored `HKHeartbeatSeriesSample`.
package struct HeartbeatSeries: Hashable, Sendable {
  /// The series' identifier.
  package var uuid: UUID
  /// Start of the series.
  package var start: Date
  /// End of the series (the last beat, or later).
  package var end: Date
  /// The beats, in offset order.
  package var beats: [Heartbeat]
  /// The series' metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates a series.
  package init(
    uuid: UUID, start: Date, end: Date, beats: [Heartbeat], metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.start = start
    self.end = end
    self.beats = beats
    self.metadata = metadata
    self.source = source
  }
}

/// `HKActivityMoveMode`: the Move ring in active energy (1) or in minutes of movement (2).
package enum ActivityMoveMode: Int, Hashable, Sendable, CaseIterable {
  /// `activeEnergy` (1).
  case activeEnergy = 1
  /// `appleMoveTime` (2).
  case appleMoveTime = 2
}

/// One day's `HKActivitySummary` on one device: the three rings and their goals.
package struct ActivitySummary: Hashable, Sendable {
  /// The local day (Gregorian year, month, day).
  package var day: LocalDay
  /// Move in active energy or move time.
  package var moveMode: ActivityMoveMode
  /// Active energy burned, kilocalories.
  package var activeEnergy: Double
  /// The active energy goal, kilocalories.
  package var activeEnergyGoal: Double
  /// Move time, minutes.
  package var moveTime: Double
  /// The move time goal, minutes.
  package var moveTimeGoal: Double
  /// Exercise time, minutes.
  package var exerciseTime: Double
  /// The exercise goal, minutes.
  package var exerciseTimeGoal: Double
  /// Stand hours.
  package var standHours: Double
  /// The stand goal, hours.
  package var standHoursGoal: Double
  /// Whether the user paused ring tracking that day (iOS 18 / watchOS 11).
  package var isPaused: Bool

  /// Creates a summary.
  package init(
    day: LocalDay, moveMode: ActivityMoveMode = .activeEnergy, activeEnergy: Double = 0,
    activeEnergyGoal: Double = 0, moveTime: Double = 0, moveTimeGoal: Double = 0, exerciseTime: Double = 0,
    exerciseTimeGoal: Double = 0, standHours: Double = 0, standHoursGoal: Double = 0, isPaused: Bool = false
  ) {
    self.day = day
    self.moveMode = moveMode
    self.activeEnergy = activeEnergy
    self.activeEnergyGoal = activeEnergyGoal
    self.moveTime = moveTime
    self.moveTimeGoal = moveTimeGoal
    self.exerciseTime = exerciseTime
    self.exerciseTimeGoal = exerciseTimeGoal
    self.standHours = standHours
    self.standHoursGoal = standHoursGoal
    self.isPaused = isPaused
  }
}

/// A Gregorian calendar day (what `HKActivitySummary.dateComponents(for:)` and the summary predicates name).
package struct LocalDay: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The year.
  package var year: Int
  /// The month, 1–12.
  package var month: Int
  /// The day of the month, 1–31.
  package var day: Int

  /// Creates a day.
  package init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// Orders chronologically.
  package static func < (a: Self, b: Self) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

  /// `2026-12-02`.
  package var description: String {
    func pad(_ n: Int, _ width: Int) -> String {
      let text = String(n)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
  }
}
