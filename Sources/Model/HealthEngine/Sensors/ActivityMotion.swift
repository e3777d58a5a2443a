import FoundationEssentials
import HealthModel

/// How an activity moves the wearer: the speed an effort gives, the distance and count types it records, the
/// cadence (steps, strokes or pushes per second) at a speed, and its active energy.
///
/// HealthPair model (every constant below). Speed and intensity are linear around a reference: at intensity
/// `referenceIntensity` the wearer moves at `referenceSpeed`, and each m/s more adds `intensityPerSpeed`; at
/// intensity 0.2 or less the wearer stands still. Active energy is ACSM's net oxygen cost for running
/// (0.2 mL/kg/min per m/min) and walking (0.1; hiking 1.3 times walking) and, for every other activity or when
/// standing, the intensity's share of the wearer's oxygen-uptake reserve (%HRR ≈ %VO2R, Swain); 5 kcal per litre
/// of oxygen.
package struct ActivityMotion: Hashable, Sendable {
  /// The family an activity type moves like.
  package enum Kind: Hashable, Sendable {
    /// `running`.
    case running
    /// `walking`.
    case walking
    /// `hiking`.
    case hiking
    /// `cycling`, `handCycling`.
    case cycling
    /// `swimming`.
    case swimming
    /// `wheelchairWalkPace`, `wheelchairRunPace`.
    case wheelchair
    /// Everything else: no distance, energy from intensity.
    case other
  }

  /// The family.
  package var kind: Kind
  /// Speed at ``referenceIntensity``, m/s (running 2.78 = 6:00 min/km; walking 1.4; hiking 1.2; cycling 7.0;
  /// swimming 0.8 = 2:05 per 100 m; wheelchair 1.8; other 0).
  package var referenceSpeed: Double
  /// The intensity of ``referenceSpeed`` (0.6, `easy`; walking and hiking 0.35; wheelchair 0.5).
  package var referenceIntensity: Double
  /// Intensity added per m/s above the reference (running 0.22; walking and hiking 0.4; cycling 0.06; swimming
  /// 0.5; wheelchair 0.3).
  package var intensityPerSpeed: Double

  /// The motion of `activityType`.
  package init(_ activityType: WorkoutActivityType) {
    switch activityType.name {
    case "running": self.init(.running, speed: 2.78, intensity: 0.6, slope: 0.22)
    case "walking": self.init(.walking, speed: 1.4, intensity: 0.35, slope: 0.4)
    case "hiking": self.init(.hiking, speed: 1.2, intensity: 0.35, slope: 0.4)
    case "cycling", "handCycling": self.init(.cycling, speed: 7.0, intensity: 0.6, slope: 0.06)
    case "swimming": self.init(.swimming, speed: 0.8, intensity: 0.6, slope: 0.5)
    case "wheelchairWalkPace", "wheelchairRunPace": self.init(.wheelchair, speed: 1.8, intensity: 0.5, slope: 0.3)
    default: self.init(.other, speed: 0, intensity: 0.6, slope: 1)
    }
  }

  private init(_ kind: Kind, speed: Double, intensity: Double, slope: Double) {
    self.kind = kind
    referenceSpeed = speed
    referenceIntensity = intensity
    intensityPerSpeed = slope
  }

  /// The intensity (fraction of the heart-rate reserve, 0...1) of `effort`.
  package func intensity(of effort: Effort) -> Double {
    switch effort {
    case .intensity(let value): return min(1, max(0, value))
    case .speed(let speed):
      guard kind != .other else { return referenceIntensity }
      guard speed > 0 else { return Effort.standingIntensity }
      return min(1, max(0, referenceIntensity + (speed - referenceSpeed) * intensityPerSpeed))
    }
  }

  /// The speed in m/s of `effort` (0 for ``Kind/other`` and at intensity 0.2 or less).
  package func speed(of effort: Effort) -> Double {
    guard kind != .other else { return 0 }
    switch effort {
    case .speed(let speed): return max(0, speed)
    case .intensity(let value):
      guard value > Effort.standingIntensity else { return 0 }
      return max(0, referenceSpeed + (min(1, value) - referenceIntensity) / intensityPerSpeed)
    }
  }

  /// The distance type the activity records (nil for ``Kind/other``).
  package var distanceType: SampleType? {
    switch kind {
    case .running, .walking, .hiking: SampleType.lookup(name: "distanceWalkingRunning")
    case .cycling: SampleType.lookup(name: "distanceCycling")
    case .swimming: SampleType.lookup(name: "distanceSwimming")
    case .wheelchair: SampleType.lookup(name: "distanceWheelchair")
    case .other: nil
    }
  }

  /// The count type the activity records: steps, strokes or pushes (nil for cycling and other).
  package var countType: SampleType? {
    switch kind {
    case .running, .walking, .hiking: SampleType.lookup(name: "stepCount")
    case .swimming: SampleType.lookup(name: "swimmingStrokeCount")
    case .wheelchair: SampleType.lookup(name: "pushCount")
    case .cycling, .other: nil
    }
  }

  /// Steps, strokes or pushes per second at `speed` (0 standing). Running 150 + 10·v steps/min (178 at
  /// 6:00 min/km); walking and hiking 90 + 18·v (115 at 1.4 m/s); a stroke per 1.6 m; a push per 1.8 m.
  package func cadence(at speed: Double) -> Double {
    guard speed > 0 else { return 0 }
    switch kind {
    case .running: return (150 + 10 * speed) / 60
    case .walking, .hiking: return (90 + 18 * speed) / 60
    case .swimming: return speed / 1.6
    case .wheelchair: return speed / 1.8
    case .cycling, .other: return 0
    }
  }

  /// Active energy in kcal per second at `speed` and `intensity` for `wearer`.
  package func activeEnergyRate(speed: Double, intensity: Double, wearer: Wearer) -> Double {
    let metresPerMinute = speed * 60
    let netOxygen: Double  // mL/kg/min above rest
    switch kind {
    case .running where speed > 0: netOxygen = 0.2 * metresPerMinute
    case .walking where speed > 0: netOxygen = 0.1 * metresPerMinute
    case .hiking where speed > 0: netOxygen = 0.13 * metresPerMinute
    default: netOxygen = intensity * max(0, wearer.vo2Max - 3.5)
    }
    return netOxygen * wearer.bodyMass / 1000 * 5 / 60
  }

  /// Whether a workout of `configuration` records a route: outdoor runs, walks, hikes, rides and wheelchair
  /// workouts, and open-water swims (workouts.md §6.1's table; open water inferred there).
  package static func recordsRoute(_ configuration: WorkoutConfiguration) -> Bool {
    let motion = ActivityMotion(configuration.activityType)
    switch motion.kind {
    case .swimming: return configuration.swimmingLocation == .openWater
    case .other: return false
    case .running, .walking, .hiking, .cycling, .wheelchair: return configuration.location == .outdoor
    }
  }
}

extension Effort {
  /// At or below this intensity the wearer stands still (HealthPair model: 0.2).
  package static let standingIntensity = 0.2
}
