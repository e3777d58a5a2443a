import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// An app's workout calls: saving a workout with its samples and route, a route for a named workout, the legacy
/// `add(_:to:)`, deleting a workout. Each call's outcome is the app's last call and goes in the trace.
extension RunContext {
  /// `<device>: <App> saves workout …`: the samples the totals and series make (as a workout builder saves what it
  /// collects), then the workout naming them, with its route (behavior.md E1–E6). A named workout is kept even when
  /// the save fails, so a later step can name a workout that was never stored.
  mutating func saveWorkout(_ device: DeviceKind, _ name: String, _ spec: WorkoutSpec, _ step: Step) throws {
    let bundle = app(name).bundleID
    let plan = plan(spec, on: device)
    if let n = spec.name {
      names[n] = plan.input.uuid
      workouts[n] = SavedWorkout(
        uuid: plan.input.uuid, active: plan.active, metres: Self.distanceMetres(spec),
        sampleTypes: Set(plan.samples.map(\.type)))
    }
    let c = client(device)
    record(
      device, name, "saveWorkout",
      try capture { () throws(ClientError) in
        if !plan.samples.isEmpty { try c.save(bundle, plan.samples) }
        try c.saveWorkout(bundle, plan.input, route: plan.route)
      })
  }

  /// `<device>: <App> saves route … for workout <name>`: a route builder's `finishRoute(with:)` over the workout's
  /// active time (behavior.md E7).
  mutating func saveRoute(_ device: DeviceKind, _ name: String, _ route: RouteSpec, workout: String, _ step: Step)
    throws
  {
    guard let saved = workouts[workout] else {
      throw fail(step, "a workout named \(workout)", "no step saved a workout under that name")
    }
    let input = RouteInput(
      uuid: rng.uuid(), locations: WorkoutPlan.locations(route, over: saved.active, metres: saved.metres))
    let bundle = app(name).bundleID
    let c = client(device)
    record(
      device, name, "finishRoute",
      try capture { () throws(ClientError) in try c.saveRoute(bundle, workout: saved.uuid, input) })
  }

  /// `<device>: <App> adds … to workout <name>`: the legacy `add(_:to:)` of new samples or named ones (behavior.md
  /// E8).
  mutating func addToWorkout(
    _ device: DeviceKind, _ name: String, samples: [SampleSpec], named: [String], workout: String, _ step: Step
  ) throws {
    guard let saved = workouts[workout] else {
      throw fail(step, "a workout named \(workout)", "no step saved a workout under that name")
    }
    var inputs: [SampleInput] = []
    for spec in samples {
      let input = sampleInput(spec, on: device)
      inputs.append(input)
      if let n = spec.name { savedInputs[n] = input }
    }
    var existing: [UUID] = []
    for n in named {
      guard let uuid = names[n] else { throw fail(step, "a sample named \(n)", "no step saved it") }
      existing.append(uuid)
    }
    workouts[workout]?.sampleTypes.formUnion(inputs.map(\.type) + named.compactMap { savedInputs[$0]?.type })
    let bundle = app(name).bundleID
    let c = client(device)
    record(
      device, name, "add(_:to:)",
      try capture { () throws(ClientError) in
        try c.addSamplesToWorkout(bundle, workout: saved.uuid, samples: inputs, existing: existing)
      })
  }

  /// `<device>: <App> deletes workout <name>`: `delete(_:)` of the workout (behavior.md E9).
  mutating func deleteWorkout(_ device: DeviceKind, _ name: String, workout: String, _ step: Step) throws {
    let uuid = workouts[workout]?.uuid ?? names[workout] ?? UUID()
    let bundle = app(name).bundleID
    let c = client(device)
    record(device, name, "delete", try capture { () throws(ClientError) in try c.delete(bundle, [uuid]) })
  }
}
