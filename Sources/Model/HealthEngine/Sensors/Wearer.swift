import FoundationEssentials
import HealthModel

/// A span of virtual time, `[start, end)`; `end == nil` is still open (the session is running, the watch is still
/// off). The sensor model treats an open span as lasting past any query's end.
package struct TimeSpan: Hashable, Sendable {
  /// First instant inside the span.
  package var start: Date
  /// First instant after it, or nil while open.
  package var end: Date?

  /// Creates a span.
  package init(start: Date, end: Date? = nil) {
    self.start = start
    self.end = end
  }

  /// Whether `date` is inside.
  package func contains(_ date: Date) -> Bool { date >= start && (end.map { date < $0 } ?? true) }
}

/// How hard the wearer works: an intensity (a fraction of the heart-rate reserve), or a speed the activity's
/// motion model turns into one (``ActivityMotion``).
///
/// HealthPair model: the named levels are fractions of the heart-rate reserve (Karvonen): rest 0.1, easy 0.6,
/// moderate 0.72, hard 0.85, maximal 1.0.
package enum Effort: Hashable, Sendable {
  /// A fraction of the heart-rate reserve, clamped to 0...1.
  case intensity(Double)
  /// A speed in metres per second.
  case speed(Double)

  /// Standing still, barely above rest (0.1).
  package static let rest = Effort.intensity(0.1)
  /// Conversational (0.6): a 6:00 min/km run for the default wearer.
  package static let easy = Effort.intensity(0.6)
  /// Tempo (0.72).
  package static let moderate = Effort.intensity(0.72)
  /// Threshold and above (0.85).
  package static let hard = Effort.intensity(0.85)
  /// All out (1.0).
  package static let maximal = Effort.intensity(1.0)

  /// A pace in minutes per kilometre (6.0 is 6:00 min/km), as a speed.
  package static func pace(minutesPerKilometre: Double) -> Effort {
    .speed(minutesPerKilometre > 0 ? 1000 / (minutesPerKilometre * 60) : 0)
  }

  /// The effort named `name` (`rest`, `easy`, `moderate`, `hard`, `maximal`), or nil.
  package init?(name: String) {
    switch name {
    case "rest": self = .rest
    case "easy": self = .easy
    case "moderate": self = .moderate
    case "hard": self = .hard
    case "maximal": self = .maximal
    default: return nil
    }
  }
}

/// The wearer's effort over time: piecewise constant, each change in force from its offset (seconds since the
/// session's start) until the next one. Before the first change the effort is ``Effort/easy``.
package struct EffortProfile: Hashable, Sendable {
  /// One change: from `offset` seconds after the session's start, `effort`.
  package struct Change: Hashable, Sendable {
    /// Seconds after the session's start.
    package var offset: Double
    /// The effort from then on.
    package var effort: Effort

    /// Creates a change.
    package init(offset: Double, effort: Effort) {
      self.offset = offset
      self.effort = effort
    }
  }

  /// The changes, offset-ascending, no two at the same offset.
  package private(set) var changes: [Change]

  /// A constant effort.
  package init(_ effort: Effort = .easy) { changes = [Change(offset: 0, effort: effort)] }

  /// Consecutive segments from the session's start (`[(600, .easy), (300, .hard)]`: easy 10 min, then hard 5 min);
  /// the last segment's effort lasts past its duration.
  package init(segments: [(duration: Double, effort: Effort)]) {
    changes = []
    var offset = 0.0
    for segment in segments {
      changes.append(Change(offset: offset, effort: segment.effort))
      offset += max(0, segment.duration)
    }
    if changes.isEmpty { changes = [Change(offset: 0, effort: .easy)] }
  }

  /// The effort from `offset` on: later changes are dropped (a scenario's "the effort becomes hard now"). Samples
  /// before `offset` are unchanged by it.
  package mutating func set(_ effort: Effort, from offset: Double) {
    changes.removeAll { $0.offset >= offset }
    changes.append(Change(offset: max(0, offset), effort: effort))
  }

  /// The effort in force at `offset`.
  package func effort(at offset: Double) -> Effort {
    changes.last { $0.offset <= offset }?.effort ?? changes.first?.effort ?? .easy
  }
}

/// The person wearing the watch, as the sensor model sees them.
///
/// HealthPair model defaults (a fit adult): resting heart rate 60, maximum 190 count/min, body mass 70 kg, basal
/// energy 22.8 kcal per kg per day (0.95 kcal/kg/h, about 1,600 kcal a day at 70 kg), easy effort throughout,
/// always wearing the watch.
package struct Wearer: Hashable, Sendable {
  /// Resting heart rate, count/min (the floor of every heart-rate sample).
  package var restingHeartRate: Double
  /// Maximum heart rate, count/min (the ceiling of every heart-rate sample).
  package var maxHeartRate: Double
  /// Body mass in kilograms (energy scales with it).
  package var bodyMass: Double
  /// Basal energy in kilocalories per day.
  package var basalEnergyPerDay: Double
  /// The effort over the session.
  package var effort: EffortProfile
  /// When the watch is off the wrist. HealthPair model: off the wrist the watch measures nothing of the wearer —
  /// no heart rate, no energy (active energy needs the heart rate, basal energy is attributed to a worn watch), no
  /// steps, distance, strokes or pushes (the watch lies still), no route fixes; the session keeps running and the
  /// wearer keeps moving, so the route resumes where the wearer is when the watch is back on.
  package var offWrist: [TimeSpan]

  /// Creates a wearer.
  package init(
    restingHeartRate: Double = 60, maxHeartRate: Double = 190, bodyMass: Double = 70,
    basalEnergyPerDay: Double? = nil, effort: EffortProfile = EffortProfile(), offWrist: [TimeSpan] = []
  ) {
    self.restingHeartRate = restingHeartRate
    self.maxHeartRate = max(maxHeartRate, restingHeartRate)
    self.bodyMass = bodyMass
    self.basalEnergyPerDay = basalEnergyPerDay ?? 22.8 * bodyMass
    self.effort = effort
    self.offWrist = offWrist
  }

  /// Whether the watch is on the wrist at `date`.
  package func isWorn(at date: Date) -> Bool { !offWrist.contains { $0.contains(date) } }

  /// The wearer's maximal oxygen uptake in mL/kg/min, from the heart rates (Uth–Sørensen: 15.3 × max ÷ rest).
  package var vo2Max: Double { 15.3 * maxHeartRate / max(restingHeartRate, 1) }
}
