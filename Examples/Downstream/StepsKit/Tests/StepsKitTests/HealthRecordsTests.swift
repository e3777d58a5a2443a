#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  let chartID = "com.example.chart"
  let requiredRecords = [HKClinicalTypeIdentifier.allergyRecord, .conditionRecord, .labResultRecord].map(\.rawValue)

  @Test func aPatientAppListsItsRecordsAfterOneSheet() async throws {
    try await withHealthPair(HealthPairOptions(clock: Date(timeIntervalSince1970: 1_767_600_000))) { pair in
      try pair.phone.install(
        app: chartID, healthRecordsUsage: "Chart shows your records.", requiredHealthRecordTypes: requiredRecords,
        entitlements: [.healthRecords])
      try pair.phone.receiveClinicalRecord(
        .allergyRecord, displayName: "Penicillin", resourceType: .allergyIntolerance, provider: "Cedar Clinic")
      let reader = HealthRecordsReader()
      let items = try await pair.phone.use(app: chartID) {
        async let asked = reader.requestAuthorizationIfNeeded()
        try await pair.phone.user.allowAll()
        #expect(try await asked)
        #expect(try await !reader.requestAuthorizationIfNeeded(), "asked once, the system shows no sheet again")
        return try await reader.records(.allergyRecord)
      }
      #expect(items.map(\.title) == ["Penicillin"])
      #expect(items.first?.resourceType == "AllergyIntolerance")
    }
  }

  @Test func aDeniedRequiredTypeFailsTheRequestWithoutNamingIt() async throws {
    try await withHealthPair { pair in
      try pair.phone.install(
        app: chartID, healthRecordsUsage: "Chart shows your records.", requiredHealthRecordTypes: requiredRecords,
        entitlements: [.healthRecords])
      let reader = HealthRecordsReader()
      let error = await #expect(throws: HKError.self) {
        try await pair.phone.use(app: chartID) {
          async let asked = reader.requestAuthorizationIfNeeded()
          try await pair.phone.user.choose(
            read: [HKClinicalType(.allergyRecord), HKClinicalType(.conditionRecord), HKClinicalType(.medicationRecord)])
          _ = try await asked
        }
      }
      #expect(error?.code == .errorRequiredAuthorizationDenied)
    }
  }
#endif
