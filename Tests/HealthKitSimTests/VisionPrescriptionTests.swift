import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Vision prescriptions as an optician's app saves them and another app reads them object by object (iOS 16),
/// against a real pair (behavior.md V1–V5).
@Suite("Vision prescriptions and per-object read authorization, against real daemons")
struct VisionPrescriptionTests {
  static let optician = "com.example.optician"
  static let reader = "com.example.reader"
  static let type = HKObjectType.visionPrescriptionType()

  static func install(_ device: HealthDevice) async throws {
    try device.install(app: optician, name: "Optician", writeUsage: "Saves prescriptions.", readUsage: "Shows them.")
    try device.install(app: reader, name: "Reader", readUsage: "Reads your prescriptions.")
    try await device.authorize(optician, share: [type])
  }

  static func glasses(issued: Date) -> HKGlassesPrescription {
    let d = HKUnit.diopter()
    let right = HKGlassesLensSpecification(
      sphere: HKQuantity(unit: d, doubleValue: -2.25), cylinder: HKQuantity(unit: d, doubleValue: -0.5),
      axis: HKQuantity(unit: .degreeAngle(), doubleValue: 90), addPower: nil,
      vertexDistance: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 12),
      prism: HKVisionPrism(
        amount: HKQuantity(unit: .prismDiopter(), doubleValue: 1),
        angle: HKQuantity(unit: .degreeAngle(), doubleValue: 90),
        eye: .right),
      farPupillaryDistance: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 32), nearPupillaryDistance: nil)
    let left = HKGlassesLensSpecification(
      sphere: HKQuantity(unit: d, doubleValue: -2), cylinder: nil, axis: nil, addPower: nil, vertexDistance: nil,
      prism: nil, farPupillaryDistance: nil, nearPupillaryDistance: nil)
    return HKGlassesPrescription(
      rightEyeSpecification: right, leftEyeSpecification: left, dateIssued: issued,
      expirationDate: issued + 2 * 365 * 86_400, device: nil,
      metadata: [HKMetadataKeyGlassesPrescriptionDescription: "Distance"])
  }

  static func contacts(issued: Date) -> HKContactsPrescription {
    let lens = HKContactsLensSpecification(
      sphere: HKQuantity(unit: .diopter(), doubleValue: -2.5), cylinder: nil, axis: nil, addPower: nil,
      baseCurve: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 8.6),
      diameter: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 14.2))
    return HKContactsPrescription(
      rightEyeSpecification: lens, leftEyeSpecification: lens, brand: "Acuvue", dateIssued: issued,
      expirationDate: nil, device: nil, metadata: nil)
  }

  static func read(_ device: HealthDevice, as app: String) async throws -> [HKVisionPrescription] {
    try await device.use(app: app) {
      try await HKSampleQueryDescriptor(
        predicates: [.visionPrescription()], sortDescriptors: [SortDescriptor(\.startDate)]
      ).result(for: HKHealthStore())
    }
  }

  @Test func theAppReadsItsOwnAndAnotherAppOnlyWhatTheUserTurnsOn() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.install(pair.phone)
      let glasses = Self.glasses(issued: t0 - 86_400 * 30)
      let contacts = Self.contacts(issued: t0 - 86_400)
      try await pair.phone.use(app: Self.optician) { try await HKHealthStore().save([glasses, contacts]) }
      let own = try await Self.read(pair.phone, as: Self.optician)
      #expect(own.map(\.uuid) == [glasses.uuid, contacts.uuid])
      let readGlasses = try #require(own.first as? HKGlassesPrescription)
      #expect(readGlasses.prescriptionType == .glasses && readGlasses.expirationDate == glasses.expirationDate)
      #expect(readGlasses.rightEye?.sphere.doubleValue(for: .diopter()) == -2.25)
      #expect(readGlasses.rightEye?.axis?.doubleValue(for: .degreeAngle()) == 90)
      #expect(readGlasses.rightEye?.vertexDistance?.doubleValue(for: .meterUnit(with: .milli)) == 12)
      #expect(readGlasses.rightEye?.prism?.verticalBase == .up)
      #expect(readGlasses.leftEye?.cylinder == nil)
      #expect(readGlasses.metadata?[HKMetadataKeyGlassesPrescriptionDescription] as? String == "Distance")
      let readContacts = try #require(own.last as? HKContactsPrescription)
      #expect(readContacts.brand == "Acuvue" && readContacts.endDate == .distantFuture)
      #expect(readContacts.rightEye?.baseCurve?.doubleValue(for: .meterUnit(with: .milli)) == 8.6)

      // Another app sees nothing until the user turns objects on in its per-object sheet.
      #expect(try await Self.read(pair.phone, as: Self.reader).isEmpty)
      try await pair.phone.use(app: Self.reader) {
        async let request: Void = HKHealthStore().requestPerObjectReadAuthorization(for: Self.type, predicate: nil)
        let sheet = try await pair.phone.user.waitForSheet(app: Self.reader)
        #expect(sheet.objects == [glasses.uuid, contacts.uuid])
        try await pair.phone.user.choose(objects: [contacts.uuid], app: Self.reader)
        try await request
      }
      #expect(try await Self.read(pair.phone, as: Self.reader).map(\.uuid) == [contacts.uuid])
      // A sheet limited by a predicate lists what it matches; turning everything off hides the contacts again.
      try await pair.phone.use(app: Self.reader) {
        let recent = HKQuery.predicateForSamples(withStart: t0 - 86_400 * 2, end: nil, options: .strictStartDate)
        async let request: Void = HKHealthStore().requestPerObjectReadAuthorization(for: Self.type, predicate: recent)
        let sheet = try await pair.phone.user.waitForSheet(app: Self.reader)
        #expect(sheet.objects == [contacts.uuid])
        try await pair.phone.user.dontAllow(app: Self.reader)
        try await request
      }
      #expect(try await Self.read(pair.phone, as: Self.reader).isEmpty)
      // Anchored queries see what a sample query sees: the saving app its own, the reader nothing now.
      for (app, count) in [(Self.optician, 2), (Self.reader, 0)] {
        let found = try await pair.phone.use(app: app) {
          try await HKAnchoredObjectQueryDescriptor(predicates: [.visionPrescription()], anchor: nil)
            .result(for: HKHealthStore())
        }
        #expect(found.addedSamples.count == count, "\(app)")
      }
    }
  }

  @Test func theSheetIsShownEvenWithNothingToListAndACancelFails() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.install(pair.phone)
      try await pair.phone.use(app: Self.reader) {
        let store = HKHealthStore()
        async let request: Void = store.requestPerObjectReadAuthorization(for: Self.type, predicate: nil)
        let sheet = try await pair.phone.user.waitForSheet(app: Self.reader)
        #expect(sheet.objects == [])
        try await pair.phone.user.cancel(app: Self.reader)
        do {
          try await request
          Issue.record("a cancelled per-object sheet should fail the request")
        } catch {
          #expect(isHKError(error, .errorUserCanceled))
        }
        // Read as a whole, or per object for a type that is not, a device raises.
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.requestAuthorization(toShare: [], read: [Self.type])
        }
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.requestPerObjectReadAuthorization(for: HKObjectType.workoutType(), predicate: nil)
        }
      }
    }
  }

  @Test func theWatchNeitherSavesNorAsks() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.install(pair.watch)
      try await pair.watch.use(app: Self.optician) {
        let store = HKHealthStore()
        await #expect { try await store.save(Self.glasses(issued: t0 - 60)) } throws: {
          isHKError($0, .errorHealthDataRestricted)
        }
        await #expect { try await store.requestPerObjectReadAuthorization(for: Self.type, predicate: nil) } throws: {
          isHKError($0, .errorHealthDataRestricted)
        }
      }
    }
  }

  @Test func aGlassesPrescriptionWithoutEitherEyeOrWithAWrongUnitWouldTerminate() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.install(pair.phone)
      try await pair.phone.use(app: Self.optician) {
        let store = HKHealthStore()
        let none = HKGlassesPrescription(
          rightEyeSpecification: nil, leftEyeSpecification: nil, dateIssued: t0, expirationDate: nil, device: nil,
          metadata: nil)
        await #expect(throws: HKSimulatedTermination.self) { try await store.save(none) }
        let meters = HKContactsLensSpecification(
          sphere: HKQuantity(unit: .meter(), doubleValue: 1), cylinder: nil, axis: nil, addPower: nil, baseCurve: nil,
          diameter: nil)
        let wrong = HKContactsPrescription(
          rightEyeSpecification: meters, leftEyeSpecification: nil, brand: "", dateIssued: t0, expirationDate: nil,
          device: nil, metadata: nil)
        await #expect(throws: HKSimulatedTermination.self) { try await store.save(wrong) }
        let plain = HKVisionPrescription(
          type: .glasses, dateIssued: t0 - 60, expirationDate: nil, device: nil, metadata: nil)
        try await store.save(plain)
        try await store.delete(plain)
      }
      #expect(try await Self.read(pair.phone, as: Self.optician).isEmpty)
    }
  }
}
