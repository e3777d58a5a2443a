import FoundationEssentials
import HealthEngine
import HealthModel

/// Constants of the client protocol (docs/protocol.md).
package enum WireProtocol {
  /// The protocol version this build speaks; `hello` must carry it. Version 2: paged `storedSamples`, sync log
  /// identities and store checks on the peer link. Version 3: statistics collections in calendar intervals and
  /// the device's time zone, source orders (requests and sync entries). Version 4: the samples of a query reply
  /// (`samples`, `anchored`) list their sources once, as import batches do.
  package static let version: UInt16 = 4
  /// The largest frame body on a client socket (16 MiB).
  package static let maxClientFrame = 16 << 20
  /// The largest frame body on the peer link (64 MiB).
  package static let maxPeerFrame = 64 << 20
  /// The largest reply frame body a daemon sends (64 MiB, and never more than its `--max-client-backlog`); a
  /// larger reply is replaced by an error that says how to ask for less.
  package static let maxReplyFrame = 64 << 20
  /// The most bytes of samples and tombstones in one `storedSamples` page (4 MiB, and never more than half the
  /// daemon's `--max-client-backlog`).
  package static let maxStoredPage = 4 << 20
  /// The largest frame body accepted before a connection has identified itself — a client before `hello`, a peer
  /// before the pairing handshake completed (4 KiB; those messages are well under 300 bytes). So a connection
  /// that has proved nothing makes the daemon buffer at most this much of a frame.
  package static let maxHandshakeFrame = 4 << 10
}

/// The kind of a frame on a client socket (the first byte of its body).
package enum MessageType: UInt8, Sendable {
  /// Client → daemon.
  case request = 1
  /// Daemon → client: the final answer to a request.
  case response = 2
  /// Daemon → client: a progress notice for a request still pending (a sheet was presented).
  case interim = 3
  /// Daemon → client: a pushed event (after `subscribe`).
  case event = 4
}

/// Link control operations (for tests and the command line).
package enum LinkCommand: Hashable, Sendable {
  /// Allow the link (the default).
  case connect
  /// Drop the link and refuse it until `connect`.
  case disconnect
  /// Keep this device's outbound sync messages queued.
  case hold
  /// Deliver what `hold` queued, and stop holding.
  case release
  /// Delay every outbound sync message by this many seconds.
  case latency(Double)
  /// Try to connect now instead of waiting for the reconnect timer.
  case reconnectNow
}

extension LinkCommand: CustomStringConvertible {
  /// The command as Swift would print the case (`hold`, `latency(0.25)`), without the reflection that printing a
  /// type with no description costs on every logged link command.
  package var description: String {
    switch self {
    case .connect: "connect"
    case .disconnect: "disconnect"
    case .hold: "hold"
    case .release: "release"
    case .latency(let seconds): "latency(\(seconds))"
    case .reconnectNow: "reconnectNow"
    }
  }
}

/// Which pushed events a subscriber wants.
package struct EventMask: OptionSet, Hashable, Sendable {
  /// The raw bits.
  package let rawValue: UInt32
  /// Creates a mask.
  package init(rawValue: UInt32) { self.rawValue = rawValue }
  /// Sheets presented and closed.
  package static let prompts = EventMask(rawValue: 1)
  /// Samples added or deleted (local or synced).
  package static let samples = EventMask(rawValue: 2)
  /// Sync progress.
  package static let sync = EventMask(rawValue: 4)
  /// Link up/down.
  package static let link = EventMask(rawValue: 8)
  /// Background deliveries (woken, completed, missed, stopped) and samples pruned by the retention window.
  package static let background = EventMask(rawValue: 16)
  /// Everything.
  package static let all: EventMask = [.prompts, .samples, .sync, .link, .background]
}

/// Every client request's opcode: its first byte on the wire (docs/protocol.md). The list is exhaustive —
/// `Request.opcode`, the encoder and the decoder switch over it without a `default:` — so a request added to
/// `Request` and forgotten in the coding does not compile, and the pinned-frame tests walk `allCases`.
package enum RequestOpcode: UInt8, CaseIterable, Sendable {
  /// ``Request/hello``.
  case hello = 0
  /// ``Request/installApp``.
  case installApp = 1
  /// ``Request/uninstallApp``.
  case uninstallApp = 2
  /// ``Request/requestAuthorization``.
  case requestAuthorization = 3
  /// ``Request/answerPrompt``.
  case answerPrompt = 4
  /// ``Request/authorizationStatus``.
  case authorizationStatus = 5
  /// ``Request/requestStatus``.
  case requestStatus = 6
  /// ``Request/save``.
  case save = 7
  /// ``Request/delete``.
  case delete = 8
  /// ``Request/sampleQuery``.
  case sampleQuery = 9
  /// ``Request/statistics``.
  case statistics = 10
  /// ``Request/statisticsCollection``.
  case statisticsCollection = 11
  /// ``Request/anchoredQuery``.
  case anchoredQuery = 12
  /// ``Request/changeSettings``.
  case changeSettings = 13
  /// ``Request/watchSettings``.
  case watchSettings = 14
  /// ``Request/setClock``.
  case setClock = 15
  /// ``Request/advanceClock``.
  case advanceClock = 16
  /// ``Request/setPolicy``.
  case setPolicy = 17
  /// ``Request/dump``.
  case dump = 18
  /// ``Request/storedSamples``.
  case storedSamples = 19
  /// ``Request/subscribe``.
  case subscribe = 20
  /// ``Request/earliestPermittedSampleDate``.
  case earliestPermittedSampleDate = 21
  /// ``Request/link``.
  case link = 22
  /// ``Request/ping``.
  case ping = 23
  /// ``Request/deleteMatching``.
  case deleteMatching = 24
  /// ``Request/importBatch``.
  case importBatch = 30
  /// ``Request/importCommit``.
  case importCommit = 31
  /// ``Request/importAbort``.
  case importAbort = 32
  /// ``Request/setLocked``.
  case setLocked = 40
  /// ``Request/readCharacteristic``.
  case readCharacteristic = 41
  /// ``Request/preferredUnits``.
  case preferredUnits = 42
  /// ``Request/changeUserSetting``.
  case changeUserSetting = 43
  /// ``Request/enableBackgroundDelivery``.
  case enableBackgroundDelivery = 50
  /// ``Request/disableBackgroundDelivery``.
  case disableBackgroundDelivery = 51
  /// ``Request/completeBackgroundDelivery``.
  case completeBackgroundDelivery = 52
  /// ``Request/backgroundDeliveries``.
  case backgroundDeliveries = 53
  /// ``Request/setSourceOrder``.
  case setSourceOrder = 60
  /// ``Request/saveCorrelations``.
  case saveCorrelations = 85
  /// ``Request/correlationQuery``.
  case correlationQuery = 86
  /// ``Request/importCorrelations``.
  case importCorrelations = 87
  /// ``Request/storedCorrelations``.
  case storedCorrelations = 88
}

extension Request {
  /// The request's opcode.
  package var opcode: RequestOpcode {
    switch self {
    case .hello: .hello
    case .installApp: .installApp
    case .uninstallApp: .uninstallApp
    case .requestAuthorization: .requestAuthorization
    case .answerPrompt: .answerPrompt
    case .authorizationStatus: .authorizationStatus
    case .requestStatus: .requestStatus
    case .save: .save
    case .delete: .delete
    case .deleteMatching: .deleteMatching
    case .importBatch: .importBatch
    case .importCommit: .importCommit
    case .importAbort: .importAbort
    case .sampleQuery: .sampleQuery
    case .statistics: .statistics
    case .statisticsCollection: .statisticsCollection
    case .anchoredQuery: .anchoredQuery
    case .changeSettings: .changeSettings
    case .watchSettings: .watchSettings
    case .setClock: .setClock
    case .advanceClock: .advanceClock
    case .setPolicy: .setPolicy
    case .dump: .dump
    case .storedSamples: .storedSamples
    case .subscribe: .subscribe
    case .earliestPermittedSampleDate: .earliestPermittedSampleDate
    case .link: .link
    case .ping: .ping
    case .setLocked: .setLocked
    case .readCharacteristic: .readCharacteristic
    case .preferredUnits: .preferredUnits
    case .changeUserSetting: .changeUserSetting
    case .enableBackgroundDelivery: .enableBackgroundDelivery
    case .disableBackgroundDelivery: .disableBackgroundDelivery
    case .completeBackgroundDelivery: .completeBackgroundDelivery
    case .backgroundDeliveries: .backgroundDeliveries
    case .setSourceOrder: .setSourceOrder
    case .saveCorrelations: .saveCorrelations
    case .correlationQuery: .correlationQuery
    case .importCorrelations: .importCorrelations
    case .storedCorrelations: .storedCorrelations
    }
  }
}

/// A request from a client to a device daemon. Every engine operation is reachable.
package enum Request: Hashable, Sendable {
  /// Opens a session; must be the first request. Carries the protocol version and a client name for logs.
  case hello(version: UInt16, client: String)
  /// Installs or updates an app.
  case installApp(AppRecord)
  /// Uninstalls an app.
  case uninstallApp(bundleID: String)
  /// `requestAuthorization(toShare:read:)`; answered by an interim `prompt` if a sheet is shown, then a final
  /// `authorization` once the user answers.
  case requestAuthorization(bundleID: String, share: [SampleType], read: [SampleType])
  /// The user answers (or cancels, or fails to see) a pending sheet.
  case answerPrompt(promptID: UInt64?, bundleID: String?, answer: PromptAnswer)
  /// `authorizationStatus(for:)`.
  case authorizationStatus(bundleID: String, type: SampleType)
  /// `getRequestStatusForAuthorization(toShare:read:)`.
  case requestStatus(bundleID: String, share: [SampleType], read: [SampleType])
  /// `save(_:)` of a batch.
  case save(bundleID: String, samples: [SampleInput])
  /// `delete(_:)` of a batch.
  case delete(bundleID: String, uuids: [UUID])
  /// `deleteObjects(of:predicate:)`: the app's own objects of a type in a date range (nil: every date).
  case deleteMatching(bundleID: String, type: SampleType, range: DateRange?)
  /// `HKSampleQuery`.
  case sampleQuery(bundleID: String, query: SampleQuery)
  /// `HKStatisticsQuery`.
  case statistics(bundleID: String, query: StatisticsQuery)
  /// `HKStatisticsCollectionQuery`.
  case statisticsCollection(bundleID: String, query: StatisticsQuery)
  /// `HKAnchoredObjectQuery`.
  case anchoredQuery(bundleID: String, type: SampleType, anchor: UInt64, range: DateRange?, limit: Int)
  /// Settings → Privacy → Health (phone only).
  case changeSettings(bundleID: String, change: SettingsChange)
  /// The iPhone's Watch app, for a watch app (phone only; applied by the watch over the link).
  case watchSettings(bundleID: String, change: SettingsChange)
  /// Sets the virtual clock (nil: back to the real clock).
  case setClock(Date?)
  /// Advances the virtual clock.
  case advanceClock(seconds: Double)
  /// Replaces the device policy.
  case setPolicy(DevicePolicy)
  /// The full state of the device and its link.
  case dump
  /// One page of the raw store: stored samples (optionally of one type) from `from`, then every tombstone; at most
  /// `limit` items (0: as many as fit the page size). Follow ``Reply/stored(samples:tombstones:next:)``'s `next`.
  case storedSamples(type: SampleType?, from: StoredCursor, limit: Int)
  /// Starts pushing events of the given kinds on this connection.
  case subscribe(EventMask)
  /// `earliestPermittedSampleDate()`.
  case earliestPermittedSampleDate
  /// Controls the peer link.
  case link(LinkCommand)
  /// Does nothing; answers `ok`.
  case ping
  /// Stages one batch of the import `importID` (samples already converted, with the sources the import gives
  /// them); nothing is visible until ``importCommit(importID:)``. The first batch opens the import on this
  /// connection: it belongs to the connection, and is given up if the connection closes before the commit.
  case importBatch(importID: UInt64, samples: [Sample])
  /// Makes every batch of the import visible and durable at once; answers ``Reply/imported(_:)``.
  /// The characteristics the export's `Me` set are applied in the same commit (an import may consist of them only).
  case importCommit(importID: UInt64, characteristics: [SampleType: CharacteristicValue] = [:])
  /// Gives the import up: its staged batches are dropped; answers `ok`.
  case importAbort(importID: UInt64)
  /// Locks (true) or unlocks (false) the device; the watch: taken off or put back on the wrist (behavior.md L1).
  case setLocked(Bool)
  /// An app reads a characteristic (`dateOfBirthComponents()`, `biologicalSex()`, …); answered by
  /// ``Reply/characteristic(_:_:)``.
  case readCharacteristic(bundleID: String, type: SampleType)
  /// `preferredUnits(for:)`; answered by ``Reply/units(_:)``.
  case preferredUnits(bundleID: String, types: [SampleType])
  /// The user changes a value in the Health app: a characteristic or a preferred unit.
  case changeUserSetting(UserSetting)
  /// `enableBackgroundDelivery(for:frequency:)`.
  case enableBackgroundDelivery(bundleID: String, type: SampleType, frequency: UpdateFrequency)
  /// `disableBackgroundDelivery(for:)`, or `disableAllBackgroundDelivery()` when `type` is nil.
  case disableBackgroundDelivery(bundleID: String, type: SampleType?)
  /// An observer query's completion handler, called for background delivery `delivery`.
  case completeBackgroundDelivery(bundleID: String, delivery: UInt64)
  /// The background delivery registrations of one app (or every app) and their recent events.
  case backgroundDeliveries(bundleID: String?)
  /// The user sets the Health app's data-source order of a type (phone only; it reaches the watch by sync).
  case setSourceOrder(type: SampleType, sources: [SampleSource])
  /// `save(_:)` of objects some of which are correlations: the correlations with their members and the plain
  /// samples, all or nothing (docs/behavior.md T10); answers `ok`.
  case saveCorrelations(bundleID: String, correlations: [CorrelationInput], samples: [SampleInput])
  /// `HKCorrelationQuery` (and `HKSampleQuery` of a correlation type); answered by ``Reply/correlations(_:)``.
  case correlationQuery(bundleID: String, query: CorrelationQuery)
  /// Stages correlations of the import `importID` (their members arrive as samples in its batches); visible with
  /// the rest at ``importCommit(importID:characteristics:)``; answers `ok`.
  case importCorrelations(importID: UInt64, correlations: [Correlation])
  /// Every live correlation stored on the device (of one type, or all), with its live members, whatever app saved
  /// it (for exports and tests, as ``storedSamples(type:from:limit:)``); answered by ``Reply/correlations(_:)``.
  case storedCorrelations(type: SampleType?)
}

/// Information the daemon returns to `hello`.
package struct HelloInfo: Hashable, Sendable {
  /// The protocol version.
  package var version: UInt16
  /// Which device answered.
  package var device: DeviceKind
  /// The daemon's process id.
  package var pid: Int32
  /// The daemon's software version.
  package var software: String

  /// Creates hello information.
  package init(version: UInt16, device: DeviceKind, pid: Int32, software: String) {
    self.version = version
    self.device = device
    self.pid = pid
    self.software = software
  }
}

/// The state of a daemon's peer link.
package struct LinkStatus: Hashable, Sendable {
  /// Whether the link is allowed (not `disconnect`ed).
  package var enabled: Bool
  /// Whether the peers are connected and authenticated.
  package var connected: Bool
  /// Whether outbound delivery is held.
  package var holding: Bool
  /// Added latency in seconds.
  package var latency: Double
  /// This device's sync cursors and backlog.
  package var sync: DeviceSnapshot.SyncStatus

  /// Creates a status.
  package init(enabled: Bool, connected: Bool, holding: Bool, latency: Double, sync: DeviceSnapshot.SyncStatus) {
    self.enabled = enabled
    self.connected = connected
    self.holding = holding
    self.latency = latency
    self.sync = sync
  }
}

/// A daemon's full state for tests and `healthpair status`.
package struct DaemonSnapshot: Hashable, Sendable {
  /// The device state, hidden read decisions included.
  package var device: DeviceSnapshot
  /// The link.
  package var link: LinkStatus
  /// The daemon's process id.
  package var pid: Int32
  /// Connected clients.
  package var clients: Int

  /// Creates a snapshot.
  package init(device: DeviceSnapshot, link: LinkStatus, pid: Int32, clients: Int) {
    self.device = device
    self.link = link
    self.pid = pid
    self.clients = clients
  }
}

/// Every reply's tag: its first byte after the status (docs/protocol.md); exhaustive like ``RequestOpcode``.
package enum ReplyTag: UInt8, CaseIterable, Sendable {
  /// ``Reply/ok``.
  case ok = 0
  /// ``Reply/hello``.
  case hello = 1
  /// ``Reply/authorization``.
  case authorization = 2
  /// ``Reply/prompt``.
  case prompt = 3
  /// ``Reply/status``.
  case status = 4
  /// ``Reply/requestStatus``.
  case requestStatus = 5
  /// ``Reply/samples``.
  case samples = 6
  /// ``Reply/statistics``.
  case statistics = 7
  /// ``Reply/collection``.
  case collection = 8
  /// ``Reply/anchored``.
  case anchored = 9
  /// ``Reply/snapshot``.
  case snapshot = 10
  /// ``Reply/stored``.
  case stored = 11
  /// ``Reply/date``.
  case date = 12
  /// ``Reply/link``.
  case link = 13
  /// ``Reply/count``.
  case count = 14
  /// ``Reply/imported``.
  case imported = 30
  /// ``Reply/characteristic``.
  case characteristic = 40
  /// ``Reply/units``.
  case units = 41
  /// ``Reply/backgroundDeliveries``.
  case backgroundDeliveries = 50
  /// ``Reply/correlations``.
  case correlations = 70
}

extension Reply {
  /// The reply's tag.
  package var tag: ReplyTag {
    switch self {
    case .ok: .ok
    case .hello: .hello
    case .authorization: .authorization
    case .prompt: .prompt
    case .status: .status
    case .requestStatus: .requestStatus
    case .samples: .samples
    case .statistics: .statistics
    case .collection: .collection
    case .anchored: .anchored
    case .snapshot: .snapshot
    case .stored: .stored
    case .date: .date
    case .link: .link
    case .count: .count
    case .imported: .imported
    case .characteristic: .characteristic
    case .units: .units
    case .backgroundDeliveries: .backgroundDeliveries
    case .correlations: .correlations
    }
  }
}

/// A successful answer; the tag tells which.
package enum Reply: Hashable, Sendable {
  /// Done, nothing to return.
  case ok
  /// Answer to `hello`.
  case hello(HelloInfo)
  /// The completion of `requestAuthorization`.
  case authorization(AuthorizationCallResult)
  /// A sheet is presented (interim answer to `requestAuthorization`, and the `promptShown` event).
  case prompt(Prompt)
  /// `authorizationStatus`.
  case status(AuthorizationStatus)
  /// `requestStatus`.
  case requestStatus(AuthorizationRequestStatus)
  /// Sample query results.
  case samples([Sample])
  /// One statistics result.
  case statistics(Statistics)
  /// A statistics collection, and the time zone its intervals were computed in.
  case collection([Statistics], timeZone: String)
  /// Anchored query results.
  case anchored(AnchoredResult)
  /// `dump`.
  case snapshot(DaemonSnapshot)
  /// A `storedSamples` page: samples in insertion order, tombstones in deletion order, and where the next page
  /// starts (nil: this was the last).
  case stored(samples: [Sample], tombstones: [Tombstone], next: StoredCursor?)
  /// A date.
  case date(Date)
  /// Link status (answer to `link`).
  case link(LinkStatus)
  /// How many objects were affected (answer to `deleteMatching`).
  case count(Int)
  /// What an import's commit added and left out (answer to `importCommit`).
  case imported(ImportOutcome)
  /// A characteristic's value as the app reads it (nil: not set, or read denied).
  case characteristic(SampleType, CharacteristicValue?)
  /// `preferredUnits(for:)`: a unit string per type.
  case units([SampleType: String])
  /// Background delivery registrations and the events since the daemon started (answer to
  /// `backgroundDeliveries`).
  case backgroundDeliveries([BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent])
  /// Correlations with the members the app may see (answer to `correlationQuery`).
  case correlations([CorrelationResult])
}

/// Every pushed event's tag (docs/protocol.md); exhaustive like ``RequestOpcode``.
package enum EventTag: UInt8, CaseIterable, Sendable {
  /// ``DaemonEvent/promptShown``.
  case promptShown = 0
  /// ``DaemonEvent/promptClosed``.
  case promptClosed = 1
  /// ``DaemonEvent/samplesChanged``.
  case samplesChanged = 2
  /// ``DaemonEvent/syncApplied``.
  case syncApplied = 3
  /// ``DaemonEvent/peerAcknowledged``.
  case peerAcknowledged = 4
  /// ``DaemonEvent/linkChanged``.
  case linkChanged = 5
  /// ``DaemonEvent/protectedDataChanged``.
  case protectedDataChanged = 20
  /// ``DaemonEvent/backgroundDelivery``.
  case backgroundDelivery = 22
  /// ``DaemonEvent/samplesPruned``.
  case samplesPruned = 23
}

extension DaemonEvent {
  /// The event's tag.
  package var tag: EventTag {
    switch self {
    case .promptShown: .promptShown
    case .promptClosed: .promptClosed
    case .samplesChanged: .samplesChanged
    case .syncApplied: .syncApplied
    case .peerAcknowledged: .peerAcknowledged
    case .linkChanged: .linkChanged
    case .protectedDataChanged: .protectedDataChanged
    case .backgroundDelivery: .backgroundDelivery
    case .samplesPruned: .samplesPruned
    }
  }
}

/// A pushed event.
package enum DaemonEvent: Hashable, Sendable {
  /// A sheet was presented.
  case promptShown(Prompt)
  /// A sheet closed (answered, cancelled, failed to present, withdrawn).
  case promptClosed(promptID: UInt64, bundleID: String, outcome: String)
  /// Samples of these types were added or deleted; `origin` is where the change was made.
  case samplesChanged(types: [SampleType], origin: DeviceKind, added: Int, deleted: Int)
  /// Entries from the peer were applied, up to this sequence number.
  case syncApplied(upTo: UInt64, items: Int)
  /// The peer acknowledged our entries up to this sequence number.
  case peerAcknowledged(UInt64)
  /// The link came up or went down.
  case linkChanged(connected: Bool)
  /// The device locked (false) or unlocked (true): protected data became unavailable or available again
  /// (observers deferred during the lock are delivered on unlock; behavior.md L4). Sent with sample changes.
  case protectedDataChanged(available: Bool)
  /// A background delivery was made (the app's observer queries of the type run), completed, missed or stopped.
  case backgroundDelivery(BackgroundDeliveryEvent)
  /// The retention window pruned samples of `type` that these apps could see (their observer queries fire).
  case samplesPruned(type: SampleType, apps: [String])
}

/// A decoded client-socket frame.
package enum Frame: Hashable, Sendable {
  /// A request with its id.
  case request(id: UInt32, Request)
  /// A final response.
  case response(id: UInt32, Result<Reply, HealthError>)
  /// An interim notice for a pending request.
  case interim(id: UInt32, Reply)
  /// A pushed event.
  case event(DaemonEvent)
}

extension Request {
  /// The request's name for logs.
  package var name: String {
    switch self {
    case .hello: "hello"
    case .installApp: "installApp"
    case .uninstallApp: "uninstallApp"
    case .requestAuthorization: "requestAuthorization"
    case .answerPrompt: "answerPrompt"
    case .authorizationStatus: "authorizationStatus"
    case .requestStatus: "requestStatus"
    case .save: "save"
    case .delete: "delete"
    case .deleteMatching: "deleteMatching"
    case .sampleQuery: "sampleQuery"
    case .statistics: "statistics"
    case .statisticsCollection: "statisticsCollection"
    case .anchoredQuery: "anchoredQuery"
    case .changeSettings: "changeSettings"
    case .watchSettings: "watchSettings"
    case .setClock: "setClock"
    case .advanceClock: "advanceClock"
    case .setPolicy: "setPolicy"
    case .dump: "dump"
    case .storedSamples: "storedSamples"
    case .subscribe: "subscribe"
    case .earliestPermittedSampleDate: "earliestPermittedSampleDate"
    case .link: "link"
    case .ping: "ping"
    case .importBatch: "importBatch"
    case .importCommit: "importCommit"
    case .importAbort: "importAbort"
    case .setLocked(let locked): locked ? "lock" : "unlock"
    case .readCharacteristic: "readCharacteristic"
    case .preferredUnits: "preferredUnits"
    case .changeUserSetting: "changeUserSetting"
    case .enableBackgroundDelivery: "enableBackgroundDelivery"
    case .disableBackgroundDelivery: "disableBackgroundDelivery"
    case .completeBackgroundDelivery: "completeBackgroundDelivery"
    case .backgroundDeliveries: "backgroundDeliveries"
    case .setSourceOrder: "setSourceOrder"
    case .saveCorrelations: "saveCorrelations"
    case .correlationQuery: "correlationQuery"
    case .importCorrelations: "importCorrelations"
    case .storedCorrelations: "storedCorrelations"
    }
  }
}

extension DaemonEvent {
  /// The subscription bit that carries the event (docs/protocol.md): the daemon pushes it to connections subscribed
  /// to that bit, and a client's wait listens for the bits it asked for.
  package var subscriptionMask: EventMask {
    switch self {
    case .promptShown, .promptClosed: .prompts
    case .samplesChanged, .protectedDataChanged: .samples
    case .syncApplied, .peerAcknowledged: .sync
    case .linkChanged: .link
    case .backgroundDelivery, .samplesPruned: .background
    }
  }
}
