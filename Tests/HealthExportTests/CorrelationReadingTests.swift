import Testing

@testable import HealthExport
@testable import HealthModel

@Suite("Correlations in an export")
struct CorrelationReadingTests {
  static func record(_ type: String, unit: String, value: String) -> String {
    "  <Record type=\"\(type)\" sourceName=\"Health\" unit=\"\(unit)\" startDate=\"2026-01-01 08:00:00 +0000\" "
      + "endDate=\"2026-01-01 08:00:00 +0000\" value=\"\(value)\"/>\n"
  }

  static func bloodPressure(_ records: String) -> String {
    "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"Health\" "
      + "startDate=\"2026-01-01 08:00:00 +0000\" endDate=\"2026-01-01 08:00:00 +0000\">\n" + records
      + "</Correlation>"
  }

  static let systolic = record("HKQuantityTypeIdentifierBloodPressureSystolic", unit: "mmHg", value: "120")
  static let diastolic = record("HKQuantityTypeIdentifierBloodPressureDiastolic", unit: "mmHg", value: "80")

  @Test("a blood pressure with both records is a correlation of its two members, handed out as samples")
  func aCompleteCorrelationIsRead() throws {
    let (samples, summary) = try readAll(export(Self.bloodPressure(Self.systolic + Self.diastolic)))
    #expect(samples.count == 2)
    #expect(summary.correlations.count == 1)
    #expect(summary.correlations.first.map { Set($0.members) } == Set(samples.map(\.uuid)))
    #expect(summary.skippedElements["Correlation"] == nil)
  }

  @Test("one whose records do not make a correlation is skipped and reported by type, its records with it")
  func anIncompleteCorrelationIsSkippedWithItsRecords() throws {
    let (samples, summary) = try readAll(export(Self.bloodPressure(Self.systolic)))
    #expect(samples.isEmpty)
    #expect(summary.correlations.isEmpty)
    #expect(summary.skippedElements["Correlation"]?["HKCorrelationTypeIdentifierBloodPressure"] == 1)
  }
}
