import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Anchored and observer queries of the object families stored apart from samples (electrocardiograms, audiograms,
/// States of Mind), as sync-style apps run them, against a real pair.
@Suite("Anchored queries of ECGs, audiograms and States of Mind, against real daemons")
struct AnchoredObjectFamilyTests {
  static let app = "com.example.sync"
  static let mood = HKObjectType.stateOfMindType()
  static let ecg = HKObjectType.electrocardiogramType()

  static func install(_ pair: HealthPair) async throws {
    for device in [pair.phone, pair.watch] {
      try device.install(app: app, name: "Sync", writeUsage: "Logs moods.", readUsage: "Uploads your data.")
    }
    try await pair.phone.authorize(app, share: [mood], read: [mood, ecg])
    try await pair.watch.authorize(app, share: [mood], read: [mood])
  }

  @Test func anAnchoredQueryOfStatesOfMindReturnsAddsThenUpdatesThenTheDeletion() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.install(pair)
      try await pair.phone.use(app: Self.app) {
        let store = HKHealthStore()
        let first = HKStateOfMind(
          date: t0 - 600, kind: .dailyMood, valence: 0.4, labels: [.calm], associations: [.work])
        try await store.save(first)
        let initial = try await HKAnchoredObjectQueryDescriptor(predicates: [.stateOfMind()], anchor: nil)
          .result(for: store)
        #expect(initial.addedSamples.map(\.uuid) == [first.uuid])
        #expect((initial.addedSamples.first as? HKStateOfMind)?.labels == [.calm])
        var updates = HKAnchoredObjectQueryDescriptor(predicates: [.stateOfMind()], anchor: initial.newAnchor)
          .results(for: store).makeAsyncIterator()
        #expect(try await updates.next()?.addedSamples.isEmpty == true)
        let second = HKStateOfMind(
          date: t0 - 60, kind: .momentaryEmotion, valence: -0.6, labels: [.stressed], associations: [])
        try await store.save(second)
        #expect(try await updates.next()?.addedSamples.map(\.uuid) == [second.uuid])
        try await store.delete(first)
        #expect(try await updates.next()?.deletedObjects.map(\.uuid) == [first.uuid])
        // A limit of one pages through the changes in order.
        let page = try await HKAnchoredObjectQueryDescriptor(predicates: [.stateOfMind()], anchor: nil, limit: 1)
          .result(for: store)
        #expect(page.addedSamples.map(\.uuid) == [second.uuid])
      }
    }
  }

  @Test func theWatchsRecordingArrivesInThePhonesAnchoredQueryWithoutVoltages() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.install(pair)
      let id = try pair.watch.recordElectrocardiogram(.sinusRhythm, symptoms: .none, start: t0 - 120)
      try await pair.waitForSync()
      try await pair.phone.use(app: Self.app) {
        let store = HKHealthStore()
        let found = try await HKAnchoredObjectQueryDescriptor(
          predicates: [.electrocardiogram()], anchor: nil
        ).result(for: store)
        let recording = try #require(found.addedSamples.first)
        #expect(recording.uuid == id)
        #expect(recording.numberOfVoltageMeasurements == 15_360)
        var voltages = 0
        for try await _ in HKElectrocardiogramQueryDescriptor(recording).results(for: store) { voltages += 1 }
        #expect(voltages == 15_360)
        let again = try await HKAnchoredObjectQueryDescriptor(
          predicates: [.electrocardiogram()], anchor: found.newAnchor
        ).result(for: store)
        #expect(again.addedSamples.isEmpty && again.deletedObjects.isEmpty)
      }
    }
  }
}

/// Symptoms logged with a recording (behavior.md G6), as ECG viewer apps read them.
@Suite("ECG symptoms associated with their recording, against real daemons")
struct ECGSymptomTests {
  @Test func theSymptomsLoggedWithARecordingAreItsAssociatedCategorySamples() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let app = "com.example.rhythm"
      try pair.watch.install(app: app, readUsage: "Shows your ECGs.")
      let fatigue = HKCategoryType(.fatigue)
      try await pair.watch.authorize(app, read: [HKObjectType.electrocardiogramType(), fatigue])
      let first = try pair.watch.recordElectrocardiogram(
        .atrialFibrillation, symptoms: .present, start: t0 - 600, symptomTypes: [.fatigue, .dizziness])
      try pair.watch.recordElectrocardiogram(.sinusRhythm, symptoms: .present, start: t0 - 60, symptomTypes: [.fatigue])
      #expect(throws: HealthPairTestingError.self) {
        try pair.watch.recordElectrocardiogram(.sinusRhythm, symptoms: .none, symptomTypes: [.fatigue])
      }
      try await pair.watch.use(app: app) {
        let store = HKHealthStore()
        let ecgs = try await HKSampleQueryDescriptor(
          predicates: [.electrocardiogram()], sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store)
        let recording = try #require(ecgs.first { $0.uuid == first })
        let symptoms = try await HKSampleQueryDescriptor(
          predicates: [
            .categorySample(
              type: fatigue, predicate: HKQuery.predicateForObjectsAssociated(electrocardiogram: recording))
          ], sortDescriptors: []
        ).result(for: store)
        #expect(symptoms.count == 1)
        let symptom = try #require(symptoms.first)
        #expect(symptom.startDate == recording.startDate && symptom.endDate == recording.endDate)
        #expect(symptom.sourceRevision.source.bundleIdentifier == "com.apple.NanoHeartRhythm")
        #expect(symptom.metadata?.keys.contains { $0.hasPrefix("_HealthPair") } != true, "the association is hidden")
        let all = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: fatigue)], sortDescriptors: [])
          .result(for: store)
        #expect(all.count == 2, "one per recording that logged it")
      }
    }
  }
}
