import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// Performing operations: the only way a caller outside this module reaches a daemon.
extension DeviceClient {
  /// Performs `operation`: sends its request and waits for its final answer, reading the socket on this thread when
  /// nobody else does, until `timeout` (the client's default when nil).
  /// - Throws: ``ClientError``; `protocolViolation` for an answer of another kind than the operation expects.
  package func perform<Value>(_ operation: DeviceOperation<Value>, timeout: Double? = nil) throws(ClientError)
    -> Value
  {
    try operation.value(from: try call(operation.request, timeout: timeout))
  }

  /// Performs `operation` and awaits its final answer without blocking a thread, until `timeout` (the client's
  /// default when nil).
  /// - Throws: ``ClientError``.
  package func performAsync<Value>(_ operation: DeviceOperation<Value>, timeout: Double? = nil)
    async throws(ClientError) -> Value
  {
    try operation.value(from: try await callAsync(operation.request, timeout: timeout))
  }

  /// Sends `operation`'s request now and returns it pending: wait for it later (requests keep the order they were
  /// started in), or read its interim sheet first.
  /// - Throws: ``ClientError`` when the request cannot be sent.
  package func start<Value>(_ operation: DeviceOperation<Value>) throws(ClientError) -> PendingOperation<Value> {
    PendingOperation(ticket: try send(operation.request), operation: operation)
  }

  /// Performs `operation` on every client with the requests in flight together (one round trip of waiting for all,
  /// as for one): each is sent before any answer is awaited, then every one sent is awaited, its answer read on this
  /// thread. The results come in the clients' order; one client's failure leaves the others' calls as they are.
  package static func performTogether<Value>(_ operation: DeviceOperation<Value>, on clients: [DeviceClient])
    -> [Result<Value, ClientError>]
  {
    let sent = clients.map { client in
      (client, Result { () throws(ClientError) in try client.startAwaitedHere(operation) })
    }
    return sent.map { client, pending in
      pending.flatMap { pending in Result { () throws(ClientError) in try pending.wait(timeout: client.timeout) } }
    }
  }
}

/// Named spellings of the common operations (each is `perform` of the ``DeviceOperation`` of the same name), and
/// the few that combine several requests.
extension DeviceClient {
  /// Installs or updates an app.
  package func installApp(_ app: AppRecord) throws(ClientError) { try perform(.installApp(app)) }
  /// Uninstalls an app.
  package func uninstallApp(_ bundleID: String) throws(ClientError) { try perform(.uninstallApp(bundleID)) }

  /// Starts `requestAuthorization`; wait with `waitFirst` (a presented sheet arrives first) and `wait` (the
  /// completion).
  package func beginAuthorization(_ bundleID: String, share: [SampleType], read: [SampleType]) throws(ClientError)
    -> PendingOperation<AuthorizationCallResult>
  {
    try start(.requestAuthorization(bundleID, share: share, read: read))
  }

  /// The user answers the pending sheet.
  package func answerPrompt(_ answer: PromptAnswer, promptID: UInt64? = nil, bundleID: String? = nil)
    throws(ClientError)
  {
    try perform(.answerPrompt(answer, promptID: promptID, bundleID: bundleID))
  }

  /// `authorizationStatus(for:)`.
  package func authorizationStatus(_ bundleID: String, _ type: SampleType) throws(ClientError) -> AuthorizationStatus {
    try perform(.authorizationStatus(bundleID, type))
  }

  /// `getRequestStatusForAuthorization`.
  package func requestStatus(_ bundleID: String, share: [SampleType], read: [SampleType]) throws(ClientError)
    -> AuthorizationRequestStatus
  {
    try perform(.requestStatus(bundleID, share: share, read: read))
  }

  /// Saves a batch.
  package func save(_ bundleID: String, _ samples: [SampleInput]) throws(ClientError) {
    try perform(.save(bundleID, samples))
  }
  /// Deletes a batch.
  package func delete(_ bundleID: String, _ uuids: [UUID]) throws(ClientError) { try perform(.delete(bundleID, uuids)) }

  /// Deletes the app's own objects of a type in a date range; returns how many.
  package func deleteMatching(_ bundleID: String, type: SampleType, range: DateRange? = nil) throws(ClientError) -> Int
  {
    try perform(.deleteMatching(bundleID, type: type, range: range))
  }

  /// Runs a sample query.
  package func sampleQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [Sample] {
    try perform(.sampleQuery(bundleID, query))
  }

  /// Saves correlations with their members, and plain samples, in one all-or-nothing `save` (docs/behavior.md T10).
  package func saveCorrelations(
    _ bundleID: String, _ correlations: [CorrelationInput], samples: [SampleInput] = []
  ) throws(ClientError) {
    try perform(.saveCorrelations(bundleID, correlations, samples: samples))
  }

  /// Runs a correlation query (`HKCorrelationQuery`): correlations with the members the app may see.
  package func correlationQuery(_ bundleID: String, _ query: CorrelationQuery) throws(ClientError)
    -> [CorrelationResult]
  {
    try perform(.correlationQuery(bundleID, query))
  }

  /// Every live correlation on the device (of one type, or all) with its live members, whatever app saved it.
  package func storedCorrelations(type: SampleType? = nil) throws(ClientError) -> [CorrelationResult] {
    try perform(.storedCorrelations(type: type))
  }

  /// Runs a statistics query.
  package func statistics(_ bundleID: String, _ query: StatisticsQuery) throws(ClientError) -> Statistics {
    try perform(.statistics(bundleID, query))
  }

  /// Runs a statistics collection query.
  package func statisticsCollection(_ bundleID: String, _ query: StatisticsQuery) throws(ClientError) -> [Statistics] {
    try perform(.statisticsCollection(bundleID, query)).statistics
  }

  /// Runs an anchored object query; `filter` (the rest of the predicate) applies before `limit`.
  package func anchoredQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange? = nil, limit: Int = 0,
    filter: SampleFilter? = nil
  )
    throws(ClientError) -> AnchoredResult
  {
    try perform(.anchoredQuery(bundleID, type: type, anchor: anchor, range: range, limit: limit, filter: filter))
  }

  /// Settings → Privacy → Health (phone).
  package func changeSettings(_ bundleID: String, _ change: SettingsChange) throws(ClientError) {
    try perform(.changeSettings(bundleID, change))
  }

  /// The iPhone's Watch app (phone; applied by the watch).
  package func watchSettings(_ bundleID: String, _ change: SettingsChange) throws(ClientError) {
    try perform(.watchSettings(bundleID, change))
  }

  /// Sets the virtual clock; returns the device's time.
  @discardableResult
  package func setClock(_ date: Date?) throws(ClientError) -> Date { try perform(.setClock(date)) }

  /// Advances the virtual clock; returns the device's time.
  @discardableResult
  package func advanceClock(seconds: Double) throws(ClientError) -> Date {
    try perform(.advanceClock(seconds: seconds))
  }

  /// Replaces the device policy.
  package func setPolicy(_ policy: DevicePolicy) throws(ClientError) { try perform(.setPolicy(policy)) }

  /// Sets the device's time zone (the rest of its policy unchanged).
  package func setTimeZone(_ zone: TimeZoneRule) throws(ClientError) {
    var policy = try dump().device.policy
    policy.timeZone = zone
    try setPolicy(policy)
  }

  /// The user orders the Health app's data sources of a type (phone only; the order reaches the watch by sync).
  package func setSourceOrder(_ type: SampleType, _ sources: [SampleSource]) throws(ClientError) {
    try perform(.setSourceOrder(type, sources))
  }

  /// The daemon's full state.
  package func dump() throws(ClientError) -> DaemonSnapshot { try perform(.dump) }

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
      let page = try perform(.storedSamples(type: type, from: from, limit: pageLimit))
      guard page.samples.count + page.tombstones.count > 0 || page.next == nil else {
        throw .protocolViolation("an empty storedSamples page that is not the last")
      }
      samples += page.samples
      tombstones += page.tombstones
      cursor = page.next
    }
    if !tombstones.isEmpty {
      let deleted = Set(tombstones.map(\.uuid))
      samples.removeAll { deleted.contains($0.uuid) }
    }
    return (Sample.inStoredOrder(samples), tombstones)
  }

  /// Chooses which events this connection receives.
  package func subscribe(_ mask: EventMask) throws(ClientError) { try perform(.subscribe(mask)) }

  /// A round trip that changes nothing: once it is answered, every event the daemon pushed before has arrived.
  package func ping() throws(ClientError) { try perform(.ping) }

  /// `earliestPermittedSampleDate()`.
  package func earliestPermittedSampleDate() throws(ClientError) -> Date { try perform(.earliestPermittedSampleDate) }

  /// Controls the peer link; returns its status.
  @discardableResult
  package func link(_ command: LinkCommand) throws(ClientError) -> LinkStatus { try perform(.link(command)) }

  /// Locks (true) or unlocks (false) the device; for the watch: takes it off (puts it back on) the wrist.
  package func setLocked(_ locked: Bool) throws(ClientError) { try perform(.setLocked(locked)) }

  /// An app reads a characteristic; nil is not set (or the read is denied).
  package func readCharacteristic(_ bundleID: String, _ type: SampleType) throws(ClientError) -> CharacteristicValue? {
    try perform(.readCharacteristic(bundleID, type))
  }

  /// `preferredUnits(for:)`: a unit string per type.
  package func preferredUnits(_ bundleID: String, _ types: [SampleType]) throws(ClientError) -> [SampleType: String] {
    try perform(.preferredUnits(bundleID, types))
  }

  /// The user changes a value in the Health app (a characteristic, a preferred unit).
  package func changeUserSetting(_ setting: UserSetting) throws(ClientError) {
    try perform(.changeUserSetting(setting))
  }
}

/// Background delivery (behavior.md section B).
extension DeviceClient {
  /// `enableBackgroundDelivery(for:frequency:)`.
  package func enableBackgroundDelivery(_ bundleID: String, _ type: SampleType, frequency: UpdateFrequency)
    throws(ClientError)
  {
    try perform(.enableBackgroundDelivery(bundleID, type, frequency: frequency))
  }

  /// `disableBackgroundDelivery(for:)`, or `disableAllBackgroundDelivery()` when `type` is nil.
  package func disableBackgroundDelivery(_ bundleID: String, _ type: SampleType?) throws(ClientError) {
    try perform(.disableBackgroundDelivery(bundleID, type))
  }

  /// Calls the completion handler of background delivery `delivery`.
  package func completeBackgroundDelivery(_ bundleID: String, delivery: UInt64) throws(ClientError) {
    try perform(.completeBackgroundDelivery(bundleID, delivery: delivery))
  }

  /// The background delivery registrations of one app (or every app), and the events since the daemon started.
  package func backgroundDeliveries(_ bundleID: String?) throws(ClientError) -> (
    registrations: [BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent]
  ) {
    try perform(.backgroundDeliveries(bundleID))
  }
}
