// The `HealthKit` module on Linux: HealthKitSim under HealthKit's name, so published HealthKit code — `import
// HealthKit`, `HealthKit.HKObserverQueryCompletionHandler` — builds without a single edit. Depend on the
// `HealthKit` product only on Linux (`condition: .when(platforms: [.linux])`): Apple platforms keep the real
// framework. See docs/testing-your-app.md.

// Apple's HealthKit module re-exports Foundation (its headers import it), and published files often import only
// HealthKit yet use Date, Calendar, NSPredicate and DispatchQueue: so does this one.
@_exported import Foundation
@_exported import HealthKitSim
// HealthKit's headers import Core Location for routes (`HKWorkoutRoute`, `HKWorkoutRouteQuery` hand out CLLocation),
// so `import HealthKit` alone makes CLLocation visible on Apple platforms: so it does here.
@_exported import CoreLocation
