import FoundationEssentials
import Testing

@testable import HealthModel

/// HealthKit's sample duration limits (behavior.md T14): the table, and the check at the limit and past it.
@Suite("Sample durations: HealthKit's limits per type")
struct SampleDurationTests {
  static func descriptor(_ name: String) -> SampleTypeDescriptor { SampleType.lookup(name: name)!.descriptor }

  @Test(arguments: [
    ("heartRate", 4.0), ("sleepAnalysis", 4), ("workout", 4), ("CDA", 4), ("GAD7", 4), ("headache", 14),
    ("mindfulSession", 28), ("atrialFibrillationBurden", 8), ("appleWalkingSteadiness", 10), ("sleepApneaEvent", 31),
    ("lowCardioFitnessEvent", 85), ("irregularMenstrualCycles", 365),
  ])
  func theLongestSampleOfAType(name: String, days: Double) {
    #expect(Self.descriptor(name).maximumDuration == days * 86_400)
  }

  @Test func someTypesAreUnrestrictedAndTwoHaveAMinimum() {
    for name in ["menstrualFlow", "pregnancy", "lactation", "contraceptive", "visionPrescription", "allergyRecord"] {
      #expect(Self.descriptor(name).maximumDuration == nil, "\(name)")
    }
    #expect(Self.descriptor("environmentalAudioExposure").minimumDuration == 0.001)
    #expect(Self.descriptor("heartRate").minimumDuration == 0)
    #expect(Self.descriptor("sixMinuteWalkTestDistance").allowsRecalibrationForEstimates)
    #expect(!Self.descriptor("vo2Max").allowsRecalibrationForEstimates)
  }

  @Test func theLimitItselfIsKeptAndOneSecondMoreRaises() throws {
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let heartRate = Self.descriptor("heartRate")
    try heartRate.checkDuration(start, start.addingTimeInterval(4 * 86_400))
    #expect(throws: HealthError.self) { try heartRate.checkDuration(start, start.addingTimeInterval(4 * 86_400 + 1)) }
    do {
      try heartRate.checkDuration(start, start.addingTimeInterval(5 * 86_400))
    } catch {
      #expect(error.message.hasSuffix("Maximum duration for type HKQuantityTypeIdentifierHeartRate is 345600.000000"))
    }
    #expect(throws: HealthError.self) { try Self.descriptor("headphoneAudioExposure").checkDuration(start, start) }
  }
}
