import FoundationEssentials
import HealthEngine
import HealthModel

/// `<device>: <App> saves workout …`, `saves route … for workout <name>`, `adds … to workout <name>`, `deletes
/// workout <name>`: an app's workout calls (docs/scenario-language.md, "The app"; behavior.md section E).
extension ParseState {
  /// The clauses of `saves workout …` after its dates, as a message lists them.
  static let workoutClauses = [
    "paused", "activity", "energy", "distance", "heart", "series", "route", "indoor", "outdoor", "with", "uuid", "as",
  ]

  /// `saves workout <activity> from <time> to <time>|for <duration> [clauses]`.
  mutating func parseSaveWorkout(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    let activity = try c.activityType()
    try c.expect("from", what: "'from <time>' and the workout's end")
    let start = try c.time()
    let end: SampleSpec.Either
    if c.take("for") {
      end = .duration(try c.duration())
    } else {
      try c.expect("to", what: "'to <time>' or 'for <duration>'")
      end = .time(try c.time())
    }
    var spec = WorkoutSpec(activity: activity, start: start, end: end)
    while let t = c.peek {
      if c.take("paused") {
        _ = c.take("from")
        let pauseStart = try c.time()
        if c.take("for") {
          spec.pauses.append(WorkoutPauseSpec(start: pauseStart, end: .duration(try c.duration())))
        } else {
          try c.expect("to", what: "'to <time>' or 'for <duration>' (the resume)")
          spec.pauses.append(WorkoutPauseSpec(start: pauseStart, end: .time(try c.time())))
        }
      } else if c.take("activity") {
        let type = try c.activityType()
        try c.expect("from", what: "'from <time>', the activity's start")
        let legStart = try c.time()
        if c.take("for") {
          spec.activities.append(WorkoutLegSpec(activity: type, start: legStart, end: .duration(try c.duration())))
        } else {
          try c.expect("to", what: "'to <time>' or 'for <duration>' (the activity's end)")
          spec.activities.append(WorkoutLegSpec(activity: type, start: legStart, end: .time(try c.time())))
        }
      } else if c.take("energy") {
        spec.totals.append(try workoutTotal(&c, type: SampleType.lookup(name: "activeEnergyBurned")!))
      } else if c.take("distance") {
        spec.totals.append(try workoutTotal(&c, type: Self.distanceType(for: activity)))
      } else if c.take("heart", "rate") {
        spec.series.append(try workoutSeries(&c, type: SampleType.lookup(name: "heartRate")!))
      } else if c.take("series") {
        let typeToken = c.peek
        let type = try c.type()
        guard type.descriptor.isQuantity else {
          throw c.error(.expected("a quantity type for a series", found: type.name), at: typeToken)
        }
        spec.series.append(try workoutSeries(&c, type: type))
      } else if c.take("route") {
        if spec.route != nil { throw c.error(.expected("one 'route' clause", found: "route"), at: t) }
        spec.route = try routeSpec(&c)
      } else if c.take("indoor") {
        spec.location = .indoor
      } else if c.take("outdoor") {
        spec.location = .outdoor
      } else if c.take("with") {
        spec.metadata.merge(try metadataPairs(&c)) { $1 }
      } else if c.take("uuid") {
        let u = try c.word("a UUID such as 6F9619FF-8B86-4011-B42D-00C04FC964FF")
        guard let uuid = UUID(uuidString: u.text) else { throw c.error(.invalidUUID(u.text), at: u) }
        spec.uuid = uuid
      } else if c.take("as") {
        spec.name = try defineWorkoutName(&c)
      } else {
        let clauses = Self.workoutClauses
        if let near = suggest(t.text, from: clauses), near != t.text {
          throw c.error(.unknownStatus(t.text, valid: clauses, suggestion: near), at: t)
        }
        throw c.error(.expected(choices(clauses), found: t.text), at: t)
      }
    }
    return .saveWorkout(device, app: app.name, spec)
  }

  /// `saves route [<n> Hz | every <duration>] from <latitude>,<longitude> [at <n> m/s] for workout <name>`.
  func parseSaveRoute(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    let route = try routeSpec(&c)
    try c.expect("for", "workout", what: "'for workout <name>'")
    let workout = try c.workoutName()
    try c.finish()
    return .saveRoute(device, app: app.name, route, workout: workout)
  }

  /// `adds <sample> [plus <sample>…] to workout <name>` or `adds <name> [and <name>…] to workout <name>`: the
  /// samples are written as in `saves`, or named (saved earlier with `as`).
  mutating func parseAddToWorkout(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    let tokens = c.line.tokens
    guard let to = tokens.indices.last(where: { $0 >= c.index && tokens[$0].keyword == "to" }),
      to + 1 < tokens.count, tokens[to + 1].keyword == "workout", to > c.index
    else { throw c.error(.expected("the samples, then 'to workout <name>'", found: c.peek?.text)) }
    // The samples are read from the words before "to workout", as `saves` reads them.
    var head = c.line
    head.tokens = Array(tokens[..<to])
    var samples = Cursor(head, c.state)
    samples.index = c.index
    var specs: [SampleSpec] = []
    var named: [String] = []
    if let first = samples.peek, sampleNames.contains(first.text), !workoutNames.contains(first.text) {
      repeat {
        if samples.take("and") { continue }
        let name = try samples.sampleName(defined: false)
        if workoutNames.contains(name) {
          throw samples.error(.expected("a sample's name", found: name), at: tokens[samples.index - 1])
        }
        named.append(name)
      } while !samples.atEnd
    } else {
      specs.append(try parseSampleSpec(&samples))
      while samples.take("plus") { specs.append(try parseSampleSpec(&samples)) }
      try samples.finish()
    }
    c.index = to + 2
    let workout = try c.workoutName()
    try c.finish()
    return .addToWorkout(device, app: app.name, samples: specs, named: named, workout: workout)
  }

  /// `energy|distance <n> <unit> [<type>]`: a cumulative total (the type given, or the activity's own).
  func workoutTotal(_ c: inout Cursor, type defaultType: SampleType) throws(Diagnostic) -> WorkoutTotalSpec {
    let numberToken = c.peek
    let value = try c.number()
    guard value >= 0 else { throw c.error(.invalidNumber(numberToken?.text ?? ""), at: numberToken) }
    let unitToken = c.peek
    var type = defaultType
    if let t = c.line.tokens.dropFirst(c.index + 1).first, let named = Cursor.sampleType(t) {
      guard named.descriptor.aggregation == .cumulative else {
        throw c.error(.expected("a cumulative quantity type", found: named.name), at: t)
      }
      type = named
    }
    _ = try c.unit(for: type)
    if c.peek.flatMap(Cursor.sampleType) == type { c.index += 1 }
    return WorkoutTotalSpec(type: type, value: value, unit: unitToken!.text)
  }

  /// `every <duration> at <n> <unit>` (`bpm` is `count/min`).
  func workoutSeries(_ c: inout Cursor, type: SampleType) throws(Diagnostic) -> WorkoutSeriesSpec {
    try c.expect("every", what: "'every <duration>'")
    let intervalToken = c.peek
    let interval = try c.duration()
    guard interval >= 1 else {
      throw c.error(.expected("an interval of at least 1s", found: intervalToken?.text), at: intervalToken)
    }
    try c.expect("at", what: "'at <value> <unit>'")
    let value = try c.number()
    if c.take("bpm") { return WorkoutSeriesSpec(type: type, interval: interval, value: value, unit: "count/min") }
    let unitToken = c.peek
    _ = try c.unit(for: type)
    return WorkoutSeriesSpec(type: type, interval: interval, value: value, unit: unitToken!.text)
  }

  /// `[<n> Hz | every <duration>] from <latitude>,<longitude> [at <n> m/s]` (1 Hz when no rate is written).
  func routeSpec(_ c: inout Cursor) throws(Diagnostic) -> RouteSpec {
    var interval = 1.0
    if c.take("every") {
      let t = c.peek
      interval = try c.duration()
      guard interval > 0 else { throw c.error(.invalidDuration(t?.text ?? ""), at: t) }
    } else if let t = c.peek, Double(t.text) != nil, c.second(is: "hz") {
      let hz = try c.number()
      guard hz > 0, hz <= 10 else { throw c.error(.expected("a rate from 0 to 10 Hz", found: t.text), at: t) }
      c.index += 1
      interval = 1 / hz
    }
    try c.expect("from", what: "'from <latitude>,<longitude>'")
    let latToken = c.peek
    let latitude = try c.number()
    guard (-90...90).contains(latitude) else {
      throw c.error(.expected("a latitude from -90 to 90", found: latToken?.text), at: latToken)
    }
    let lonToken = c.peek
    let longitude = try c.number()
    guard (-180...180).contains(longitude) else {
      throw c.error(.expected("a longitude from -180 to 180", found: lonToken?.text), at: lonToken)
    }
    var route = RouteSpec(interval: interval, latitude: latitude, longitude: longitude)
    if c.peek?.keyword == "at", c.line.tokens.count > c.index + 2, c.line.tokens[c.index + 2].keyword == "m/s" {
      c.index += 1
      let t = c.peek
      let speed = try c.number()
      guard speed > 0 else { throw c.error(.invalidNumber(t?.text ?? ""), at: t) }
      c.index += 1
      route.speed = speed
    }
    return route
  }

  /// `<key>=<value> [and <key>=<value>…]` after `with`.
  func metadataPairs(_ c: inout Cursor) throws(Diagnostic) -> Metadata {
    var metadata: Metadata = [:]
    repeat {
      let kv = try c.word("key=value metadata")
      let parts = kv.text.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { throw c.error(.expected("key=value", found: kv.text), at: kv) }
      let key = MetadataKey.byConstantName[String(parts[0])] ?? String(parts[0])
      metadata[key] = ParseState.metadataValue(String(parts[1]))
    } while c.take("and") || (c.peek.map { $0.text.contains("=") } ?? false)
    return metadata
  }

  /// The name after `as`: a new sample name, recorded as defined.
  /// - Throws: a diagnostic at the name when a sample already has it.
  mutating func newSampleName(_ c: inout Cursor) throws(Diagnostic) -> String {
    let name = try c.sampleName(defined: true)
    if sampleNames.contains(name) { throw c.error(.duplicateSampleName(name), at: c.line.tokens[c.index - 1]) }
    sampleNames.insert(name)
    return name
  }

  /// `as <name>` of a workout: a new name, in the namespace of sample names.
  mutating func defineWorkoutName(_ c: inout Cursor) throws(Diagnostic) -> String {
    let name = try newSampleName(&c)
    workoutNames.insert(name)
    return name
  }

  /// The distance type HealthKit's workouts total for an activity (`distanceCycling` for cycling, …); walking and
  /// running distance otherwise.
  static func distanceType(for activity: WorkoutActivityType) -> SampleType {
    let name: String =
      switch activity.name ?? "" {
      case "cycling", "handCycling": "distanceCycling"
      case "swimming", "swimBikeRun": "distanceSwimming"
      case "wheelchairRunPace", "wheelchairWalkPace": "distanceWheelchair"
      case "downhillSkiing", "snowboarding", "crossCountrySkiing", "snowSports": "distanceDownhillSnowSports"
      case "paddleSports", "rowing", "sailing", "surfingSports": "distancePaddleSports"
      default: "distanceWalkingRunning"
      }
    return SampleType.lookup(name: name) ?? SampleType.lookup(name: "distanceWalkingRunning")!
  }
}

extension Cursor {
  /// An activity type by its Swift case name (`running`, `traditionalStrengthTraining`); an unknown one suggests the
  /// nearest.
  mutating func activityType() throws(Diagnostic) -> WorkoutActivityType {
    let t = try word("an activity type such as running")
    if let type = WorkoutActivityType(name: t.text) { return type }
    let names = WorkoutActivityType.all.map(\.name)
    if let type = names.first(where: { $0.lowercased() == t.keyword }).flatMap(WorkoutActivityType.init(name:)) {
      return type
    }
    throw error(.unknownActivityType(t.text, suggestion: suggest(t.text, from: names)), at: t)
  }

  /// A workout's name, given earlier with `as` on a `saves workout` step.
  mutating func workoutName() throws(Diagnostic) -> String {
    let t = try word("a workout's name")
    guard state.workoutNames.contains(t.text) else {
      throw error(.unknownWorkout(t.text, suggestion: suggest(t.text, from: state.workoutNames.sorted())), at: t)
    }
    return t.text
  }
}
