#if canImport(HealthPairTesting)
  import CoreLocation
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  @Test func aRunWithItsRouteIsSavedOnTheWatchAndQueried() async throws {
    let start = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: start)) { pair in
      try pair.watch.install(app: "com.example.runs", writeUsage: "Records runs.", readUsage: "Shows runs.")
      try await pair.watch.use(app: "com.example.runs") {
        let recorder = RunRecorder()
        async let asked: Void = recorder.requestAccess()
        try await pair.watch.user.allowAll()
        try await asked
        let route = (0..<150).map { i in
          CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 51.5 + Double(i) * 0.00002, longitude: -0.12), altitude: 11,
            horizontalAccuracy: 5, verticalAccuracy: 5, timestamp: start + Double(i))
        }
        let workout = try await recorder.saveRun(start: start, end: start + 150, meters: 330, route: route)
        #expect(workout?.duration == 150)
        let runs = try await recorder.runs()
        #expect(runs.count == 1)
        #expect(runs.first?.distance == 330)
        #expect(runs.first?.locations == 150)
      }
    }
  }
#endif
