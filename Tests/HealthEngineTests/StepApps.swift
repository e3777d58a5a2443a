@testable import HealthEngine

/// Two step-counting apps, the sources the statistics suites de-duplicate between.
let walker = AppRecord(
  bundleID: "com.example.walker", displayName: "Walker", writeUsageDescription: "Counts steps.",
  readUsageDescription: "Shows steps.")
/// The second step-counting app.
let pedometer = AppRecord(
  bundleID: "com.example.pedometer", displayName: "Pedometer", writeUsageDescription: "Counts steps.",
  readUsageDescription: "Shows steps.")
