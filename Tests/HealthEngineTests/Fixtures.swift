import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

let water = SampleType.lookup(name: "dietaryWater")!
let steps = SampleType.lookup(name: "stepCount")!
let heartRate = SampleType.lookup(name: "heartRate")!
let bodyMass = SampleType.lookup(name: "bodyMass")!
let mindful = SampleType.lookup(name: "mindfulSession")!
let exercise = SampleType.lookup(name: "appleExerciseTime")!
let standHour = SampleType.lookup(name: "appleStandHour")!
let bloodPressure = SampleType.lookup(name: "bloodPressure")!

let t0 = parseDate("2026-01-05T08:00:00Z")!
let waterApp = AppRecord(
  bundleID: "com.example.water", displayName: "Water", writeUsageDescription: "Water logs what you drink.",
  readUsageDescription: "Water shows today's total.")
let returnApp = AppRecord(
  bundleID: "com.example.return", displayName: "Return", writeUsageDescription: "Return saves mindful minutes.",
  readUsageDescription: nil)

/// A device with a fixed virtual clock and the two article apps installed.
func makeDevice(_ kind: DeviceKind = .phone, apps: [AppRecord] = [waterApp, returnApp]) -> DeviceState {
  var device = DeviceState(device: kind)
  _ = try! device.setClock(t0)
  for app in apps { _ = try! device.install(app) }
  return device
}

func waterInput(_ mL: Double, at date: Date = t0, uuid: UUID = UUID()) -> SampleInput {
  SampleInput(uuid: uuid, type: water, value: .quantity(mL, unit: "mL"), start: date, end: date)
}

func mindfulInput(minutes: Double, at date: Date = t0, uuid: UUID = UUID()) -> SampleInput {
  SampleInput(uuid: uuid, type: mindful, value: .category(0), start: date, end: date.addingTimeInterval(minutes * 60))
}

extension DeviceState {
  /// Requests and answers in one go; returns the prompt that was shown, if any.
  @discardableResult
  mutating func grant(
    _ app: String, share: Set<SampleType> = [], read: Set<SampleType> = [], answer: PromptAnswer = .allowAll
  ) throws -> Prompt? {
    switch try requestAuthorization(app, share: share, read: read, wall: t0) {
    case .completed: return nil
    case .prompt(let prompt):
      _ = try answerPrompt(id: prompt.id, bundleID: nil, answer: answer)
      return prompt
    }
  }

  mutating func waterTotal(_ app: String) throws -> Double {
    try sampleQuery(app, SampleQuery(type: water), wall: t0).reduce(0) { $0 + ($1.quantityValue ?? 0) }
  }
}

func expectError(
  _ code: HealthErrorCode, kind: HealthError.Kind = .healthKit, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record("expected \(code)", sourceLocation: sourceLocation)
  } catch let error as HealthError {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
  } catch {
    Issue.record("expected a HealthError, got \(error)", sourceLocation: sourceLocation)
  }
}
