import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("Query results are HKCumulativeQuantitySample or HKDiscreteQuantitySample, as on iOS 13 and later")
struct QuantitySampleSubclassTests {
  @Test func stepCountIsCumulativeAndHeartRateDiscrete() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [stepsType, heartRateType], read: [stepsType, heartRateType])
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let steps = HKQuantitySample(
          type: stepsType, quantity: HKQuantity(unit: .count(), doubleValue: 1_200), start: t0 - 600, end: t0)
        let beat = HKQuantitySample(
          type: heartRateType, quantity: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 72),
          start: t0 - 60, end: t0 - 60)
        try await store.save([steps, beat])
        let stepResults = try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: stepsType)], sortDescriptors: []
        ).result(for: store)
        let cumulative = try #require(stepResults.first as? HKCumulativeQuantitySample)
        #expect(cumulative.sumQuantity.doubleValue(for: .count()) == 1_200)
        #expect(cumulative.count == 1)
        let beatResults = try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: heartRateType)], sortDescriptors: []
        ).result(for: store)
        let discrete = try #require(beatResults.first as? HKDiscreteQuantitySample)
        let perMinute = HKUnit.count().unitDivided(by: .minute())
        #expect(abs(discrete.averageQuantity.doubleValue(for: perMinute) - 72) < 1e-9)
        #expect(abs(discrete.maximumQuantity.doubleValue(for: perMinute) - 72) < 1e-9)
        #expect(discrete.mostRecentQuantityDateInterval == DateInterval(start: t0 - 60, duration: 0))
        #expect(!(beatResults.first is HKCumulativeQuantitySample))
      }
    }
  }
}
