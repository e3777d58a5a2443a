import FoundationEssentials
import HealthEngine
import HealthModel
import ScenarioLanguage

extension WorkoutPlan {
  /// The statistics of one activity from `start` to `end`, over the workout's associated `samples` (canonical
  /// units), as a builder's `HKWorkoutActivity.statistics(for:)` reports the samples added during it. HealthPair
  /// model (Apple does not say how a sample straddling an activity's edge counts): a cumulative sample counts its
  /// share by overlap (an instant one when it lies in [start, end)); a discrete one counts when its start lies in
  /// [start, end). A type with no sample in the activity has no statistic.
  static func activityStatistics(_ samples: [SampleInput], start: Date, end: Date) -> [WorkoutStatistic] {
    var byType: [SampleType: [SampleInput]] = [:]
    for sample in samples { byType[sample.type, default: []].append(sample) }
    var statistics: [WorkoutStatistic] = []
    for (type, list) in byType.sorted(by: { $0.key.code < $1.key.code }) {
      func value(_ s: SampleInput) -> Double {
        if case .quantity(let v, _) = s.value { return v }
        return 0
      }
      func inside(_ t: Date) -> Bool { t >= start && t < end }
      if type.descriptor.aggregation == .cumulative {
        var sum = 0.0
        var any = false
        for s in list {
          let span = s.end.timeIntervalSince(s.start)
          if span <= 0 {
            if inside(s.start) {
              sum += value(s)
              any = true
            }
            continue
          }
          let overlap = min(s.end, end).timeIntervalSince(max(s.start, start))
          guard overlap > 0 else { continue }
          sum += value(s) * overlap / span
          any = true
        }
        if any { statistics.append(WorkoutStatistic(type: type, start: start, end: end, sum: sum)) }
      } else {
        let within = list.filter { inside($0.start) }.sorted { $0.start < $1.start }
        guard !within.isEmpty else { continue }
        let values = within.map(value)
        statistics.append(
          WorkoutStatistic(
            type: type, start: start, end: end, minimum: values.min(), maximum: values.max(),
            average: values.reduce(0, +) / Double(values.count), mostRecent: values.last))
      }
    }
    return statistics
  }
}

extension RunContext {
  /// The `HKWorkoutActivity`s `spec` lists, each with the statistics of the plan's samples inside it (none listed:
  /// none, and HealthKit adds one spanning the workout).
  mutating func planActivities(_ spec: WorkoutSpec, samples: [SampleInput], on device: DeviceKind)
    -> [WorkoutActivity]
  {
    spec.activities.map { leg in
      let start = resolve(leg.start, on: device)
      let end = resolved(leg.end, after: start, on: device)
      return WorkoutActivity(
        uuid: rng.uuid(), configuration: WorkoutConfiguration(activityType: leg.activity), start: start, end: end,
        statistics: WorkoutPlan.activityStatistics(samples, start: start, end: end))
    }
  }
}
