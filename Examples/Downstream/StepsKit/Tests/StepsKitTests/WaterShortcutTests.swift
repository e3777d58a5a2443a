#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  @Test func theShortcutLogsWaterOnceTheAppPresentedItsRequest() async throws {
    try await withHealthPair { pair in
      let phone = pair.phone
      try phone.install(app: "com.example.water", writeUsage: "Logs your water.")
      let shortcut = WaterShortcut()
      try await phone.use(extension: "com.example.water.intents", of: "com.example.water") {
        #expect(try await shortcut.logGlass(milliliters: 250) == false, "nothing is allowed yet")
        async let asked: Void = shortcut.requestAccess()
        // The system launches the app to handle the extension's request.
        try await phone.waitForExtensionRequest(app: "com.example.water")
        let handled = try await phone.use(app: "com.example.water") {
          async let done = withCheckedContinuation { continuation in
            shortcut.applicationShouldRequestHealthAuthorization { continuation.resume(returning: $0) }
          }
          try await phone.user.allowAll()
          return await done
        }
        #expect(handled)
        try await asked
        #expect(try await shortcut.logGlass(milliliters: 250))
      }
    }
  }
#endif
