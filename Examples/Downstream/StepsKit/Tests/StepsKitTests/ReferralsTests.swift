#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  func referral(_ title: String, hour: Int) -> Data {
    Data(
      """
      <ClinicalDocument xmlns="urn:hl7-org:v3"><typeId root="2.16.840.1.113883.1.3"/><id root="1"/>
      <code code="57133-1"/><title>\(title)</title><effectiveTime value="202601050\(hour)0000+0000"/>
      <confidentialityCode code="N"/><recordTarget><patientRole><patient><name><given>Jane</given>
      <family>Appleseed</family></name></patient></patientRole></recordTarget><author><assignedAuthor>
      <assignedPerson><name><given>Anna</given><family>Ortiz</family></name></assignedPerson></assignedAuthor>
      </author><custodian><assignedCustodian><representedCustodianOrganization><name>Clinic</name>
      </representedCustodianOrganization></assignedCustodian></custodian><component/></ClinicalDocument>
      """.utf8)
  }

  @Test func aPatientAppListsOnlyTheReferralsTheUserLetsItRead() async throws {
    let now = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: now)) { pair in
      let referrals = Referrals()
      try pair.phone.install(app: "com.example.clinic", writeUsage: "Saves letters.", readUsage: "Lists them.")
      try pair.phone.install(app: "com.example.patient", readUsage: "Lists your letters.")
      let own = try await pair.phone.use(app: "com.example.clinic") {
        async let asked: Void = referrals.requestAccess()
        try await pair.phone.user.allowAll()
        try await asked
        try await referrals.save(referral("Cardiology referral", hour: 8), on: now)
        try await referrals.save(referral("Dermatology referral", hour: 9), on: now)
        return try await referrals.titles()
      }
      #expect(own == ["Cardiology referral", "Dermatology referral"])
      let listed = try await pair.phone.use(app: "com.example.patient") {
        async let titles = referrals.titles()
        let sheet = try await pair.phone.user.waitForSheet(app: "com.example.patient")
        try await pair.phone.user.choose(objects: [sheet.objects![0]])
        return try await titles
      }
      #expect(listed.count == 1)
    }
  }
#endif
