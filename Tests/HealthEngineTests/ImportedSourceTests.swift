import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// Imported sources in the statistics' de-duplication: a source is an app on a device, whatever an Apple Health
/// export said of its version and hardware (docs/behavior.md P1, I3).
@Suite struct ImportedSourceTests {
  /// The phone with an import of two overlapping step samples from Robin's Apple Watch, recorded under
  /// `firstVersion` and `secondVersion`, and the sum Walker reads.
  func sum(firstVersion: String, secondVersion: String) throws -> Double? {
    var phone = makeDevice(.phone, apps: [walker])
    _ = try phone.grant(walker.bundleID, read: [steps])
    func source(_ version: String) -> SampleSource {
      SampleSource(
        bundleID: "com.apple.health.5A1E0000-0000-4000-8000-000000000009", device: .watch,
        details: SourceDetails(
          name: "Robin’s Apple Watch", version: version,
          hardware: HardwareDetails(fields: [.init("model", "Watch"), .init("software", version)])))
    }
    let start = t0.addingTimeInterval(-7200)
    let samples = [
      Sample(
        uuid: UUID(), type: steps, value: .quantity(1000), start: start, end: start.addingTimeInterval(3600),
        source: source(firstVersion)),
      Sample(
        uuid: UUID(), type: steps, value: .quantity(1000), start: start.addingTimeInterval(1800),
        end: start.addingTimeInterval(5400), source: source(secondVersion)),
    ]
    _ = try phone.stageImport(1, samples)
    _ = try phone.commitImport(1, wall: t0)
    return try phone.statistics(walker.bundleID, StatisticsQuery(type: steps, options: .cumulativeSum), wall: t0).sum
  }

  @Test func versionsOfOneSourceAreOneSourceForDeDuplication() throws {
    let oneVersion = try sum(firstVersion: "11.2", secondVersion: "11.2")
    #expect(oneVersion == 2000, "one source's overlapping samples all count (P1)")
    #expect(try sum(firstVersion: "11.1", secondVersion: "11.2") == oneVersion, "a software update is not a new source")
  }
}
