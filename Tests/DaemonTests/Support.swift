import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import Posix
@testable import Wire

let water = SampleType.lookup(name: "dietaryWater")!
let mindful = SampleType.lookup(name: "mindfulSession")!
let steps = SampleType.lookup(name: "stepCount")!
let t0 = parseDate("2026-01-05T08:00:00Z")!
let waterApp = AppRecord(
  bundleID: "com.example.water", displayName: "Water", writeUsageDescription: "Water logs what you drink.",
  readUsageDescription: "Water shows today's total.")
let returnApp = AppRecord(
  bundleID: "com.example.return", displayName: "Return", writeUsageDescription: "Return saves mindful minutes.",
  readUsageDescription: nil)

/// Launches a fresh pair with the clock at t0 and both apps installed on both devices; always torn down.
func withPair<T>(_ body: (Pair) throws -> T) throws -> T {
  let pair = try Pair()
  defer { pair.shutdown() }
  for client in [pair.phone, pair.watch] {
    try client.setClock(t0)
    try client.installApp(waterApp)
    try client.installApp(returnApp)
  }
  return try body(pair)
}

/// Requests authorization and answers the sheet that must appear.
func grant(_ client: DeviceClient, _ app: String, share: [SampleType], read: [SampleType] = [], answer: PromptAnswer = .allowAll) throws {
  let ticket = try client.beginAuthorization(app, share: share, read: read)
  guard case .interim(.prompt) = try ticket.waitFirst(timeout: 10) else {
    Issue.record("expected a sheet")
    return
  }
  try client.answerPrompt(answer)
  _ = try ticket.wait(timeout: 10)
}

func waterSample(_ mL: Double, at date: Date = t0, uuid: UUID = UUID()) -> SampleInput {
  SampleInput(uuid: uuid, type: water, value: .quantity(mL, unit: "mL"), start: date, end: date)
}

func mindfulSample(minutes: Double, at date: Date = t0, uuid: UUID = UUID()) -> SampleInput {
  SampleInput(uuid: uuid, type: mindful, value: .category(0), start: date, end: date.addingTimeInterval(minutes * 60))
}
