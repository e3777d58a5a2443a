import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Journal
import Posix

/// `healthpair demo`: a short, real run of the engine — two journaled devices in a temporary directory playing
/// the article's story — printed step by step. It needs no daemons.
package struct DemoCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "demo", abstract: "Play the article's story against the engine (two journaled devices, no daemons).",
    usage: "demo [--keep]",
    discussion: "OPTIONS:\n  --keep    Keep the temporary directory with the two journals and print its path.")

  var keep = false

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    keep = args.flag("keep")
    try args.finish()
  }

  /// Runs the demonstration; returns the exit status.
  package func run() throws -> Int32 {
    let dir = try Posix.makeTemporaryDirectory(prefix: "healthpair-demo")
    let removal = keep ? nil : Interruption.onInterrupt { Posix.removeTree(dir) }
    defer {
      removal.map(Interruption.cancel)
      if !keep { Posix.removeTree(dir) }
    }
    let wall = Date(timeIntervalSince1970: Posix.wallClockSeconds())
    let start = parseDate("2026-01-05T08:00:00Z")!
    var phone: DurableDevice? = try DurableDevice(path: dir + "/phone.journal", device: .phone)
    let watch = try DurableDevice(path: dir + "/watch.journal", device: .watch)
    let water = SampleType.lookup(name: "dietaryWater")!
    let mindful = SampleType.lookup(name: "mindfulSession")!
    let waterApp = AppRecord(
      bundleID: "com.example.water", displayName: "Water", writeUsageDescription: "Water logs what you drink.",
      readUsageDescription: "Water shows today's total.")
    let returnApp = AppRecord(
      bundleID: "com.example.return", displayName: "Return",
      writeUsageDescription: "Return saves your sessions as Mindful Minutes.", readUsageDescription: nil)

    func step(_ text: String) { out("• \(text)\n") }
    func apply(_ device: DurableDevice, _ events: [DeviceEvent]) throws { try device.persist(events) }

    out("HealthPair engine demo (journals in \(dir))\n\n")
    for device in [phone!, watch] {
      try apply(device, device.state.setClock(start))
      try apply(device, device.state.install(waterApp))
      try apply(device, device.state.install(returnApp))
    }
    step("Water and Return are installed on the phone and the watch; the clock reads \(formatDate(start)).")

    // Water asks for read + write; the user allows writing only.
    guard
      case .prompt(let sheet) = try phone!.state.requestAuthorization(
        waterApp.bundleID, share: [water], read: [water], wall: wall)
    else { throw DemoError.unexpected("expected a permission sheet") }
    step(
      "phone: Water requests share+read dietaryWater → a sheet lists \(sheet.permissions.map(\.description).joined(separator: ", "))."
    )
    let answered = try phone!.state.answerPrompt(
      id: sheet.id, bundleID: nil, answer: .choices([Permission(water, .share): true, Permission(water, .read): false]))
    try apply(phone!, answered.events)
    step(
      "user on phone: allows writing, turns reading off → the call returns success = \(answered.completions[0].result.success)."
    )
    step(
      "phone: Water's authorizationStatus(dietaryWater) = \(try phone!.state.authorizationStatus(waterApp.bundleID, water)) (the read decision stays hidden)."
    )

    let drink = SampleInput(
      uuid: UUID(), type: water, value: .quantity(1, unit: "cup_us"), start: start, end: start,
      metadata: [MetadataKey.wasUserEntered: .bool(true)])
    try apply(phone!, phone!.state.save(waterApp.bundleID, [drink], wall: wall))
    step("phone: Water saves 1 cup_us of water (stored as 236.588 mL).")

    // Return on the watch: the user taps Don't Allow; the watch locks it out.
    guard
      case .prompt = try watch.state.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: wall)
    else { throw DemoError.unexpected("expected a permission sheet") }
    let denied = try watch.state.answerPrompt(id: nil, bundleID: nil, answer: .denyAll)
    try apply(watch, denied.events)
    step(
      "user on watch: Don't Allow for Return → success = \(denied.completions[0].result.success), status = \(try watch.state.authorizationStatus(returnApp.bundleID, mindful))."
    )
    let again = try watch.state.requestAuthorization(returnApp.bundleID, share: [mindful], read: [], wall: wall)
    step(
      "watch: Return asks again → \(again == .completed(.succeeded) ? "no sheet, success (HealthPair's strict watch model)" : "a sheet")"
    )

    // Fixed from the iPhone's Watch app: the change crosses the link.
    try apply(phone!, phone!.state.queueWatchSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: true)))
    try apply(watch, watch.state.receivePeerEntries(phone!.state.outboundEntries(after: 0, maxItems: 1000), wall: wall))
    step(
      "user on phone: Watch app → Return → Mindful Minutes on → the watch now reports \(try watch.state.authorizationStatus(returnApp.bundleID, mindful))."
    )

    let session = SampleInput(
      uuid: UUID(), type: mindful, value: .category(0), start: start, end: start.addingTimeInterval(600))
    try apply(watch, watch.state.save(returnApp.bundleID, [session], wall: wall))
    try apply(
      phone!, phone!.state.receivePeerEntries(watch.state.outboundEntries(after: 0, maxItems: 1000), wall: wall))
    step("watch: Return saves a 10-minute session; sync delivers it to the phone with its UUID, app and device.")
    step(
      "phone: Return's own authorizationStatus(mindfulSession) = \(try phone!.state.authorizationStatus(returnApp.bundleID, mindful)) (authorization never syncs)."
    )

    // Durability: close and reopen the phone's journal.
    phone = nil
    let reopened = try DurableDevice(path: dir + "/phone.journal", device: .phone)
    let snapshot = reopened.state.snapshot(wall: wall)
    step(
      "phone journal reopened: \(reopened.recovery.records) records replayed → \(snapshot.totalSamples) samples, "
        + "\(snapshot.apps.count) apps, Water share = \(try reopened.state.authorizationStatus(waterApp.bundleID, water))."
    )
    out("\nRun 'make test' for the full suite.\n")
    if keep { out("Kept \(dir)\n") }
    return 0
  }
}

enum DemoError: Error, CustomStringConvertible {
  case unexpected(String)
  var description: String {
    switch self {
    case .unexpected(let s): "demo: \(s)"
    }
  }
}
