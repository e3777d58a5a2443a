import DeviceCore
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Journal
import Sync
import Wire

/// What a simulation run may do besides the app's saves and deletes.
package struct SimulationOptions: Sendable, Equatable {
  /// Steps per seed.
  package var steps = 1_000
  /// Whether devices crash (runtime state discarded, the journal bytes replayed).
  package var crashes = true
  /// Whether crashes may tear the journal's tail (only once the pair is synced, so nothing acknowledged is lost).
  package var tornTails = true
  /// Whether the network cuts connections, partitions the pair and delays messages.
  package var networkFaults = true
  /// A deliberately unsafe fault, for checking that the invariants bite: crashes cut the journal's tail even when
  /// the peer does not hold those records yet, so acknowledged samples can be lost and a run must then fail.
  package var tearUnsyncedTails = false
  /// Whether the watch's retention window is narrowed and widened and its clock moved forward and back (drawn from a
  /// stream of their own; a change that prunes waits until the pair is synced, as a torn tail does).
  package var windowFaults = true
  /// Whether the app also saves workouts (with samples, sometimes a route) and deletes them, drawn from a stream of
  /// their own (PairSimulator+Workouts.swift).
  package var workouts = true

  /// The defaults: every fault on.
  package init() {}
}

/// What one seed did, and the first invariant it broke.
package struct SimulationReport: Sendable, Equatable {
  /// The seed.
  package var seed: UInt64
  /// Steps run.
  package var steps = 0
  /// Saves acknowledged to the app.
  package var saves = 0
  /// Deletions acknowledged to the app.
  package var deletes = 0
  /// Workouts acknowledged to the app (each with its heart rate samples, half of them with a route).
  package var workouts = 0
  /// Workout deletions acknowledged to the app.
  package var workoutDeletes = 0
  /// Device crashes (journal replays).
  package var crashes = 0
  /// Crashes that also cut the journal inside its last records.
  package var tornTails = 0
  /// Connections cut by the network, losing what was in flight after a random point.
  package var connectionResets = 0
  /// Partitions (no connection possible until healed).
  package var partitions = 0
  /// Restarts whose journal had lost change numbers an anchor may hold, numbered past (the change mark).
  package var changeNumbersKept = 0
  /// Changes of the watch's retention window or clock (narrowed, widened, moved forward, moved back).
  package var windowChanges = 0
  /// Peer messages delivered.
  package var delivered = 0
  /// Peer messages lost with a reset connection.
  package var lost = 0
  /// Samples stored on each device at the end.
  package var storedSamples = 0
  /// The first invariant violation, or nil.
  package var failure: String?

  /// Creates an empty report for `seed`.
  package init(seed: UInt64) { self.seed = seed }
}

/// A deterministic phone + watch pair in one process: the daemons' pure core (``DeviceCore``: requests, the link and
/// the commit plan), each device's journal as bytes in memory (framed and replayed exactly as on disk),
/// a virtual clock, and a seeded network between them. Everything that happens — the app's requests, the link's
/// faults, crashes, the order in which messages arrive — is drawn from one seed, so a seed always replays the
/// same run.
///
/// The network is a stream transport like the Unix socket it stands for: within one connection messages arrive in
/// order, after a random delay; a reset connection loses a random suffix of what each side had in flight; a
/// partition refuses connections until it heals; a message of a dead connection never arrives. A crash discards
/// everything but the journal bytes (what the daemon wrote; a torn tail cuts inside the last records) and the
/// device restarts by replaying them.
///
/// At the end every fault heals and the run must converge; then the invariants the real-process chaos campaign
/// checks must hold: every acknowledged save is on both devices unless an acknowledged delete removed it; no
/// acknowledged delete is undone; no UUID is stored twice; both stores and their deletions are equal; the link
/// is verified by a store check; and replaying each journal rebuilds exactly the live state.
package struct PairSimulator {
  /// The app both devices run.
  static let bundleID = "com.example.simulated"
  /// The type it saves.
  static let water = SampleType(unchecked: 1)
  /// The first instant of every run.
  static let epoch = Date(timeIntervalSince1970: 1_767_600_000)  // 2026-01-05
  /// The pairing secret.
  static let secret = [UInt8](repeating: 7, count: 32)

  private var random: SeededGenerator
  let options: SimulationOptions
  var report: SimulationReport
  let phone: SimulatedDevice
  let watch: SimulatedDevice
  /// The id of the last request the app made (each device's requests are numbered from it).
  private var requestID: UInt32 = 0
  /// The stream the watch's retention and clock faults are drawn from: separate, so that every other draw of a seed
  /// is the same with or without them.
  var windowFaults: SeededGenerator
  /// The stream workout operations are drawn from (``workoutStep()``), separate like ``windowFaults``.
  var workoutDraws: SeededGenerator
  /// Acknowledged workouts, in save order; their deletions; each one's route.
  var savedWorkouts: [UUID] = []
  var deletedWorkouts: Set<UUID> = []
  var workoutRoutes: [UUID: UUID] = [:]
  private let network: SimulatedNetwork
  /// Acknowledged saves: UUID → the device that saved it.
  private var saved: [UUID: DeviceKind] = [:]
  private var savedOrder: [UUID] = []
  /// Acknowledged deletions.
  var deleted: Set<UUID> = []

  /// Runs one seed and returns what happened.
  package static func run(seed: UInt64, options: SimulationOptions = SimulationOptions()) -> SimulationReport {
    var simulator = PairSimulator(seed: seed, options: options)
    simulator.runAll()
    return simulator.report
  }

  /// The command that replays `seed`.
  package static func reproduction(seed: UInt64, options: SimulationOptions) -> String {
    var command = "healthpair simulate --seed \(seed) --steps \(options.steps)"
    if !options.crashes { command += " --no-crashes" }
    if !options.tornTails { command += " --no-torn-tails" }
    if !options.networkFaults { command += " --no-network-faults" }
    if !options.workouts { command += " --no-workouts" }
    return command
  }

  private init(seed: UInt64, options: SimulationOptions) {
    random = SeededGenerator(seed: seed)
    self.options = options
    report = SimulationReport(seed: seed)
    windowFaults = SeededGenerator(seed: seed ^ 0x57A1_D0FF_C10C_0001)
    workoutDraws = SeededGenerator(seed: seed ^ 0x3070_C0DE_0000_0032)
    network = SimulatedNetwork(seed: random.next(), jitter: options.networkFaults)
    phone = SimulatedDevice(kind: .phone, seed: random.next(), network: network)
    watch = SimulatedDevice(kind: .watch, seed: random.next(), network: network)
  }

  /// Virtual seconds since the run began (the network keeps the clock its messages are timed by).
  private var now: Double {
    get { network.now }
    nonmutating set { network.now = newValue }
  }

  var wall: Date { Self.epoch.addingTimeInterval(now) }

  func device(_ kind: DeviceKind) -> SimulatedDevice { kind == .phone ? phone : watch }

  private mutating func runAll() {
    for device in [phone, watch] {
      if let problem = device.boot(wall: wall, secret: Self.secret) {
        return fail("the \(device.kind) did not start: \(problem)")
      }
      setUp(device)
    }
    for device in [phone, watch] { device.setupEnd = device.journal.count }
    pump()
    for _ in 0..<options.steps {
      report.steps += 1
      step()
      pump()
      if report.failure != nil { return }
    }
    heal()
    if report.failure == nil { check() }
    if report.failure == nil { checkWorkouts() }
    report.storedSamples = phone.state.store.liveCount
  }

  /// Installs the app and grants it water in both directions, through requests like everything else.
  private mutating func setUp(_ device: SimulatedDevice) {
    let app = AppRecord(
      bundleID: Self.bundleID, displayName: "Simulated", writeUsageDescription: "w", readUsageDescription: "r")
    _ = request(device, .installApp(app))
    if case .pending = request(
      device,
      .requestAuthorization(
        bundleID: Self.bundleID, share: [Self.water] + Self.workoutTypes, read: [Self.water] + Self.workoutTypes))
    {
      _ = request(device, .answerPrompt(promptID: nil, bundleID: Self.bundleID, answer: .allowAll))
    }
  }

  /// One request of the app through the device's core, committed like the daemon commits a loop turn.
  mutating func request(_ device: SimulatedDevice, _ request: Request) -> RequestCore.Answer? {
    requestID &+= 1
    let answer = device.request(request, id: requestID, wall: wall)
    commit(device)
    return answer
  }

  private mutating func commit(_ device: SimulatedDevice) {
    if !device.commit(wall: wall) {
      fail("the \(device.kind)'s journal refused an append")
    }
  }

  // MARK: - Steps

  private mutating func step() {
    if options.windowFaults { windowFault() }
    if options.workouts { workoutStep() }
    let roll = random.next() % 100
    let kind: DeviceKind = random.next() & 1 == 0 ? .phone : .watch
    switch roll {
    case 0..<30: save(on: kind)
    case 30..<38: delete(on: kind)
    case 38..<70: advance(by: Double(random.next() % 20_000) / 1e6)
    case 70..<74: _ = request(device(kind), .link(random.next() & 1 == 0 ? .hold : .release))
    case 74..<78:
      let up = random.next() & 1 == 0
      for device in [phone, watch] { _ = request(device, .link(up ? .connect : .disconnect)) }
    case 78..<81: _ = request(device(kind), .link(.latency(Double(random.next() % 30) / 1000)))
    case 81..<86 where options.networkFaults: resetConnection()
    case 86..<89 where options.networkFaults: togglePartition()
    case 89..<91 where options.crashes: crash(kind, tear: false)
    case 91..<(options.tearUnsyncedTails ? 94 : 92) where options.crashes && options.tornTails: crash(kind, tear: true)
    default: advance(by: 0.001)
    }
  }

  private mutating func save(on kind: DeviceKind) {
    let count = 1 + Int(random.next() % 3)
    var inputs: [SampleInput] = []
    // Inside the device's window (the watch's may be narrowed, or its clock moved), or the save is refused (W5).
    let floor = device(kind).state.earliestPermittedSampleDate(wall: wall)
    for _ in 0..<count {
      let start = max(wall.addingTimeInterval(-Double(random.next() % 86_400)), floor.addingTimeInterval(1))
      inputs.append(
        SampleInput(
          uuid: random.uuid(), type: Self.water, value: .quantity(Double(1 + random.next() % 500), unit: "mL"),
          start: start, end: start))
    }
    guard case .reply(.success) = request(device(kind), .save(bundleID: Self.bundleID, samples: inputs)) else {
      return fail("the \(kind) refused a valid save")
    }
    for input in inputs {
      saved[input.uuid] = kind
      savedOrder.append(input.uuid)
    }
    report.saves += inputs.count
  }

  private mutating func delete(on kind: DeviceKind) {
    guard !savedOrder.isEmpty else { return }
    let uuid = savedOrder[Int(random.next() % UInt64(savedOrder.count))]
    if case .reply(.success) = request(device(kind), .delete(bundleID: Self.bundleID, uuids: [uuid])) {
      if deleted.insert(uuid).inserted { report.deletes += 1 }
    }
  }

  /// Lets `seconds` of virtual time pass, delivering messages and firing timers in time order.
  private mutating func advance(by seconds: Double) {
    let until = now + seconds
    while let next = nextEventTime(), next <= until {
      now = max(now, next)
      runDue()
    }
    now = until
    runDue()
  }

  private func nextEventTime() -> Double? {
    var next = network.nextDue
    for due in [phone.reconnectAt, watch.reconnectAt] {
      if let due, next.map({ due < $0 }) ?? true { next = due }
    }
    return next
  }

  /// Delivers every message and fires every timer due now, committing after each, until nothing more is due.
  private mutating func runDue() {
    var guardrail = 0
    while true {
      guardrail += 1
      if guardrail > 1_000_000 { return fail("the pair did not settle at t=\(now)") }
      if let packet = network.popDue() {
        let target = device(packet.to)
        switch packet.body {
        case .open:
          accept(packet.connection, on: target)
        case .message(let message):
          guard target.transport == packet.connection else { continue }
          report.delivered += 1
          target.feed(.received(message), wall: wall)
        case .endOfStream:
          guard target.transport == packet.connection else { continue }
          target.transport = nil
          target.feed(.closed, wall: wall)
        }
        commit(target)
        continue
      }
      var fired = false
      for device in [phone, watch] {
        if let due = device.reconnectAt, due <= now {
          device.reconnectAt = nil
          device.feed(.reconnectTimer, wall: wall)
          commit(device)
          fired = true
        }
      }
      if !fired { return }
    }
  }

  /// Runs what is due at the current instant (zero-delay messages).
  private mutating func pump() { runDue() }

  /// The listener accepts a connection the way the daemon does: an authenticated link is never displaced (the new
  /// connection is closed); one still in its handshake is.
  private func accept(_ connection: UInt64, on listener: SimulatedDevice) {
    if listener.transport != nil {
      if listener.core.peer.machine.isConnected {
        network.close(connection, by: listener.kind)
        return
      }
      if listener.close() { listener.feed(.closed, wall: wall) }
    }
    listener.transport = connection
    listener.feed(.opened(nonce: listener.nonce()), wall: wall)
  }

  private mutating func resetConnection() {
    guard network.connection != nil else { return }
    report.connectionResets += 1
    report.lost += network.reset(keepingFraction: Double(random.next() % 101) / 100)
  }

  private mutating func togglePartition() {
    network.partitioned.toggle()
    if network.partitioned {
      report.partitions += 1
      resetConnection()
    }
  }

  private mutating func crash(_ kind: DeviceKind, tear: Bool) {
    let device = device(kind)
    var cut = false
    if tear, isSynced || options.tearUnsyncedTails {
      cut = device.tearTail(random: &random)
      if cut { report.tornTails += 1 }
    }
    report.crashes += 1
    // The kernel closes the socket: what the device wrote still reaches the peer, then end of stream.
    if let connection = device.transport ?? network.connection { network.close(connection, by: kind) }
    device.transport = nil
    device.reconnectAt = nil
    // Every change number the device handed out (journaled, so an anchored query may have returned it) stays
    // handed out: the restarted device numbers its next change above all of them, torn tail or not.
    let handedOut = device.handedOutChangeNumber
    if let problem = device.boot(wall: wall, secret: Self.secret) {
      return fail("the \(kind) could not restart\(cut ? " after a torn tail" : ""): \(problem)")
    }
    if device.bootKeptChangeNumbers { report.changeNumbersKept += 1 }
    if device.state.lastChangeNumber < handedOut {
      fail(
        "the \(kind)'s change numbers went back from \(handedOut) to \(device.state.lastChangeNumber) after a "
          + "crash\(cut ? " with a torn tail" : ""): its next change would reuse a number an anchor covers")
    }
  }

  /// Whether both devices applied everything the other logged (the only time a torn tail loses nothing).
  var isSynced: Bool {
    phone.state.sync.appliedFromPeer == watch.state.sync.lastSeq
      && watch.state.sync.appliedFromPeer == phone.state.sync.lastSeq
      && phone.state.sync.peerLogID == watch.state.sync.logID && watch.state.sync.peerLogID == phone.state.sync.logID
  }

  // MARK: - Healing and invariants

  private mutating func heal() {
    network.partitioned = false
    for device in [phone, watch] {
      for command: LinkCommand in [.connect, .release, .latency(0)] { _ = request(device, .link(command)) }
    }
    var rounds = 0
    while rounds < 100_000 && report.failure == nil {
      rounds += 1
      if phone.core.peer.machine.isConnected && watch.core.peer.machine.isConnected
        && phone.core.peer.machine.isVerified
        && watch.core.peer.machine.isVerified && network.isEmpty
      {
        return
      }
      guard let next = nextEventTime() else {
        if watch.transport == nil && watch.reconnectAt == nil { _ = request(watch, .link(.reconnectNow)) }
        if nextEventTime() == nil { return fail("healed, but the pair went quiet before it was verified") }
        continue
      }
      now = max(now, next)
      runDue()
    }
    if report.failure == nil { fail("healed, but the pair did not converge within 100,000 events") }
  }

  private mutating func check() {
    // The watch keeps only its window (W4, W6, W7, W9): it must hold exactly the phone's samples that end inside it.
    let watchFloor = watch.state.earliestPermittedSampleDate(wall: wall)
    let phoneSamples = Self.liveSamples(phone.state, wall: wall)
    let watchSamples = Self.liveSamples(watch.state, wall: wall)
    let phoneInWindow = phoneSamples.filter { $0.end >= watchFloor }
    report.storedSamples = phoneSamples.count
    let phoneSet = Set(phoneSamples.map(\.uuid))
    let watchSet = Set(watchSamples.map(\.uuid))
    let inWindow = Set(phoneInWindow.map(\.uuid))
    for (name, samples, set) in [("phone", phoneSamples, phoneSet), ("watch", watchSamples, watchSet)]
    where set.count != samples.count {
      return fail("a UUID is stored twice on the \(name)")
    }
    for uuid in savedOrder where !deleted.contains(uuid) {
      if !phoneSet.contains(uuid) || (inWindow.contains(uuid) && !watchSet.contains(uuid)) {
        return fail(
          "an acknowledged sample (\(uuid)) saved on the \(saved[uuid]!) is missing on the "
            + (phoneSet.contains(uuid) ? "watch" : "phone"))
      }
    }
    for uuid in deleted where phoneSet.contains(uuid) || watchSet.contains(uuid) {
      return fail("an acknowledged deletion (\(uuid)) is still stored")
    }
    if inWindow != watchSet {
      return fail("the stores differ in \(inWindow.symmetricDifference(watchSet).count) samples of the watch's window")
    }
    if Set(phone.state.storedTombstones.map(\.uuid)) != Set(watch.state.storedTombstones.map(\.uuid)) {
      return fail("the deletions did not converge")
    }
    if phoneInWindow != watchSamples { return fail("the stores hold the same samples with different contents") }
    for device in [phone, watch] {
      if let difference = device.replayDifference(wall: wall) { return fail("the \(device.kind): \(difference)") }
    }
  }

  /// The samples ``DeviceState/storedSamples(type:wall:)`` returns, in identifier order: comparing two stores needs
  /// one order, not the stored one, and sorting slot indexes by their identifiers' bits costs far less than sorting
  /// the samples themselves.
  static func liveSamples(_ state: DeviceState, wall: Date) -> [Sample] {
    let floor = state.earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    var keys: [(high: UInt64, low: UInt64, index: Int)] = []
    keys.reserveCapacity(state.store.liveCount)
    state.store.slots.withUnsafeBufferPointer { slots in
      for index in slots.indices where slots[index].live && slots[index].end >= floor {
        withUnsafeBytes(of: slots[index].uuid.uuid) { bytes in
          keys.append(
            (
              UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
              UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)), index
            ))
        }
      }
    }
    keys.sort { ($0.high, $0.low) < ($1.high, $1.low) }
    return keys.map { state.store.materialize($0.index) }
  }

  mutating func fail(_ message: String) {
    if report.failure == nil { report.failure = "step \(report.steps), t=\(formatNumber(now)) s: \(message)" }
  }
}
