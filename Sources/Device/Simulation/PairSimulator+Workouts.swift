import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// Workouts in seeded runs: on 6 steps in 100 of the workout stream's choosing, the app saves a workout with heart
/// rate samples (and, one time in two, a route) or deletes one it saved. The stream is separate, so every other draw
/// of a seed is the same with or without workouts. ``checkWorkouts()`` then holds the workout family to the sample
/// rules: what was acknowledged is on the phone, a workout is stored with its samples, a route only with its
/// workout, a deletion removes the workout and its routes from both devices.
extension PairSimulator {
  /// The types the app shares and reads besides water.
  static let workoutTypes = [
    WorkoutStore.workoutType, WorkoutStore.routeType, SampleType.lookup(name: "heartRate")!,
  ]

  /// One workout operation, on 6 steps in 100 of the workout stream's choosing.
  mutating func workoutStep() {
    guard workoutDraws.next() % 100 < 6 else { return }
    let kind: DeviceKind = workoutDraws.next() & 1 == 0 ? .phone : .watch
    if workoutDraws.next() % 4 == 0, !savedWorkouts.isEmpty {
      let uuid = savedWorkouts[Int(workoutDraws.next() % UInt64(savedWorkouts.count))]
      if case .reply(.success) = request(device(kind), .delete(bundleID: Self.bundleID, uuids: [uuid])) {
        if deletedWorkouts.insert(uuid).inserted { report.workoutDeletes += 1 }
      }
      return
    }
    let floor = device(kind).state.earliestPermittedSampleDate(wall: wall)
    let length = Double(300 + workoutDraws.next() % 1_500)
    let start = max(
      wall.addingTimeInterval(-length - Double(workoutDraws.next() % 86_400)), floor.addingTimeInterval(1))
    let end = start.addingTimeInterval(length)
    let heartRate = Self.workoutTypes[2]
    let samples = stride(from: 0.0, to: length, by: 60).map { offset in
      SampleInput(
        uuid: workoutDraws.uuid(), type: heartRate,
        value: .quantity(Double(90 + workoutDraws.next() % 90), unit: "count/min"),
        start: start.addingTimeInterval(offset), end: start.addingTimeInterval(offset))
    }
    let route: RouteInput? =
      workoutDraws.next() & 1 == 0
      ? RouteInput(
        uuid: workoutDraws.uuid(),
        locations: stride(from: 0.0, to: length, by: 30).map { offset in
          RouteLocation(
            timestamp: start.addingTimeInterval(offset), latitude: 52 + offset / 111_320, longitude: 4.9, altitude: 0,
            horizontalAccuracy: 5, verticalAccuracy: 5, speed: 3, speedAccuracy: 0.5, course: 0, courseAccuracy: 5)
        }) : nil
    let workout = WorkoutInput(
      uuid: workoutDraws.uuid(), activityType: .running, start: start, end: end, associated: samples.map(\.uuid))
    guard case .reply(.success) = request(device(kind), .save(bundleID: Self.bundleID, samples: samples)) else {
      return fail("the \(kind) refused the samples of a valid workout")
    }
    guard
      case .reply(.success) = request(
        device(kind), .saveWorkout(bundleID: Self.bundleID, workout: workout, route: route))
    else { return fail("the \(kind) refused a valid workout") }
    savedWorkouts.append(workout.uuid)
    report.workouts += 1
    if let route { workoutRoutes[workout.uuid] = route.uuid }
  }

  /// The workout invariants after healing; a broken one is the run's failure.
  mutating func checkWorkouts() {
    let phoneWorkouts = phone.state.workoutStore.workouts
    for uuid in savedWorkouts where !deletedWorkouts.contains(uuid) && phoneWorkouts[uuid] == nil {
      return fail("an acknowledged workout (\(uuid)) is missing on the phone")
    }
    for device in [phone, watch] {
      let store = device.state.workoutStore
      let live = Set(Self.liveSamples(device.state, wall: wall).map(\.uuid))
      let floor = device.state.earliestPermittedSampleDate(wall: wall)
      for uuid in deletedWorkouts {
        if store.workouts[uuid] != nil { return fail("a deleted workout (\(uuid)) is still on the \(device.kind)") }
        if let route = workoutRoutes[uuid], store.routes[route] != nil {
          return fail("the route of a deleted workout (\(uuid)) is still on the \(device.kind)")
        }
      }
      for (uuid, entry) in store.workouts where entry.value.end >= floor {
        // A workout is stored with its samples (those inside the device's window).
        let missing = entry.value.associated.filter { !live.contains($0) && !deleted.contains($0) }
        if !missing.isEmpty, phone.state.workoutStore.workouts[uuid] != nil, device.kind == .watch {
          let phoneLive = Set(Self.liveSamples(phone.state, wall: wall).map(\.uuid))
          if missing.contains(where: { phoneLive.contains($0) && phoneSampleEnd($0) >= floor }) {
            return fail("a workout (\(uuid)) is on the watch without its samples")
          }
        } else if !missing.isEmpty, device.kind == .phone {
          return fail("a workout (\(uuid)) is on the phone without \(missing.count) of its samples")
        }
      }
      for (uuid, entry) in store.routes where store.workouts[entry.value.workout] == nil {
        return fail("a route (\(uuid)) is on the \(device.kind) without its workout")
      }
    }
  }

  /// The end of a sample stored on the phone (distant past when it is not stored).
  private func phoneSampleEnd(_ uuid: UUID) -> Date {
    Self.liveSamples(phone.state, wall: wall).first { $0.uuid == uuid }?.end ?? .distantPast
  }
}
