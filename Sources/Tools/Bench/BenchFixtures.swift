import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Journal
import Posix
import Wire

/// The app every benchmark writes as.
let benchApp = AppRecord(
  bundleID: "com.example.bench", displayName: "Bench", writeUsageDescription: "bench", readUsageDescription: "bench")
/// The type the bench samples are (`dietaryWater`).
let water = SampleType.lookup(name: "dietaryWater")!
/// The bench devices' clock: every bench sample lies before it.
let benchStart = parseDate("2026-01-05T08:00:00Z")!

/// The i-th of `total` bench samples: water, evenly spread over the `spread` seconds before the bench start.
func sample(_ i: Int, of total: Int = 1_000_000, spread: Double = 86400) -> SampleInput {
  var rng = SeededGenerator(seed: UInt64(i) &+ 1)
  let at = benchStart.addingTimeInterval(-Double(i % max(total, 1)) * spread / Double(max(total, 1)))
  return SampleInput(
    uuid: rng.uuid(), type: water, value: .quantity(Double(100 + i % 400), unit: "mL"), start: at, end: at)
}

/// A pair prepared for writing `types` (water unless told) as the bench app on both devices.
func preparedPair(daemon: String, types: [SampleType] = [water]) throws -> Pair {
  var options = LaunchOptions()
  options.logLevel = "warning"
  let pair = try Pair(daemon: daemon, options: options)
  for client in [pair.phone, pair.watch] {
    try client.setClock(benchStart)
    try client.installApp(benchApp)
    let ticket = try client.beginAuthorization(benchApp.bundleID, share: types, read: types)
    _ = try ticket.waitFirst(timeout: 10)
    try client.answerPrompt(.allowAll)
    _ = try ticket.wait(timeout: 10)
  }
  return pair
}

/// Spawns a stand-alone phone daemon in `dir` and waits for its ready line.
func startDaemon(daemon: String, dir: String, forked: Bool = true) throws -> DaemonProcess {
  var options = LaunchOptions()
  options.useZygote = forked
  options.logLevel = "warning"
  options.readyTimeout = 60
  // No peer: the start measured is the device itself.
  try Posix.makeDirectory(dir, mode: 0o700)
  let layout = PairLayout(root: dir)
  try Posix.writeFileAtomically(layout.pairingKey, Array("0123456789abcdef0123456789abcdef".utf8))
  return try DaemonProcess.start(.phone, layout: layout, daemon: daemon, options: options)
}

/// The time zone of the bench's phone: daily intervals follow its calendar (23- and 25-hour days in a year).
let benchZone = try! TimeZoneRule(identifier: "Europe/Paris")

/// A phone journal at `path` and a watch state (no retention) set up alike for the store benchmarks: the phone in
/// ``benchZone``, both clocks at ``benchStart``, the bench app installed on both.
func benchDevices(phoneJournal path: String) throws -> (phone: DurableDevice, watch: DeviceState) {
  let phone = try DurableDevice(path: path, device: .phone)
  var watch = DeviceState(device: .watch, policy: DevicePolicy(reprompt: .standard, retention: nil))
  var policy = phone.state.policy
  policy.timeZone = benchZone
  try phone.persist(phone.state.setPolicy(policy))
  try phone.persist(phone.state.setClock(benchStart))
  try phone.persist(phone.state.install(benchApp))
  _ = try watch.setClock(benchStart)
  _ = try watch.install(benchApp)
  return (phone, watch)
}

/// Writes a phone journal in-process: the bench app granted water, `samples` water samples over a year in
/// 4,096-sample saves, everything acknowledged by the watch. Returns the open device.
func writeWaterStore(_ journal: String, samples: Int) throws -> DurableDevice {
  let device = try DurableDevice(path: journal, device: .phone)
  var policy = device.state.policy
  policy.timeZone = benchZone
  try device.persist(device.state.setPolicy(policy))
  try device.persist(device.state.setClock(benchStart))
  try device.persist(device.state.install(benchApp))
  let outcome = try device.state.requestAuthorization(
    benchApp.bundleID, share: [water], read: [water], wall: benchStart)
  guard case .prompt(let p) = outcome else { throw PairError.timeout("a sheet") }
  try device.persist(device.state.answerPrompt(id: p.id, bundleID: nil, answer: .allowAll).events)
  var i = 0
  while i < samples {
    let n = min(4096, samples - i)
    let batch = (i..<i + n).map { sample($0, of: samples, spread: 365 * 86400) }
    try device.persist(device.state.save(benchApp.bundleID, batch, wall: benchStart))
    i += n
  }
  try device.persist(device.state.receivePeerAck(device.state.sync.lastSeq))
  return device
}
