import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage

/// An app's calls: authorization requests, saves, deletions, background delivery. Each call's outcome is the app's
/// last call (``RunContext/lastCall``) and goes in the trace; an engine rejection is an outcome, not a failure.
extension RunContext {
  /// `<device>: <App> requests [share <types>] [read <types>]`: waits until the request shows a sheet or
  /// completes; a request whose sheet is up stays pending until it is answered.
  mutating func request(_ device: DeviceKind, _ name: String, share: [SampleType]?, read: [SampleType]?) throws {
    let a = declared(name, on: device)
    let request = try client(device).beginAuthorization(a.bundleID, share: share ?? a.share, read: read ?? a.read)
    try awaitSheet(device, name, request, api: "requestAuthorization")
  }

  /// `<device>: <App> requests from an extension …`: pending, unseen, until the app handles it (A23).
  mutating func requestFromExtension(_ device: DeviceKind, _ name: String, share: [SampleType]?, read: [SampleType]?)
    throws
  {
    let a = declared(name, on: device)
    let request = try client(device).start(
      .requestAuthorizationFromExtension(a.bundleID, share: share ?? a.share, read: read ?? a.read))
    try awaitSheet(device, name, request, api: "requestAuthorization (extension)")
  }

  /// `<device>: <App> handles authorization for its extensions`: pending while the sheet it presents is up (A23).
  mutating func handleExtensions(_ device: DeviceKind, _ name: String) throws {
    let request = try client(device).start(.handleAuthorizationForExtension(declared(name, on: device).bundleID))
    try awaitSheet(device, name, request, api: "handleAuthorizationForExtension")
  }

  /// Waits until a request that may present a sheet shows it or completes: a request whose sheet is up stays
  /// pending until it is answered; a rejection (a condition that would terminate the app, an unknown app) is the
  /// call's outcome.
  mutating func awaitSheet(
    _ device: DeviceKind, _ name: String, _ request: PendingOperation<AuthorizationCallResult>, api: String
  ) throws {
    let timeout = self.timeout
    switch attempt({ () throws(ClientError) in try request.waitFirst(timeout: timeout) }) {
    case .success(.sheet(let prompt)):
      lastCall[key(device, name)] = .request(request, sheet: prompt)
      pending[device, default: []].append((name, request, api))
      traceCall(device, name, api, CallOutcome(result: .pending))
    case .success(.final(let r)):
      lastCall[key(device, name)] = .request(request, sheet: nil)
      traceCall(device, name, api, CallOutcome(authorization: r))
    case .failure(let error):
      guard let health = error.healthError else { throw error }
      lastCall[key(device, name)] = .request(request, sheet: nil)
      traceCall(device, name, api, CallOutcome(error: health))
    }
  }

  /// `<device>: <App> saves <value> <type> …`, `saves <sample> plus <sample>…`: the samples in one call; a named
  /// sample's UUID and input are kept for later steps.
  mutating func save(_ device: DeviceKind, _ name: String, _ specs: [SampleSpec]) throws {
    let a = app(name)
    var inputs: [SampleInput] = []
    for spec in specs {
      let input = sampleInput(spec, on: device)
      inputs.append(input)
      if let n = spec.name { savedInputs[n] = input }
    }
    let c = client(device)
    record(device, name, "save", try capture { () throws(ClientError) in try c.save(a.bundleID, inputs) })
  }

  /// `<device>: <App> saves <type> correlation [as <name>] … of <sample> plus <sample>…`: the correlation spans its
  /// members' dates.
  mutating func saveCorrelation(_ device: DeviceKind, _ name: String, _ spec: CorrelationSpec) throws {
    let a = app(name)
    var members: [SampleInput] = []
    for member in spec.members { members.append(sampleInput(member, on: device)) }
    let uuid = rng.uuid()
    if let n = spec.name { names[n] = uuid }
    let input = CorrelationInput(
      uuid: uuid, type: spec.type, start: members.map(\.start).min() ?? now, end: members.map(\.end).max() ?? now,
      metadata: spec.metadata, members: members)
    let c = client(device)
    record(device, name, "save", try capture { () throws(ClientError) in try c.saveCorrelations(a.bundleID, [input]) })
  }

  /// The sample `spec` writes, its UUID drawn from the seed unless written (and noted under its name).
  mutating func sampleInput(_ spec: SampleSpec, on device: DeviceKind) -> SampleInput {
    let uuid = spec.uuid ?? rng.uuid()
    if let n = spec.name { names[n] = uuid }
    let start = resolve(spec.start, on: device)
    let end: Date
    switch spec.end {
    case .duration(let d): end = start.addingTimeInterval(d)
    case .time(let t): end = resolve(t, on: device)
    }
    return SampleInput(uuid: uuid, type: spec.type, value: spec.value, start: start, end: end, metadata: spec.metadata)
  }

  /// `<device>: <App> saves <n> random <type> samples over <duration>`: values, dates and UUIDs drawn from the seed.
  mutating func saveRandom(_ device: DeviceKind, _ name: String, count: Int, type: SampleType, over: Double) throws {
    let a = app(name)
    var inputs: [SampleInput] = []
    for _ in 0..<count {
      let start = now.addingTimeInterval(-Double.random(in: 0..<max(over, 1), using: &rng))
      let value: SampleInput.Value
      if let unit = type.descriptor.canonicalUnit {
        value = .quantity((Double.random(in: 1...500, using: &rng) * 10).rounded() / 10, unit: unit.description)
      } else {
        value = .category(type.descriptor.categoryValues!.randomElement(using: &rng)!.value)
      }
      // Quantities are instantaneous unless their type has a minimum duration (audio exposure, behavior.md T14).
      let instant = type.descriptor.minimumDuration > 0 ? 60.0 : 0
      let duration = type.descriptor.isQuantity ? instant : Double(Int.random(in: 1...30, using: &rng) * 60)
      inputs.append(
        SampleInput(
          uuid: rng.uuid(), type: type, value: value, start: start, end: start.addingTimeInterval(duration),
          metadata: Dictionary(
            uniqueKeysWithValues: type.descriptor.requiredMetadata.map { ($0, MetadataKey.generatedValue(for: $0)) }
          )
        ))
    }
    let c = client(device)
    record(device, name, "save", try capture { () throws(ClientError) in try c.save(a.bundleID, inputs) })
  }

  /// `<device>: <App> resaves <name> [as <value> [<unit>]]`: the same UUID, optionally another value.
  mutating func resave(
    _ device: DeviceKind, _ name: String, _ sample: String, _ changed: SampleInput.Value?, _ step: Step
  ) throws {
    guard var input = savedInputs[sample] else {
      throw fail(step, "a saved sample named \(sample)", "no sample was saved under that name")
    }
    if let changed { input.value = changed }
    let c = client(device)
    let bundle = app(name).bundleID
    record(device, name, "save", try capture { () throws(ClientError) in try c.save(bundle, [input]) })
  }

  /// `<device>: <App> deletes all <type> [range]`: `deleteObjects(of:predicate:)` (the app's own objects only).
  mutating func deleteAll(_ device: DeviceKind, _ name: String, _ type: SampleType, _ rangeSpec: RangeSpec?) throws {
    let range = rangeSpec.map { resolve($0, on: device) }
    let c = client(device)
    let bundle = app(name).bundleID
    record(
      device, name, "deleteObjects",
      try capture { () throws(ClientError) in
        _ = try c.deleteMatching(bundle, type: type, range: range)
      })
  }

  /// `<device>: <App> deletes <name>…` (a name no step gave a sample deletes an unknown UUID).
  mutating func delete(_ device: DeviceKind, _ name: String, _ sampleNames: [String]) throws {
    let uuids = sampleNames.map { names[$0] ?? UUID() }
    let c = client(device)
    let bundle = app(name).bundleID
    record(device, name, "delete", try capture { () throws(ClientError) in try c.delete(bundle, uuids) })
  }

  /// `<device>: <App> enables|disables background delivery …`, `completes the background delivery of <type>` (the
  /// completion handler of the delivery waiting for the type; none waiting is the step's failure).
  mutating func background(_ device: DeviceKind, _ name: String, _ action: BackgroundAction, _ step: Step) throws {
    let c = client(device)
    let bundle = app(name).bundleID
    switch action {
    case .enable(let type, let frequency):
      record(
        device, name, "enableBackgroundDelivery",
        try capture { () throws(ClientError) in try c.enableBackgroundDelivery(bundle, type, frequency: frequency) }
      )
    case .disable(let type):
      record(
        device, name, type == nil ? "disableAllBackgroundDelivery" : "disableBackgroundDelivery",
        try capture { () throws(ClientError) in try c.disableBackgroundDelivery(bundle, type) })
    case .complete(let type):
      guard
        let waiting = try c.backgroundDeliveries(bundle).registrations.first(where: { $0.key.type == type })?.waiting
      else {
        throw fail(
          step, "a background delivery of \(type.name) waiting for \(name)'s completion handler", "none is waiting")
      }
      record(
        device, name, "HKObserverQueryCompletionHandler",
        try capture { () throws(ClientError) in try c.completeBackgroundDelivery(bundle, delivery: waiting) })
    }
  }
}
