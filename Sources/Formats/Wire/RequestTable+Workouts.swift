import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The workout family's rows of `RequestTable` (opcodes 90–109, reply tags 80–89; docs/protocol.md).

extension RequestTable {
  /// Saves a workout with its route, all or nothing; answers 1 when they wait for the device to unlock (saved while
  /// locked, behavior.md E31), else 0.
  package static let saveWorkout = RequestDefinition(
    .saveWorkout, Codec.Bundle.self, Codec.NewWorkout.self, Codec.Optional<Codec.NewRoute>.self,
    answer: ReplyTable.count, make: Request.saveWorkout,
    match: { if case .saveWorkout(let b, let w, let r) = $0 { (b, w, r) } else { nil } },
    call: { b, w, r in
      AppCall(
        b,
        [
          LogField("activity", w.activityType.description), LogField("samples", "\(w.associated.count)"),
          LogField("route", r.map { "\($0.locations.count)" } ?? "none"),
        ])
    })
  /// One `save(_:)` of workouts with correlations and samples, all or nothing.
  package static let saveObjects = RequestDefinition(
    .saveObjects, Codec.Bundle.self, Codec.Many<Codec.NewCorrelation>.self, Codec.Many<Codec.NewSample>.self,
    Codec.Many<Codec.NewWorkout>.self, answer: ReplyTable.ok, make: Request.saveObjects,
    match: { if case .saveObjects(let b, let c, let s, let w) = $0 { (b, c, s, w) } else { nil } },
    call: { b, c, s, w in
      AppCall(
        b,
        [
          LogField("correlations", "\(c.count)"), LogField("samples", "\(s.count)"),
          LogField("workouts", "\(w.count)"),
        ])
    })
  /// `add(_:to:)`: new and stored samples associated with a saved workout.
  package static let addSamplesToWorkout = RequestDefinition(
    .addSamplesToWorkout, Codec.Bundle.self, Codec.Identifier.self, Codec.Many<Codec.NewSample>.self,
    Codec.Many<Codec.Identifier>.self, answer: ReplyTable.ok, make: Request.addSamplesToWorkout,
    match: { if case .addSamplesToWorkout(let b, let w, let s, let e) = $0 { (b, w, s, e) } else { nil } },
    call: { b, _, s, e in AppCall(b, [LogField("samples", "\(s.count)"), LogField("existing", "\(e.count)")]) })
  /// A route of a saved workout.
  package static let saveRoute = RequestDefinition(
    .saveRoute, Codec.Bundle.self, Codec.Identifier.self, Codec.NewRoute.self, answer: ReplyTable.ok,
    make: Request.saveRoute,
    match: { if case .saveRoute(let b, let w, let r) = $0 { (b, w, r) } else { nil } },
    call: { b, _, r in AppCall(b, [LogField("locations", "\(r.locations.count)")]) })
  /// A heartbeat series.
  package static let saveHeartbeatSeries = RequestDefinition(
    .saveHeartbeatSeries, Codec.Bundle.self, Codec.NewHeartbeatSeries.self, answer: ReplyTable.ok,
    make: Request.saveHeartbeatSeries,
    match: { if case .saveHeartbeatSeries(let b, let s) = $0 { (b, s) } else { nil } },
    call: { b, s in AppCall(b, [LogField("beats", "\(s.beats.count)")]) })
  /// `HKSampleQuery` of workouts.
  package static let workoutQuery = RequestDefinition(
    .workoutQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.workouts, make: Request.workoutQuery,
    match: { if case .workoutQuery(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, q in AppCall(b, [LogField("type", q.type.name)]) })
  /// Routes (of one workout, or matching a query).
  package static let routeQuery = RequestDefinition(
    .routeQuery, Codec.Bundle.self, Codec.Optional<Codec.Identifier>.self, Codec.Query.self,
    answer: ReplyTable.routes, make: Request.routeQuery,
    match: { if case .routeQuery(let b, let w, let q) = $0 { (b, w, q) } else { nil } },
    call: { b, w, _ in AppCall(b, [LogField("workout", w.map { "\($0)" } ?? "any")]) })
  /// Heartbeat series matching a query.
  package static let heartbeatSeriesQuery = RequestDefinition(
    .heartbeatSeriesQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.heartbeatSeries,
    make: Request.heartbeatSeriesQuery,
    match: { if case .heartbeatSeriesQuery(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, _ in AppCall(b) })
  /// `HKActivitySummaryQuery`.
  package static let activitySummaryQuery = RequestDefinition(
    .activitySummaryQuery, Codec.Bundle.self, Codec.Optional<Codec.Day>.self, Codec.Optional<Codec.Day>.self,
    answer: ReplyTable.activitySummaries, make: Request.activitySummaryQuery,
    match: { if case .activitySummaryQuery(let b, let f, let t) = $0 { (b, f, t) } else { nil } },
    call: { b, f, t in
      AppCall(b, [LogField("from", f.map(\.description) ?? "any"), LogField("to", t.map(\.description) ?? "any")])
    })
  /// `HKAnchoredObjectQuery` of workouts, routes or heartbeat series.
  package static let anchoredWorkoutQuery = RequestDefinition(
    .anchoredWorkoutQuery, Codec.Bundle.self, Codec.SampleTypeCode.self, Codec.U64.self,
    Codec.Optional<Codec.Range>.self, Codec.Count.self, Codec.Optional<Codec.Filter>.self,
    answer: ReplyTable.anchoredWorkouts, make: Request.anchoredWorkoutQuery,
    match: {
      if case .anchoredWorkoutQuery(let b, let t, let a, let r, let l, let f) = $0 { (b, t, a, r, l, f) } else { nil }
    },
    call: { b, t, a, _, _, _ in AppCall(b, [LogField("type", t.name), LogField("anchor", "\(a)")]) })
  /// Stages workouts of an import.
  package static let importWorkouts = RequestDefinition(
    .importWorkouts, Codec.ImportID.self, Codec.Many<Codec.StoredWorkout>.self, answer: ReplyTable.ok,
    make: Request.importWorkouts,
    match: { if case .importWorkouts(let i, let w) = $0 { (i, w) } else { nil } })
  /// Stages routes of an import.
  package static let importRoutes = RequestDefinition(
    .importRoutes, Codec.ImportID.self, Codec.Many<Codec.StoredRoute>.self, answer: ReplyTable.ok,
    make: Request.importRoutes,
    match: { if case .importRoutes(let i, let r) = $0 { (i, r) } else { nil } })
  /// Stages activity summaries of an import.
  package static let importActivitySummaries = RequestDefinition(
    .importActivitySummaries, Codec.ImportID.self, Codec.Many<Codec.Summary>.self, answer: ReplyTable.ok,
    make: Request.importActivitySummaries,
    match: { if case .importActivitySummaries(let i, let s) = $0 { (i, s) } else { nil } })
  /// Every live workout on the device.
  package static let storedWorkouts = RequestDefinition(
    .storedWorkouts, answer: ReplyTable.workouts, make: { Request.storedWorkouts },
    match: { if case .storedWorkouts = $0 { () } else { nil } })
  /// Every live route on the device (of one workout, or all).
  package static let storedRoutes = RequestDefinition(
    .storedRoutes, Codec.Optional<Codec.Identifier>.self, answer: ReplyTable.routes, make: Request.storedRoutes,
    match: { if case .storedRoutes(let w) = $0 { w } else { nil } })
  /// Every activity summary on the device.
  package static let storedActivitySummaries = RequestDefinition(
    .storedActivitySummaries, answer: ReplyTable.activitySummaries, make: { Request.storedActivitySummaries },
    match: { if case .storedActivitySummaries = $0 { () } else { nil } })
  /// A call on a workout session or its live builder (opcode 110, reply tag 90; docs/protocol.md).
  package static let workoutSession = RequestDefinition(
    .workoutSession, Codec.Bundle.self, Codec.Session.self, answer: ReplyTable.sessionStatus,
    make: Request.workoutSession, match: { if case .workoutSession(let b, let c) = $0 { (b, c) } else { nil } },
    call: { b, c in AppCall(b, [LogField("call", c.name)]) })
}
