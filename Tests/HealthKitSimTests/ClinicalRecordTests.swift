import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Health Records as published readers use them (HealthKitReporter: `displayName`, `fhirResource`'s data, source URL
/// and version), against a real pair (behavior.md F1–F3).
@Suite("Clinical records, against real daemons")
struct ClinicalRecordTests {
  static let app = "com.example.records"
  static let allergies = HKClinicalType(.allergyRecord)
  static let labs = HKClinicalType(.labResultRecord)

  static func install(_ device: HealthDevice) throws {
    try device.install(
      app: app, name: "Records", healthRecordsUsage: "Shows your records.", entitlements: [.healthRecords])
  }

  static func records(_ device: HealthDevice, _ type: HKClinicalType, _ predicate: NSPredicate? = nil) async throws
    -> [HKClinicalRecord]
  {
    try await device.use(app: app) {
      try await HKSampleQueryDescriptor(predicates: [.sample(type: type, predicate: predicate)], sortDescriptors: [])
        .result(for: HKHealthStore())
        .compactMap { $0 as? HKClinicalRecord }
    }
  }

  @Test func aProvidersRecordsReadBackWithTheirFHIRResource() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try Self.install(pair.phone)
      let penicillin = try pair.phone.receiveClinicalRecord(
        .allergyRecord, displayName: "Penicillin", resourceType: .allergyIntolerance, provider: "Cedar Clinic",
        sourceURL: URL(string: "https://fhir.example.org/AllergyIntolerance/1"), date: t0 - 86_400)
      try pair.phone.receiveClinicalRecord(
        .labResultRecord, displayName: "Hemoglobin A1c", resourceType: .observation, fhirVersion: "1.0.2")
      try await pair.phone.authorize(Self.app, read: [Self.allergies, Self.labs])
      #expect(HKHealthStore().supportsHealthRecords())
      let found = try await Self.records(pair.phone, Self.allergies)
      #expect(found.map(\.uuid) == [penicillin])
      let record = try #require(found.first)
      #expect(record.displayName == "Penicillin")
      #expect(record.clinicalType == Self.allergies)
      #expect(record.sourceRevision.source.name == "Cedar Clinic")
      #expect(record.fhirResource?.resourceType == .allergyIntolerance)
      #expect(record.fhirResource?.fhirVersion.fhirRelease == .r4)
      #expect(record.fhirResource?.sourceURL?.absoluteString == "https://fhir.example.org/AllergyIntolerance/1")
      let json = try JSONSerialization.jsonObject(with: try #require(record.fhirResource?.data)) as? [String: Any]
      #expect(json?["resourceType"] as? String == "AllergyIntolerance")
      let lab = try await Self.records(
        pair.phone, Self.labs, HKQuery.predicateForClinicalRecords(withFHIRResourceType: .observation))
      #expect(lab.first?.fhirResource?.fhirVersion.fhirRelease == .dstu2)
      #expect(
        try await Self.records(
          pair.phone, Self.labs, HKQuery.predicateForClinicalRecords(withFHIRResourceType: .condition)
        ).isEmpty)
    }
  }

  @Test func theWatchKeepsNoRecordsAndADeniedReadSeesNone() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try Self.install(pair.phone)
      #expect(throws: HealthPairTestingError.self) {
        try pair.watch.receiveClinicalRecord(.vitalSignRecord, displayName: "Pulse", resourceType: .observation)
      }
      #expect(throws: HealthPairTestingError.self) {
        try pair.phone.receiveClinicalRecord(
          .vitalSignRecord, displayName: "Pulse", resourceType: HKFHIRResourceType(rawValue: "Patient"))
      }
      try pair.phone.receiveClinicalRecord(.allergyRecord, displayName: "Latex", resourceType: .allergyIntolerance)
      try await pair.phone.authorize(Self.app, read: [Self.allergies]) { try await $0.dontAllow() }
      #expect(try await Self.records(pair.phone, Self.allergies).isEmpty)
      try await pair.waitForSync()
      try pair.watch.install(
        app: Self.app, name: "Records", healthRecordsUsage: "r", entitlements: [.healthRecords])
      try await pair.watch.authorize(Self.app, read: [Self.allergies])
      #expect(try await Self.records(pair.watch, Self.allergies).isEmpty, "records stay on the iPhone")
    }
  }

  @Test func anAppsRequiredRecordTypesAllGrantedOrItsRequestFailsWithCode10() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let conditions = HKClinicalType(.conditionRecord)
      let chart = "com.example.chart"
      try pair.phone.install(
        app: chart, name: "Chart", healthRecordsUsage: "Charts your records.",
        requiredHealthRecordTypes: [HKClinicalTypeIdentifier.allergyRecord, .conditionRecord, .labResultRecord]
          .map(\.rawValue),
        entitlements: [.healthRecords])
      try pair.phone.receiveClinicalRecord(.allergyRecord, displayName: "Latex", resourceType: .allergyIntolerance)
      let error = await #expect(throws: HKError.self) {
        try await pair.phone.authorize(chart, read: [Self.allergies, conditions, Self.labs]) {
          try await $0.choose(read: [Self.allergies, conditions])
        }
      }
      #expect(error?.code == .errorRequiredAuthorizationDenied)
      let found = try await pair.phone.use(app: chart) {
        try await HKSampleQueryDescriptor(predicates: [.sample(type: Self.allergies)], sortDescriptors: [])
          .result(for: HKHealthStore())
      }
      #expect(found.count == 1, "the types the user granted stay granted")
    }
  }

  @Test func aClinicalReadWithoutTheRecordsUsageDescriptionIsRefusedAsATermination() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(app: Self.app, name: "Records", readUsage: "r", entitlements: [.healthRecords])
      let termination = await #expect(throws: HKSimulatedTermination.self) {
        try await pair.phone.use(app: Self.app) {
          try await HKHealthStore().requestAuthorization(toShare: [], read: [Self.allergies])
        }
      }
      #expect(termination?.reason.hasPrefix("NSHealthClinicalHealthRecordsShareUsageDescription must be set") == true)
      #expect(try pair.phone.sheets().isEmpty)
    }
  }

  @Test func recordsAndOtherTypesInOneRequestAreTwoSheetsTheHealthRecordsOneFirst() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(
        app: Self.app, name: "Records", readUsage: "Shows your steps.", healthRecordsUsage: "Shows your records.",
        entitlements: [.healthRecords])
      try await pair.phone.use(app: Self.app) {
        async let request: Void = HKHealthStore().requestAuthorization(toShare: [], read: [Self.allergies, stepsType])
        let records = try await pair.phone.user.waitForSheet(app: Self.app)
        #expect(records.isHealthRecords && records.read == [Self.allergies])
        #expect("\(records)".hasPrefix("Health Records sheet"))
        try await pair.phone.user.allowAll(app: Self.app)
        let health = try await pair.phone.user.waitForSheet(app: Self.app)
        #expect(!health.isHealthRecords && health.read == [stepsType])
        try await pair.phone.user.dontAllow(app: Self.app)
        try await request
      }
      #expect(try pair.phone.decision(app: Self.app, read: Self.allergies) == .authorized)
      #expect(try pair.phone.decision(app: Self.app, read: stepsType) == .denied)
    }
  }
}
