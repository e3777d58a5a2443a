import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// One request a client can make of a device daemon, defined once: the request, the reply case it expects and what
/// its caller gets from that reply.
///
/// Built from a request's row in ``RequestTable`` and its field values (`DeviceOperation(RequestTable.save,
/// bundleID, samples)`, or the named factories below, which say the same with labels and defaults), and performed
/// by ``DeviceClient/perform(_:timeout:)`` (blocking), ``DeviceClient/performAsync(_:timeout:)`` and
/// ``DeviceClient/start(_:)`` (send now, wait later), or by HealthKitSim's session, with its own retry and sheet
/// semantics. `DeviceClient` sends nothing else, so every caller outside this module goes through a row.
package struct DeviceOperation<Value>: Sendable {
  /// The request sent.
  package let request: Request
  /// The reply case a successful answer has.
  package let expects: ReplyTag
  /// What the caller gets from a reply with tag ``expects``; nil for any other reply.
  @usableFromInline let extract: @Sendable (Reply) -> Value?

  /// The operation of `definition`'s request with these field values: its request, expected reply and value all
  /// come from the request's row in ``RequestTable``, so every row is an operation without further code.
  package init<each Field: FieldCodec>(
    _ definition: RequestDefinition<Value, repeat each Field>, _ values: repeat (each Field).Value
  ) {
    self.request = definition.make(repeat each values)
    self.expects = definition.answer.tag
    self.extract = definition.answer.extract
  }

  /// What the caller gets from `reply`.
  ///
  /// Inlinable, as ``PendingOperation/wait(timeout:)`` is, so that a caller in another module gets it specialized
  /// for its value (not looking up generic metadata per call).
  /// - Throws: ``ClientError/protocolViolation(_:)`` for a reply of another kind.
  @inlinable
  package func value(from reply: Reply) throws(ClientError) -> Value {
    guard let value = extract(reply) else { throw .protocolViolation("expected \(expects), got \(reply)") }
    return value
  }

  /// Whether `reply` is the kind of answer this operation expects (its value can be taken from it).
  package func accepts(_ reply: Reply) -> Bool { extract(reply) != nil }

  /// The request framed for the wire with request id `id`, for clients that pipeline frames themselves (the
  /// benchmarks' direct socket client).
  package func frame(id: UInt32) -> [UInt8] { Frame.request(id: id, request).framed() }
}

extension DeviceOperation where Value == Void {
  /// Installs or updates an app.
  package static func installApp(_ app: AppRecord) -> Self {
    Self(RequestTable.installApp, app, app.entitlements, app.healthRecords)
  }
  /// Uninstalls an app.
  package static func uninstallApp(_ bundleID: String) -> Self {
    Self(RequestTable.uninstallApp, bundleID)
  }
  /// The user answers a pending sheet (the given one, the app's, or the frontmost).
  package static func answerPrompt(_ answer: PromptAnswer, promptID: UInt64? = nil, bundleID: String? = nil) -> Self {
    Self(RequestTable.answerPrompt, promptID, bundleID, answer)
  }
  /// Saves a batch of samples, all or nothing.
  package static func save(_ bundleID: String, _ samples: [SampleInput]) -> Self {
    Self(RequestTable.save, bundleID, samples)
  }
  /// Saves correlations with their members, and plain samples, in one all-or-nothing `save` (docs/behavior.md T10).
  package static func saveCorrelations(
    _ bundleID: String, _ correlations: [CorrelationInput], samples: [SampleInput] = []
  ) -> Self {
    Self(RequestTable.saveCorrelations, bundleID, correlations, samples)
  }
  /// Deletes a batch of the app's objects, all or nothing.
  package static func delete(_ bundleID: String, _ uuids: [UUID]) -> Self {
    Self(RequestTable.delete, bundleID, uuids)
  }
  /// Settings → Privacy → Health (phone).
  package static func changeSettings(_ bundleID: String, _ change: SettingsChange) -> Self {
    Self(RequestTable.changeSettings, bundleID, change)
  }
  /// The iPhone's Watch app (phone; applied by the watch).
  package static func watchSettings(_ bundleID: String, _ change: SettingsChange) -> Self {
    Self(RequestTable.watchSettings, bundleID, change)
  }
  /// Replaces the device policy.
  package static func setPolicy(_ policy: DevicePolicy) -> Self { Self(RequestTable.setPolicy, policy) }
  /// The user orders the Health app's data sources of a type (phone only; the order reaches the watch by sync).
  package static func setSourceOrder(_ type: SampleType, _ sources: [SampleSource]) -> Self {
    Self(RequestTable.setSourceOrder, type, sources)
  }
  /// Chooses which events the connection receives.
  package static func subscribe(_ mask: EventMask) -> Self { Self(RequestTable.subscribe, mask) }
  /// A round trip that changes nothing (everything the daemon pushed before it has arrived once it is answered).
  package static var ping: Self { Self(RequestTable.ping) }
  /// Locks (true) or unlocks (false) the device; for the watch: takes it off (puts it back on) the wrist.
  package static func setLocked(_ locked: Bool) -> Self { Self(RequestTable.setLocked, locked) }
  /// The user changes a value in the Health app (a characteristic, a preferred unit).
  package static func changeUserSetting(_ setting: UserSetting) -> Self {
    Self(RequestTable.changeUserSetting, setting)
  }
  /// `enableBackgroundDelivery(for:frequency:)`.
  package static func enableBackgroundDelivery(
    _ bundleID: String, _ type: SampleType, frequency: UpdateFrequency
  ) -> Self {
    Self(RequestTable.enableBackgroundDelivery, bundleID, type, frequency)
  }
  /// `disableBackgroundDelivery(for:)`, or `disableAllBackgroundDelivery()` when `type` is nil.
  package static func disableBackgroundDelivery(_ bundleID: String, _ type: SampleType?) -> Self {
    Self(RequestTable.disableBackgroundDelivery, bundleID, type)
  }
  /// Calls the completion handler of background delivery `delivery`.
  package static func completeBackgroundDelivery(_ bundleID: String, delivery: UInt64) -> Self {
    Self(RequestTable.completeBackgroundDelivery, bundleID, delivery)
  }
  /// Stages a batch of an import (committed by ``importCommit(_:characteristics:)``).
  package static func importBatch(_ importID: UInt64, _ samples: [Sample]) -> Self {
    Self(RequestTable.importBatch, importID, samples)
  }
  /// Stages correlations of an import, once their members are staged.
  package static func importCorrelations(_ importID: UInt64, _ correlations: [Correlation]) -> Self {
    Self(RequestTable.importCorrelations, importID, correlations)
  }
  /// Gives up an import's staged batches.
  package static func importAbort(_ importID: UInt64) -> Self { Self(RequestTable.importAbort, importID) }
}

extension DeviceOperation where Value == HelloInfo {
  /// The first request on a connection: which protocol version the client speaks, and its name.
  package static func hello(version: UInt16 = WireProtocol.version, client: String) -> Self {
    Self(RequestTable.hello, version, client)
  }
}

extension DeviceOperation where Value == AuthorizationCallResult {
  /// `requestAuthorization`: a presented sheet arrives as an interim `prompt`
  /// (see ``PendingOperation/waitFirst(timeout:)``), the completion once the user answers.
  package static func requestAuthorization(_ bundleID: String, share: [SampleType], read: [SampleType]) -> Self {
    Self(RequestTable.requestAuthorization, bundleID, share, read)
  }
  /// `requestAuthorization` from an app extension of the app: pending (an interim `prompt`, no sheet shown) until
  /// the app handles it and the user answers.
  package static func requestAuthorizationFromExtension(
    _ bundleID: String, share: [SampleType], read: [SampleType]
  ) -> Self {
    Self(RequestTable.requestAuthorizationFromExtension, bundleID, share, read)
  }
  /// `handleAuthorizationForExtension(completion:)`: presents the sheet of the app's waiting extension requests.
  package static func handleAuthorizationForExtension(_ bundleID: String) -> Self {
    Self(RequestTable.handleAuthorizationForExtension, bundleID)
  }
}

extension DeviceOperation where Value == AuthorizationStatus {
  /// `authorizationStatus(for:)`.
  package static func authorizationStatus(_ bundleID: String, _ type: SampleType) -> Self {
    Self(RequestTable.authorizationStatus, bundleID, type)
  }
}

extension DeviceOperation where Value == AuthorizationRequestStatus {
  /// `getRequestStatusForAuthorization`.
  package static func requestStatus(_ bundleID: String, share: [SampleType], read: [SampleType]) -> Self {
    Self(RequestTable.requestStatus, bundleID, share, read)
  }
}

extension DeviceOperation where Value == Int {
  /// Deletes the app's own objects of a type in a date range; the caller gets how many.
  package static func deleteMatching(_ bundleID: String, type: SampleType, range: DateRange? = nil) -> Self {
    Self(RequestTable.deleteMatching, bundleID, type, range)
  }
}

extension DeviceOperation where Value == [Sample] {
  /// Runs a sample query.
  package static func sampleQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.sampleQuery, bundleID, query)
  }
}

extension DeviceOperation where Value == [CorrelationResult] {
  /// Runs a correlation query (`HKCorrelationQuery`): correlations with the members the app may see.
  package static func correlationQuery(_ bundleID: String, _ query: CorrelationQuery) -> Self {
    Self(RequestTable.correlationQuery, bundleID, query)
  }
  /// Every live correlation on the device (of one type, or all) with its live members, whatever app saved it.
  package static func storedCorrelations(type: SampleType? = nil) -> Self {
    Self(RequestTable.storedCorrelations, type)
  }
}

extension DeviceOperation where Value == Statistics {
  /// Runs a statistics query.
  package static func statistics(_ bundleID: String, _ query: StatisticsQuery) -> Self {
    Self(RequestTable.statistics, bundleID, query)
  }
}

extension DeviceOperation where Value == (statistics: [Statistics], timeZone: String) {
  /// Runs a statistics collection query; the caller gets the buckets and the time zone they were computed in.
  package static func statisticsCollection(_ bundleID: String, _ query: StatisticsQuery) -> Self {
    Self(RequestTable.statisticsCollection, bundleID, query)
  }
}

extension DeviceOperation where Value == AnchoredResult {
  /// Runs an anchored object query; `filter` (the rest of the predicate) applies before `limit`.
  package static func anchoredQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange? = nil, limit: Int = 0,
    filter: SampleFilter? = nil
  ) -> Self {
    Self(RequestTable.anchoredQuery, bundleID, type, anchor, range, limit, filter)
  }
}

extension DeviceOperation where Value == Date {
  /// Sets the virtual clock (nil: back to the wall clock); the caller gets the device's time.
  package static func setClock(_ date: Date?) -> Self {
    Self(RequestTable.setClock, date)
  }
  /// Advances the virtual clock; the caller gets the device's time.
  package static func advanceClock(seconds: Double) -> Self {
    Self(RequestTable.advanceClock, seconds)
  }
  /// `earliestPermittedSampleDate()`.
  package static var earliestPermittedSampleDate: Self {
    Self(RequestTable.earliestPermittedSampleDate)
  }
}

extension DeviceOperation where Value == DaemonSnapshot {
  /// The daemon's full state.
  package static var dump: Self {
    Self(RequestTable.dump)
  }
}

extension DeviceOperation where Value == (samples: [Sample], tombstones: [Tombstone], next: StoredCursor?) {
  /// One page of the raw store (``DeviceClient/storedSamples(type:pageLimit:)`` reads them all): at most `limit`
  /// items (0: as many as fit a frame) from `from`, and where the next page starts (nil: this was the last).
  package static func storedSamples(type: SampleType? = nil, from: StoredCursor, limit: Int = 0) -> Self {
    Self(RequestTable.storedSamples, type, from, limit)
  }
}

extension DeviceOperation where Value == LinkStatus {
  /// Controls the peer link; the caller gets its status.
  package static func link(_ command: LinkCommand) -> Self {
    Self(RequestTable.link, command)
  }
}

extension DeviceOperation where Value == ImportOutcome {
  /// Commits an import's staged batches (and sets the characteristics it carried); the caller gets what was added
  /// and what was left out.
  package static func importCommit(
    _ importID: UInt64, characteristics: [SampleType: CharacteristicValue] = [:]
  ) -> Self {
    Self(RequestTable.importCommit, importID, characteristics)
  }
}

extension DeviceOperation where Value == CharacteristicValue? {
  /// An app reads a characteristic; nil is not set (or the read is denied).
  package static func readCharacteristic(_ bundleID: String, _ type: SampleType) -> Self {
    Self(RequestTable.readCharacteristic, bundleID, type)
  }
}

extension DeviceOperation where Value == [SampleType: String] {
  /// `preferredUnits(for:)`: a unit string per type.
  package static func preferredUnits(_ bundleID: String, _ types: [SampleType]) -> Self {
    Self(RequestTable.preferredUnits, bundleID, types)
  }
}

extension DeviceOperation
where Value == (registrations: [BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent]) {
  /// The background delivery registrations of one app (or every app), and the events since the daemon started.
  package static func backgroundDeliveries(_ bundleID: String?) -> Self {
    Self(RequestTable.backgroundDeliveries, bundleID)
  }
}

/// An operation sent and not yet answered: its ticket, and how its final answer becomes the caller's value.
package struct PendingOperation<Value>: Sendable {
  /// The request in flight.
  package let ticket: Ticket
  /// The operation sent.
  package let operation: DeviceOperation<Value>

  /// What arrived first: a presented sheet, or the final value.
  package enum First {
    /// A sheet was presented (the interim answer of `requestAuthorization`); the final answer comes later.
    case sheet(Prompt)
    /// The final value.
    case final(Value)
  }

  /// Waits for the final answer, until `timeout` seconds have passed.
  /// - Throws: ``ClientError``.
  @inlinable
  package func wait(timeout: Double) throws(ClientError) -> Value {
    try operation.value(from: try ticket.wait(timeout: timeout))
  }

  /// Waits for the first thing to arrive: a presented sheet or the final answer.
  /// - Throws: ``ClientError``; `protocolViolation` for an interim answer that is not a sheet.
  package func waitFirst(timeout: Double) throws(ClientError) -> First {
    switch try ticket.waitFirst(timeout: timeout) {
    case .final(let reply): return .final(try operation.value(from: reply))
    case .interim(.prompt(let prompt)): return .sheet(prompt)
    case .interim(let other): throw .protocolViolation("expected a sheet as the interim answer, got \(other)")
    }
  }

  /// The final answer, if it has arrived.
  package var result: Result<Value, ClientError>? {
    switch ticket.result {
    case nil: return nil
    case .failure(let error): return .failure(error)
    case .success(let reply):
      do throws(ClientError) { return .success(try operation.value(from: reply)) } catch { return .failure(error) }
    }
  }

  /// Awaits the final answer without blocking a thread, until `timeout` seconds have passed.
  /// - Throws: ``ClientError``, `.timeout` at the deadline.
  package func value(timeout: Double) async throws(ClientError) -> Value {
    try operation.value(from: try await ticket.value(timeout: timeout))
  }
}
