// The `HealthKit` module on Linux: HealthKitSim under HealthKit's name, so published HealthKit code — `import
// HealthKit`, `HealthKit.HKObserverQueryCompletionHandler` — builds without a single edit. Depend on the
// `HealthKit` product only on Linux (`condition: .when(platforms: [.linux])`): Apple platforms keep the real
// framework. See docs/testing-your-app.md.

@_exported import HealthKitSim
