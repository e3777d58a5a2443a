import Foundation
import HealthKitSim
import Testing

@testable import HealthModel

@Suite("Query results as HealthKitSim objects (no daemon)")
struct SampleObjectTests {
  @Test func aBatchBuildsWhatOneByOneBuildsAndSharesWhatIsImmutable() throws {
    let water = try #require(SampleType.lookup(name: "dietaryWater"))
    let sleep = try #require(SampleType.lookup(name: "sleepAnalysis"))
    let phone = SampleSource(bundleID: "com.example.water", device: .phone)
    let watch = SampleSource(bundleID: "com.example.water", device: .watch)
    let other = SampleSource(
      bundleID: "com.example.other", device: .phone, details: SourceDetails(name: "Other", version: "2"))
    let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let samples = (0..<9).map { i in
      let source = [phone, watch, other][i % 3]
      return i % 4 == 3
        ? Sample(uuid: UUID(), type: sleep, value: .category(1), start: t0, end: t0 + 60, source: source)
        : Sample(
          uuid: UUID(), type: water, value: .quantity(Double(i)), start: t0 + Double(i), end: t0 + Double(i),
          metadata: ["n": .int(Int64(i))], source: source)
    }
    let batch = HKSample.make(samples)
    let single = samples.map { HKSample.make($0) }
    #expect(batch.count == samples.count)
    for (b, s) in zip(batch, single) {
      #expect(b.description == s.description)
      #expect(b.sampleType == s.sampleType)
      #expect(b.sourceRevision == s.sourceRevision)
      #expect(b.sourceRevision.productType == s.sourceRevision.productType)
      #expect(String(describing: b.metadata) == String(describing: s.metadata))
      let mL = HKUnit.literUnit(with: .milli)
      let bValue = (b as? HKQuantitySample)?.quantity.doubleValue(for: mL)
      let sValue = (s as? HKQuantitySample)?.quantity.doubleValue(for: mL)
      #expect(bValue == sValue)
      #expect((b as? HKCategorySample)?.value == (s as? HKCategorySample)?.value)
    }
    // One revision per source, shared by its samples; different sources keep different revisions.
    #expect(batch[0].sourceRevision === batch[6].sourceRevision)
    #expect(batch[0].sourceRevision !== batch[1].sourceRevision)
    #expect(batch[1].sourceRevision.productType == "Watch" && batch[2].sourceRevision.source.name == "Other")
    // Each object's typed accessors name its own type, whatever the samples around it were.
    for (object, sample) in zip(batch, samples) {
      let identifier =
        sample.type == water ? "HKQuantityTypeIdentifierDietaryWater" : "HKCategoryTypeIdentifierSleepAnalysis"
      #expect(object.sampleType.identifier == identifier)
      #expect(((object as? HKQuantitySample)?.quantityType.identifier ?? identifier) == identifier)
      #expect(((object as? HKCategorySample)?.categoryType.identifier ?? identifier) == identifier)
    }
  }

  @Test func equalSourcesWithTheirOwnStorageGetTheSameRevision() throws {
    let water = try #require(SampleType.lookup(name: "dietaryWater"))
    let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    // Built apart, as samples decoded from different replies or made by hand are: equal, not sharing storage (each
    // identifier is a new heap string, too long to be stored inline).
    func source(_ suffix: String) -> SampleSource {
      let identifier = "com.example." + ["a-long-bundle", "identifier"].joined(separator: "-") + suffix
      return SampleSource(bundleID: identifier, device: .watch)
    }
    let sources = [source(""), source(""), source(".other"), source("")]
    let samples = sources.enumerated().map { i, source in
      Sample(uuid: UUID(), type: water, value: .quantity(Double(i)), start: t0, end: t0, source: source)
    }
    let batch = HKSample.make(samples)
    #expect(batch[0].sourceRevision === batch[1].sourceRevision)
    #expect(batch[0].sourceRevision === batch[3].sourceRevision)
    #expect(batch[2].sourceRevision.source.bundleIdentifier == "com.example.a-long-bundle-identifier.other")
    #expect(batch[3].sourceRevision.source.bundleIdentifier == "com.example.a-long-bundle-identifier")
  }

  @Test func aReturnedSamplesQuantityIsMadeWhenFirstReadAndThenKept() throws {
    let water = try #require(SampleType.lookup(name: "dietaryWater"))
    let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let stored = Sample(
      uuid: UUID(), type: water, value: .quantity(250), start: t0, end: t0,
      source: SampleSource(bundleID: "com.example.water", device: .phone))
    let sample = try #require(HKSample.make(stored) as? HKQuantitySample)
    #expect(sample.description.hasPrefix("250 mL "), "in the type's canonical unit")
    let first = sample.quantity
    #expect(first === sample.quantity, "every read gives the same object")
    #expect(first.doubleValue(for: .liter()) == 0.25)
    // An app's own sample keeps the very quantity object it was created with.
    let quantity = HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250)
    let own = HKQuantitySample(type: HKQuantityType(.dietaryWater), quantity: quantity, start: t0, end: t0)
    #expect(own.quantity === quantity)
    #expect(own.description.hasPrefix("250 mL "))
  }
}
