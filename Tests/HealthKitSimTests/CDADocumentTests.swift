import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// CDA documents as health-records apps save and read them (iOS 10), against a real pair (behavior.md O1–O4).
@Suite("CDA documents, against real daemons")
struct CDADocumentTests {
  static let clinic = "com.example.clinic"
  static let reader = "com.example.reader"
  static let type = HKDocumentType(.CDA)

  static func xml(title: String, custodian: Bool = true, time: String = "20260105073000+0100") -> Data {
    let custodianElement =
      custodian
      ? "<custodian><assignedCustodian><representedCustodianOrganization><name>Cupertino &amp; Co Clinic</name>"
        + "</representedCustodianOrganization></assignedCustodian></custodian>" : ""
    return Data(
      """
      <?xml version="1.0"?>
      <ClinicalDocument xmlns="urn:hl7-org:v3"><typeId root="2.16.840.1.113883.1.3" extension="POCD_HD000040"/>
      <id root="1.2.3"/><code code="34133-9"/><title>\(title)</title><effectiveTime value="\(time)"/>
      <confidentialityCode code="N"/>
      <recordTarget><patientRole><patient><name><given>Johnny</given><family>A.</family></name>
      <name use="L"><given>Jane</given><given>Q</given><family>Appleseed</family></name></patient></patientRole>
      </recordTarget>
      <author><assignedAuthor><assignedPerson><name><given>Anna</given><family>Ortiz</family></name></assignedPerson>
      </assignedAuthor></author>\(custodianElement)<component><structuredBody/></component></ClinicalDocument>
      """.utf8)
  }

  @Test func aDocumentIsValidatedAndItsHeaderRead() throws {
    let sample = try HKCDADocumentSample(
      data: Self.xml(title: "Discharge summary"), start: t0, end: t0, metadata: nil)
    #expect(sample.document?.title == "Discharge summary")
    #expect(sample.document?.patientName == "Jane Q Appleseed", "the legal name is preferred")
    #expect(sample.document?.authorName == "Anna Ortiz")
    #expect(sample.document?.custodianName == "Cupertino & Co Clinic")
    let effective = Date(timeIntervalSinceReferenceDate: 789_287_400)  // 2026-01-05 06:30 UTC
    #expect(sample.startDate == effective && sample.endDate == effective, "the effectiveTime wins over the dates")
    #expect(sample.documentType == Self.type)
    #expect(Self.type.requiresPerObjectAuthorization())
    do {
      _ = try HKCDADocumentSample(data: Self.xml(title: "x", custodian: false), start: t0, end: t0, metadata: nil)
      Issue.record("a document without its custodian was accepted")
    } catch let error as HKError {
      #expect(error.code == .errorInvalidArgument)
      let detail = error.userInfo[HKDetailedCDAValidationErrorKey] as? String
      #expect(detail?.contains("custodian") == true)
    }
    #expect(throws: HKError.self) {
      try HKCDADocumentSample(data: Data("<ClinicalDocument>".utf8), start: t0, end: t0, metadata: nil)
    }
  }

  @Test func aDocumentQueryAsksOnceAndReturnsWhatTheUserTurnedOn() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let phone = pair.phone
      try phone.install(app: Self.clinic, writeUsage: "Saves your records.", readUsage: "Shows them.")
      try phone.install(app: Self.reader, readUsage: "Shows your records.")
      let saved = try await phone.use(app: Self.clinic) {
        try await phone.authorize(Self.clinic, share: [Self.type], read: [Self.type])
        let store = HKHealthStore()
        let first = try HKCDADocumentSample(data: Self.xml(title: "Discharge"), start: t0, end: t0, metadata: nil)
        let second = try HKCDADocumentSample(
          data: Self.xml(title: "Labs", time: "20260105080000+0000"), start: t0, end: t0, metadata: ["ward": "3B"])
        try await store.save([first, second])
        let own = try await Self.documents(store, includeData: true)
        #expect(own.map { $0.document?.title } == ["Discharge", "Labs"], "the saving app reads its own, unasked")
        #expect(own.first?.document?.documentData != nil)
        return [first.uuid, second.uuid]
      }
      try await phone.use(app: Self.reader) {
        let store = HKHealthStore()
        async let found = Self.documents(store, includeData: false)
        let sheet = try await phone.user.waitForSheet(app: Self.reader)
        #expect(sheet.objects == saved)
        try await phone.user.choose(objects: [saved[1]])
        let read = try await found
        #expect(read.map(\.uuid) == [saved[1]])
        #expect(read.first?.document?.title == "Labs" && read.first?.document?.documentData == nil)
        #expect(read.first?.metadata?["ward"] as? String == "3B")
        // Both have an answer: no sheet, the same document; a sample query carries no document.
        #expect(try await Self.documents(store, includeData: true).map(\.uuid) == [saved[1]])
        let samples = try await HKSampleQueryDescriptor(
          predicates: [.sample(type: Self.type)], sortDescriptors: []
        ).result(for: store)
        #expect(samples.count == 1 && (samples.first as? HKCDADocumentSample)?.document == nil)
        let titled = NSPredicate(format: "%K == %@", HKPredicateKeyPathCDATitle, "Discharge")
        #expect(try await Self.documents(store, includeData: false, predicate: titled).isEmpty)
      }
    }
  }

  /// Runs an `HKDocumentQuery` and gathers its batches.
  static func documents(_ store: HKHealthStore, includeData: Bool, predicate: NSPredicate? = nil) async throws
    -> [HKCDADocumentSample]
  {
    let gathered = Gathered()
    return try await withCheckedThrowingContinuation { done in
      store.execute(
        HKDocumentQuery(
          documentType: type, predicate: predicate, limit: HKObjectQueryNoLimit,
          sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)],
          includeDocumentData: includeData
        ) { _, results, finished, error in
          if let error { return done.resume(throwing: error) }
          let all = gathered.add(results?.compactMap { $0 as? HKCDADocumentSample } ?? [])
          if finished { done.resume(returning: all) }
        })
    }
  }

  final class Gathered: @unchecked Sendable {
    private let lock = NSLock()
    private var documents: [HKCDADocumentSample] = []
    func add(_ more: [HKCDADocumentSample]) -> [HKCDADocumentSample] {
      lock.withLock {
        documents += more
        return documents
      }
    }
  }
}
