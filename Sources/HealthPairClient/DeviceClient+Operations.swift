import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// Typed wrappers over ``DeviceClient/call(_:timeout:)``: one per operation, unwrapping the expected reply.
extension DeviceClient {
  private func expect<T>(_ reply: Reply, _ what: String, _ extract: (Reply) -> T?) throws(ClientError) -> T {
    guard let value = extract(reply) else { throw .protocolViolation("expected \(what), got \(reply)") }
    return value
  }

  /// Installs or updates an app.
  package func installApp(_ app: AppRecord) throws(ClientError) { _ = try call(.installApp(app)) }
  /// Uninstalls an app.
  package func uninstallApp(_ bundleID: String) throws(ClientError) { _ = try call(.uninstallApp(bundleID: bundleID)) }

  /// Starts `requestAuthorization`; wait on the ticket with `waitFirst` (a presented sheet arrives as an interim
  /// `.prompt`) and `wait` (the final `.authorization`).
  package func beginAuthorization(_ bundleID: String, share: [SampleType], read: [SampleType]) throws(ClientError)
    -> Ticket
  {
    try send(.requestAuthorization(bundleID: bundleID, share: share, read: read))
  }

  /// The user answers the pending sheet.
  package func answerPrompt(_ answer: PromptAnswer, promptID: UInt64? = nil, bundleID: String? = nil)
    throws(ClientError)
  {
    _ = try call(.answerPrompt(promptID: promptID, bundleID: bundleID, answer: answer))
  }

  /// `authorizationStatus(for:)`.
  package func authorizationStatus(_ bundleID: String, _ type: SampleType) throws(ClientError) -> AuthorizationStatus {
    try expect(try call(.authorizationStatus(bundleID: bundleID, type: type)), "a status") {
      if case .status(let s) = $0 { s } else { nil }
    }
  }

  /// `getRequestStatusForAuthorization`.
  package func requestStatus(_ bundleID: String, share: [SampleType], read: [SampleType]) throws(ClientError)
    -> AuthorizationRequestStatus
  {
    try expect(try call(.requestStatus(bundleID: bundleID, share: share, read: read)), "a request status") {
      if case .requestStatus(let s) = $0 { s } else { nil }
    }
  }

  /// Saves a batch.
  package func save(_ bundleID: String, _ samples: [SampleInput]) throws(ClientError) {
    _ = try call(.save(bundleID: bundleID, samples: samples))
  }
  /// Deletes a batch.
  package func delete(_ bundleID: String, _ uuids: [UUID]) throws(ClientError) {
    _ = try call(.delete(bundleID: bundleID, uuids: uuids))
  }

  /// Deletes the app's own objects of a type in a date range; returns how many.
  package func deleteMatching(_ bundleID: String, type: SampleType, range: DateRange? = nil) throws(ClientError) -> Int
  {
    try expect(try call(.deleteMatching(bundleID: bundleID, type: type, range: range)), "count") {
      if case .count(let n) = $0 { n } else { nil }
    }
  }

  /// Runs a sample query.
  package func sampleQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [Sample] {
    try expect(try call(.sampleQuery(bundleID: bundleID, query: query)), "samples") {
      if case .samples(let s) = $0 { s } else { nil }
    }
  }

  /// Saves correlations with their members, and plain samples, in one all-or-nothing `save` (docs/behavior.md T10).
  package func saveCorrelations(
    _ bundleID: String, _ correlations: [CorrelationInput], samples: [SampleInput] = []
  ) throws(ClientError) {
    _ = try call(.saveCorrelations(bundleID: bundleID, correlations: correlations, samples: samples))
  }

  /// Runs a correlation query (`HKCorrelationQuery`): correlations with the members the app may see.
  package func correlationQuery(_ bundleID: String, _ query: CorrelationQuery) throws(ClientError)
    -> [CorrelationResult]
  {
    try expect(try call(.correlationQuery(bundleID: bundleID, query: query)), "correlations") {
      if case .correlations(let c) = $0 { c } else { nil }
    }
  }

  /// Every live correlation on the device (of one type, or all) with its live members, whatever app saved it.
  package func storedCorrelations(type: SampleType? = nil) throws(ClientError) -> [CorrelationResult] {
    try expect(try call(.storedCorrelations(type: type)), "correlations") {
      if case .correlations(let c) = $0 { c } else { nil }
    }
  }

  /// Runs a statistics query.
  package func statistics(_ bundleID: String, _ query: StatisticsQuery) throws(ClientError) -> Statistics {
    try expect(try call(.statistics(bundleID: bundleID, query: query)), "statistics") {
      if case .statistics(let s) = $0 { s } else { nil }
    }
  }

  /// Runs a statistics collection query.
  package func statisticsCollection(_ bundleID: String, _ query: StatisticsQuery) throws(ClientError) -> [Statistics] {
    try expect(try call(.statisticsCollection(bundleID: bundleID, query: query)), "a collection") {
      if case .collection(let c, _) = $0 { c } else { nil }
    }
  }

  /// Runs a statistics collection query; also returns the time zone its intervals were computed in.
  package func statisticsCollectionInZone(_ bundleID: String, _ query: StatisticsQuery) throws(ClientError)
    -> (statistics: [Statistics], timeZone: String)
  {
    try expect(try call(.statisticsCollection(bundleID: bundleID, query: query)), "a collection") {
      if case .collection(let c, let zone) = $0 { (c, zone) } else { nil }
    }
  }

  /// Runs an anchored object query.
  package func anchoredQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange? = nil, limit: Int = 0
  )
    throws(ClientError) -> AnchoredResult
  {
    try expect(
      try call(.anchoredQuery(bundleID: bundleID, type: type, anchor: anchor, range: range, limit: limit)),
      "anchored results"
    ) {
      if case .anchored(let a) = $0 { a } else { nil }
    }
  }

  /// Settings → Privacy → Health (phone).
  package func changeSettings(_ bundleID: String, _ change: SettingsChange) throws(ClientError) {
    _ = try call(.changeSettings(bundleID: bundleID, change: change))
  }

  /// The iPhone's Watch app (phone; applied by the watch).
  package func watchSettings(_ bundleID: String, _ change: SettingsChange) throws(ClientError) {
    _ = try call(.watchSettings(bundleID: bundleID, change: change))
  }

  /// Sets the virtual clock; returns the device's time.
  @discardableResult
  package func setClock(_ date: Date?) throws(ClientError) -> Date {
    try expect(try call(.setClock(date)), "a date") { if case .date(let d) = $0 { d } else { nil } }
  }

  /// Advances the virtual clock; returns the device's time.
  @discardableResult
  package func advanceClock(seconds: Double) throws(ClientError) -> Date {
    try expect(try call(.advanceClock(seconds: seconds)), "a date") { if case .date(let d) = $0 { d } else { nil } }
  }

  /// Replaces the device policy.
  package func setPolicy(_ policy: DevicePolicy) throws(ClientError) { _ = try call(.setPolicy(policy)) }

  /// Sets the device's time zone (the rest of its policy unchanged).
  package func setTimeZone(_ zone: TimeZoneRule) throws(ClientError) {
    var policy = try dump().device.policy
    policy.timeZone = zone
    try setPolicy(policy)
  }

  /// The user orders the Health app's data sources of a type (phone only; the order reaches the watch by sync).
  package func setSourceOrder(_ type: SampleType, _ sources: [SampleSource]) throws(ClientError) {
    _ = try call(.setSourceOrder(type: type, sources: sources))
  }

  /// The daemon's full state.
  package func dump() throws(ClientError) -> DaemonSnapshot {
    try expect(try call(.dump), "a snapshot") { if case .snapshot(let s) = $0 { s } else { nil } }
  }

  /// The raw store: every live sample (optionally of one type) sorted by start then identifier, and every
  /// tombstone in deletion order. Read page by page (`pageLimit` items each; 0 lets the daemon fill each page up to
  /// its size limit), so any store size can be read; a sample deleted while the pages are read is left out.
  package func storedSamples(
    type: SampleType? = nil, pageLimit: Int = 0
  ) throws(ClientError) -> (samples: [Sample], tombstones: [Tombstone]) {
    var samples: [Sample] = []
    var tombstones: [Tombstone] = []
    var cursor: StoredCursor? = .start
    while let from = cursor {
      let page = try expect(try call(.storedSamples(type: type, from: from, limit: pageLimit)), "stored samples") {
        if case .stored(let s, let t, let next) = $0 { (s, t, next) } else { nil }
      }
      guard page.0.count + page.1.count > 0 || page.2 == nil else {
        throw .protocolViolation("an empty storedSamples page that is not the last")
      }
      samples += page.0
      tombstones += page.1
      cursor = page.2
    }
    if !tombstones.isEmpty {
      let deleted = Set(tombstones.map(\.uuid))
      samples.removeAll { deleted.contains($0.uuid) }
    }
    samples.sort(by: Sample.storedOrder)
    return (samples, tombstones)
  }

  /// Chooses which events this connection receives.
  package func subscribe(_ mask: EventMask) throws(ClientError) { _ = try call(.subscribe(mask)) }

  /// `earliestPermittedSampleDate()`.
  package func earliestPermittedSampleDate() throws(ClientError) -> Date {
    try expect(try call(.earliestPermittedSampleDate), "a date") { if case .date(let d) = $0 { d } else { nil } }
  }

  /// Controls the peer link; returns its status.
  @discardableResult
  package func link(_ command: LinkCommand) throws(ClientError) -> LinkStatus {
    try expect(try call(.link(command)), "link status") { if case .link(let l) = $0 { l } else { nil } }
  }

  /// Locks (true) or unlocks (false) the device; for the watch: takes it off (puts it back on) the wrist.
  package func setLocked(_ locked: Bool) throws(ClientError) { _ = try call(.setLocked(locked)) }

  /// An app reads a characteristic; nil is not set (or the read is denied).
  package func readCharacteristic(_ bundleID: String, _ type: SampleType) throws(ClientError) -> CharacteristicValue? {
    try expect(try call(.readCharacteristic(bundleID: bundleID, type: type)), "a characteristic") {
      if case .characteristic(_, let value) = $0 { .some(value) } else { nil }
    }
  }

  /// `preferredUnits(for:)`: a unit string per type.
  package func preferredUnits(_ bundleID: String, _ types: [SampleType]) throws(ClientError) -> [SampleType: String] {
    try expect(try call(.preferredUnits(bundleID: bundleID, types: types)), "units") {
      if case .units(let units) = $0 { units } else { nil }
    }
  }

  /// The user changes a value in the Health app (a characteristic, a preferred unit).
  package func changeUserSetting(_ setting: UserSetting) throws(ClientError) {
    _ = try call(.changeUserSetting(setting))
  }
}

/// Background delivery (behavior.md section B).
extension DeviceClient {
  /// `enableBackgroundDelivery(for:frequency:)`.
  package func enableBackgroundDelivery(_ bundleID: String, _ type: SampleType, frequency: UpdateFrequency)
    throws(ClientError)
  {
    _ = try call(.enableBackgroundDelivery(bundleID: bundleID, type: type, frequency: frequency))
  }

  /// `disableBackgroundDelivery(for:)`, or `disableAllBackgroundDelivery()` when `type` is nil.
  package func disableBackgroundDelivery(_ bundleID: String, _ type: SampleType?) throws(ClientError) {
    _ = try call(.disableBackgroundDelivery(bundleID: bundleID, type: type))
  }

  /// Calls the completion handler of background delivery `delivery`.
  package func completeBackgroundDelivery(_ bundleID: String, delivery: UInt64) throws(ClientError) {
    _ = try call(.completeBackgroundDelivery(bundleID: bundleID, delivery: delivery))
  }

  /// The background delivery registrations of one app (or every app), and the events since the daemon started.
  package func backgroundDeliveries(_ bundleID: String?) throws(ClientError) -> (
    registrations: [BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent]
  ) {
    guard case .backgroundDeliveries(let list, let history) = try call(.backgroundDeliveries(bundleID: bundleID))
    else { throw .protocolViolation("expected background deliveries") }
    return (list, history)
  }
}
