import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Authorization asked by an app extension and presented by its containing app with
/// `handleAuthorizationForExtension` (behavior.md A23), against a real pair.
@Suite("App extension authorization, against real daemons")
struct ExtensionAuthorizationTests {
  static let app = "com.example.water"
  static let intents = "com.example.water.intents"
  static let water = HKQuantityType(.dietaryWater)

  static func install(_ device: HealthDevice) throws {
    try device.install(app: app, name: "Water", writeUsage: "Logs water.", readUsage: "Shows your water.")
  }

  @Test func theExtensionWaitsUntilTheAppPresentsItsSheetThenBothComplete() async throws {
    try await withHealthPair { pair in
      let phone = pair.phone
      try Self.install(phone)
      try await phone.use(extension: Self.intents, of: Self.app) {
        async let asked: Void = HKHealthStore().requestAuthorization(toShare: [Self.water], read: [Self.water])
        // The extension shows nothing: the request waits for the app.
        let waiting = try await phone.waitForExtensionRequest(app: Self.app)
        #expect(waiting.share.count == 1 && waiting.read.count == 1)
        try await phone.use(app: Self.app) {
          #expect(try phone.sheets(app: Self.app).isEmpty)
          async let handled: Void = HKHealthStore().handleAuthorizationForExtension()
          let sheet = try await phone.user.waitForSheet(app: Self.app)
          #expect(sheet.share.count == 1 && sheet.read.count == 1, "the sheet lists what the extension asked for")
          try await phone.user.allowAll()
          try await handled
        }
        try await asked
        // The extension saves and reads with its app's permissions.
        #expect(HKHealthStore().authorizationStatus(for: Self.water) == .sharingAuthorized)
        let sample = HKQuantitySample(
          type: Self.water, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250), start: Date(),
          end: Date())
        try await HKHealthStore().save(sample)
      }
      try await phone.use(app: Self.app) {
        let found = try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: Self.water)], sortDescriptors: []
        )
        .result(for: HKHealthStore())
        #expect(found.count == 1 && found.first?.sourceRevision.source.bundleIdentifier == Self.app)
      }
    }
  }

  @Test func aCancelledSheetFailsTheAppsCallAndTheExtensionsWithUserCanceled() async throws {
    try await withHealthPair { pair in
      let phone = pair.phone
      try Self.install(phone)
      try await phone.use(extension: Self.intents, of: Self.app) {
        let asked = Task { try await HKHealthStore().requestAuthorization(toShare: [Self.water], read: []) }
        try await phone.waitForExtensionRequest(app: Self.app)
        try await phone.use(app: Self.app) {
          let handled = Task { try await HKHealthStore().handleAuthorizationForExtension() }
          try await phone.user.cancel()
          let error = await #expect(throws: HKError.self) { try await handled.value }
          #expect(error?.code == .errorUserCanceled)
        }
        let error = await #expect(throws: HKError.self) { try await asked.value }
        #expect(error?.code == .errorUserCanceled)
        #expect(HKHealthStore().authorizationStatus(for: Self.water) == .notDetermined)
      }
    }
  }

  @Test func withNothingWaitingTheAppsCallCompletesAtOnceAndAnAnsweredTypeIsNotAskedAgain() async throws {
    try await withHealthPair { pair in
      let phone = pair.phone
      try Self.install(phone)
      try await phone.use(app: Self.app) {
        try await HKHealthStore().handleAuthorizationForExtension()
        #expect(try phone.sheets(app: Self.app).isEmpty)
        async let asked: Void = HKHealthStore().requestAuthorization(toShare: [Self.water], read: [])
        try await phone.user.dontAllow()
        try await asked
      }
      try await phone.use(extension: Self.intents, of: Self.app) {
        // Decided for the app, so decided for its extension: completes with no sheet and no handling.
        try await HKHealthStore().requestAuthorization(toShare: [Self.water], read: [])
        #expect(HKHealthStore().authorizationStatus(for: Self.water) == .sharingDenied)
        await #expect(throws: HealthKitSimError.self, "not available to extensions") {
          try await HKHealthStore().handleAuthorizationForExtension()
        }
      }
    }
  }

  @Test func theWatchHasNeitherExtensionRequestsNorTheHandler() async throws {
    try await withHealthPair { pair in
      let watch = pair.watch
      try Self.install(watch)
      try await watch.use(app: Self.app) {
        await #expect(throws: (any Error).self) { try await HKHealthStore().handleAuthorizationForExtension() }
      }
      try await watch.use(extension: Self.intents, of: Self.app) {
        await #expect(throws: (any Error).self) {
          try await HKHealthStore().requestAuthorization(toShare: [Self.water], read: [])
        }
      }
    }
  }
}
