import FoundationEssentials
import HealthCodec
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Wire

/// The workout family's encodings: every value, request and reply round-trips (the exact bytes are pinned by
/// `PinnedFrameTests`), and a stored value that breaks its invariants is refused at its offset.
@Suite("Workout codecs")
struct WorkoutCodecTests {
  typealias E = WorkoutExamples

  /// `write` then `read` over the whole buffer (nothing left over).
  static func roundTrip<T>(
    _ value: T, _ write: (inout BinaryWriter, T) -> Void, _ read: (inout BinaryReader) throws -> T
  ) throws -> T {
    var w = BinaryWriter()
    write(&w, value)
    return try w.bytes.withUnsafeBytes { buffer in
      var r = BinaryReader(buffer)
      let decoded = try read(&r)
      try r.expectEnd("value")
      return decoded
    }
  }

  /// Reads `bytes` with `read`, expecting a decode error; returns it (nil when the bytes were read).
  static func refusal<T>(_ bytes: [UInt8], _ read: (inout BinaryReader) throws -> T) -> DecodeError? {
    bytes.withUnsafeBytes { buffer in
      var r = BinaryReader(buffer)
      do {
        _ = try read(&r)
        return nil
      } catch { return error as? DecodeError }
    }
  }

  @Test func everyWorkoutValueRoundTrips() throws {
    #expect(try Self.roundTrip(E.input, { $0.workoutInput($1) }, { try $0.workoutInput() }) == E.input)
    #expect(try Self.roundTrip(E.workout, { $0.workout($1) }, { try $0.workout() }) == E.workout)
    #expect(try Self.roundTrip(E.routeInput, { $0.routeInput($1) }, { try $0.routeInput() }) == E.routeInput)
    #expect(try Self.roundTrip(E.route, { $0.workoutRoute($1) }, { try $0.workoutRoute() }) == E.route)
    #expect(
      try Self.roundTrip(E.seriesInput, { $0.heartbeatSeriesInput($1) }, { try $0.heartbeatSeriesInput() })
        == E.seriesInput)
    #expect(try Self.roundTrip(E.series, { $0.heartbeatSeries($1) }, { try $0.heartbeatSeries() }) == E.series)
    #expect(try Self.roundTrip(E.summary, { $0.activitySummary($1) }, { try $0.activitySummary() }) == E.summary)
    #expect(try Self.roundTrip(E.day, { $0.localDay($1) }, { try $0.localDay() }) == E.day)
    // An unknown activity type survives (a newer OS's raw value), as the model keeps it.
    var unknown = E.workout
    unknown.activityType = WorkoutActivityType(rawValue: 4_000)
    #expect(try Self.roundTrip(unknown, { $0.workout($1) }, { try $0.workout() }).activityType.rawValue == 4_000)
  }

  @Test func theSmallestValuesTakeTheBytesTheirArrayBoundsAssume() {
    func size(_ write: (inout BinaryWriter) -> Void) -> Int {
      var w = BinaryWriter()
      write(&w)
      return w.bytes.count
    }
    let bare = SampleSource(bundleID: "", device: .phone)
    #expect(
      size { $0.workout(Workout(uuid: E.u1, activityType: .other, start: t0, end: t0, duration: 0, source: bare)) }
        == WorkoutCodingSize.workout)
    #expect(
      size { $0.workoutInput(WorkoutInput(uuid: E.u1, activityType: .other, start: t0, end: t0)) }
        == WorkoutCodingSize.workoutInput)
    #expect(
      size { $0.workoutRoute(WorkoutRoute(uuid: E.u1, workout: E.u2, locations: [], source: bare)) }
        == WorkoutCodingSize.route)
    #expect(size { $0.routeLocation(E.locations[0]) } == WorkoutCodingSize.location)
    #expect(size { $0.activitySummary(E.summary) } == WorkoutCodingSize.activitySummary)
    #expect(size { $0.routeInput(RouteInput(uuid: E.u1, locations: [])) } == WorkoutCodingSize.routeInput)
  }

  @Test func everyWorkoutRequestAndReplyRoundTripsThroughAFrame() throws {
    for request in E.requests {
      #expect(try Frame.decode(Frame.request(id: 9, request).encoded()) == .request(id: 9, request), "\(request.name)")
    }
    for reply in E.replies {
      #expect(try Frame.decode(Frame.response(id: 9, .success(reply)).encoded()) == .response(id: 9, .success(reply)))
    }
  }

  /// Every session call, session and builder callback survives a frame, and a bad tag is a located error.
  @Test func everySessionCallAndCallbackRoundTripsThroughAFrame() throws {
    for call in E.sessionCalls {
      let request = Request.workoutSession(bundleID: "a", call: call)
      #expect(try Frame.decode(Frame.request(id: 3, request).encoded()) == .request(id: 3, request), "\(call.name)")
    }
    for event in E.sessionEvents {
      #expect(try Frame.decode(Frame.event(event).encoded()) == .event(event))
    }
    var bytes = Frame.request(id: 3, .workoutSession(bundleID: "a", call: .status(E.sessionID))).encoded()
    let tagAt = bytes.count - 21  // the call's tag, before its session-id (16 + 4 bytes)
    bytes[tagAt] = 77
    #expect(throws: DecodeError.self) { try Frame.decode(bytes) }
  }

  @Test func theWorkoutFilterCasesTravelInAWorkoutQuery() throws {
    let filters: [SampleFilter] = [
      .workoutActivityType([37, 52, 3_000]), .workoutDuration(.greaterThanOrEqualTo, 1_800),
      .workoutStatistic(E.energy, .sum, .greaterThan, 300), .workoutStatistic(E.heartRate, .maximum, .lessThan, 3),
      .workoutActivity(.and([.workoutActivityType([46]), .workoutDuration(.lessThan, 600)])),
      .associatedWith(E.u1), .not(.workoutActivityType([])),
    ]
    for filter in filters {
      let request = Request.workoutQuery(bundleID: "a", query: SampleQuery(type: E.workoutType, filter: filter))
      #expect(try Frame.decode(Frame.request(id: 1, request).encoded()) == .request(id: 1, request), "\(filter)")
    }
  }

  @Test func aStoredWorkoutWithANonFiniteNumberIsRefusedWhereItSits() {
    var bad = E.workout
    bad.duration = .nan
    var w = BinaryWriter()
    w.workout(bad)
    let error = Self.refusal(w.bytes) { r in try r.workout() }
    // uuid 16, activity type 8, two dates 16: the duration's f64 starts at 40.
    #expect(error?.offset == 40)
    #expect(error?.message.contains("duration") == true)
    // An app's input is read as sent: the engine's save refuses it with HealthKit's error.
    var input = E.input
    input.duration = .infinity
    #expect(throws: Never.self) { try Self.roundTrip(input, { $0.workoutInput($1) }, { try $0.workoutInput() }) }
  }

  @Test func aStoredWorkoutEndingBeforeItStartsOrNamingASampleTwiceIsRefused() {
    var backwards = E.workout
    backwards.end = t0.addingTimeInterval(-1)
    var w = BinaryWriter()
    w.workout(backwards)
    #expect(Self.refusal(w.bytes) { r in try r.workout() } != nil)
    var twice = E.workout
    twice.associated = [E.u2, E.u2]
    var t = BinaryWriter()
    t.workout(twice)
    #expect(Self.refusal(t.bytes) { r in try r.workout() } != nil)
  }

  @Test func aStoredRouteOutOfTimestampOrderIsRefused() {
    var route = E.route
    route.locations.reverse()
    var w = BinaryWriter()
    w.workoutRoute(route)
    let error = Self.refusal(w.bytes) { r in try r.workoutRoute() }
    #expect(error != nil)
  }

  @Test func unknownEnumerationsAndImpossibleDaysAreRefusedAtTheirByte() {
    var w = BinaryWriter()
    w.workout(E.workout)
    // uuid 16, type 8, dates 16, duration 8, the events' count 4: the first event's type byte is at 52.
    w.bytes[52] = 99
    let event = Self.refusal(w.bytes) { r in try r.workout() }
    #expect(event?.message.contains("unknown workout event type 99") == true)
    var s = BinaryWriter()
    s.activitySummary(E.summary)
    // year 8, month, day: the move mode is at 10.
    s.bytes[10] = 3
    #expect(Self.refusal(s.bytes) { r in try r.activitySummary() }?.message.contains("move mode") == true)
    for (year, month, day) in [(2026, 2, 29), (2026, 13, 1), (2026, 4, 31), (2026, 1, 0)] {
      var d = BinaryWriter()
      d.localDay(LocalDay(year: year, month: month, day: day))
      #expect(Self.refusal(d.bytes) { r in try r.localDay() } != nil, "\(year)-\(month)-\(day)")
    }
    var leap = BinaryWriter()
    leap.localDay(LocalDay(year: 2024, month: 2, day: 29))
    #expect(Self.refusal(leap.bytes) { r in try r.localDay() } == nil)
  }

  @Test func aRoutesClaimedLocationCountTheBytesCannotHoldIsRefusedBeforeReading() {
    var w = BinaryWriter()
    w.uuid(E.u1)
    w.uuid(E.u2)
    w.u32(1_000)
    let error = Self.refusal(w.bytes) { r in try r.workoutRoute() }
    #expect(error?.offset == 32)
  }

  @Test func theWorkoutRequestsLogWhatTheyAsked() {
    let save = Request.saveWorkout(bundleID: "a", workout: E.input, route: E.routeInput)
    #expect(
      save.appCall
        == AppCall("a", [LogField("activity", "running"), LogField("samples", "2"), LogField("route", "2")]))
    #expect(Request.storedWorkouts.appCall == nil)
    #expect(Request.importWorkouts(importID: 1, workouts: []).appCall == nil)
    #expect(Reply.routes([E.route]).logFields == [LogField("results", "1"), LogField("locations", "2")])
  }
}
