import FoundationEssentials
import Testing

@testable import HealthExport
@testable import HealthModel

@Suite("Export reader: the hand-written fixture and every kind of bad record")
struct ExportReaderTests {
  @Test func theFixtureImportsEveryKnownRecordAndReportsEverythingElse() throws {
    let (samples, summary) = try readAll(try bytes(of: fixturePath))
    // The blood pressure's two records come twice, inside its Correlation and at the top level: one sample each.
    #expect(samples.count == 21)
    #expect(summary.records == 20)
    #expect(summary.locale == "en_GB")
    #expect(summary.exportDate == parseDate("2026-01-05T08:00:00Z"))
    #expect(summary.skippedTypes == ["HKDataTypeSleepDurationGoal": 1])
    #expect(summary.skippedElements["Me"] == nil, "Me's characteristics are read; an empty attribute is not skipped")
    #expect(
      summary.characteristics == [
        SampleType.lookup(name: "dateOfBirth")!: .dateOfBirth(year: 1988, month: 6, day: 14),
        SampleType.lookup(name: "biologicalSex")!: .value(1), SampleType.lookup(name: "bloodType")!: .value(8),
        SampleType.lookup(name: "fitzpatrickSkinType")!: .value(3),
      ])
    #expect(summary.skippedElements["Workout"] == nil, "the workout is read (takeWorkouts)")
    #expect(summary.workouts == 1 && summary.routes == 1 && summary.activitySummaries == 1)
    #expect(summary.skippedElements["Correlation"] == nil, "a blood pressure with both records is imported")
    let correlation = try #require(summary.correlations.first)
    #expect(summary.correlations.count == 1 && correlation.type.name == "bloodPressure")
    #expect(Set(correlation.members) == Set(samples.filter { $0.type.name.hasPrefix("bloodPressure") }.map(\.uuid)))
    #expect(correlation.metadata == ["HKWasUserEntered": .bool(true)])
    #expect(summary.skippedElements["ActivitySummary"] == nil, "the activity summary is read (takeSummaries)")
    #expect(summary.skippedElements["ClinicalRecord"] == nil && summary.clinicalRecords == 1, "its file: the file side")
    #expect(summary.skippedElements["Audiogram"] == nil && summary.audiograms == 1, "read (takeAudiograms)")
    #expect(summary.skippedElements["VisionPrescription"] == nil && summary.visionPrescriptions == 1)
    #expect(summary.skippedElements["Attachment"] == ["in VisionPrescription": 1], "HealthPair keeps no attachments")
    #expect(summary.skippedElements["InstantaneousBeatsPerMinute"] == ["in HeartRateVariabilityMetadataList": 3])
    // Five sources of samples; the watch's name is written once as &#8217; and elsewhere as ’: one source (the
    // workout's too). Its route names the watch without a device: a sixth source, of nothing but that route. The
    // audiogram's app is the seventh.
    #expect(
      summary.sources.map(\.source.details?.name) == [
        "Robin’s Apple Watch", "Robin’s iPhone", "Health", "Drink & Track", "Sleep Diary", "Robin’s Apple Watch",
        "Hearing Test",
      ])
    #expect(summary.sources.map(\.samples) == [10, 2, 4, 2, 1, 0, 0])
    #expect(summary.sources.map(\.workouts) == [1, 0, 0, 0, 0, 0, 0])
    #expect(summary.sources.map(\.audiograms) == [0, 0, 0, 0, 0, 0, 1])
    #expect(summary.sources.map(\.source.isApple) == [true, true, true, false, false, true, false])
    #expect(summary.sources.map(\.source.device) == [.watch, .phone, .phone, .phone, .phone, .watch, .phone])
    #expect(Set(samples.map(\.uuid)).count == 19)
  }

  @Test func valuesUnitsDatesAndMetadataAreConverted() throws {
    let (samples, _) = try readAll(try bytes(of: fixturePath))
    let heartRate = try #require(samples.first { $0.type.name == "heartRate" })
    #expect(heartRate.quantityValue == 64.0 / 60, "count/min becomes count/s")
    #expect(heartRate.start == parseDate("2025-12-20T09:00:00Z"))
    #expect(heartRate.metadata == ["HKMetadataKeyHeartRateMotionContext": .int(1)])
    #expect(heartRate.source.details?.version == "11.2")
    #expect(heartRate.source.details?.hardware?.hardwareVersion == "Watch7,1")
    let water = samples.filter { $0.type.name == "dietaryWater" }
    let mL = water.compactMap(\.quantityValue).sorted()
    #expect(mL.count == 2 && abs(mL[0] - 8 * 29.5735295625) < 1e-9 && mL[1] == 330, "8 fl_oz_us and 330 mL")
    let mass = try #require(samples.first { $0.type.name == "bodyMass" })
    #expect(abs(mass.quantityValue! - 143.3 * 0.453592) < 1e-9)
    let sleep = samples.filter { $0.type.name == "sleepAnalysis" }.compactMap(\.categoryValue).sorted()
    #expect(sleep == [1, 3, 4], "Asleep (iOS 15) is asleepUnspecified; AsleepCore, AsleepDeep")
    let flow = try #require(samples.first { $0.type.name == "menstrualFlow" })
    #expect(flow.metadata[MetadataKey.menstrualCycleStart] == .bool(true))
  }

  @Test func theSameRecordsGiveTheSameIdentifiersWhateverTheirFormatting() throws {
    let a = export(
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" unit="count" startDate="2026-01-04 12:00:00 +0100" endDate="2026-01-04 12:10:00 +0100" value="12"><MetadataEntry key="a" value="1"/><MetadataEntry key="b" value="x"/></Record>"#
    )
    let b = export(
      #" <Record value="12.0" endDate="2026-01-04 11:10:00 +0000" startDate="2026-01-04 11:00:00 +0000" unit="count" sourceName="S" type="HKQuantityTypeIdentifierStepCount"><MetadataEntry key="b" value="x"/><MetadataEntry key="a" value="1"/></Record>"#
    )
    #expect(try readAll(a).samples.map(\.uuid) == readAll(b).samples.map(\.uuid))
    let c = a.replacing("value=\"12\"", with: "value=\"13\"")
    #expect(try readAll(a).samples.map(\.uuid) != readAll(c).samples.map(\.uuid))
  }

  @Test func unknownUnitsSuggestTheNearestSpelling() throws {
    let text = export(
      #" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="S" unit="count/mn" startDate="2026-01-04 12:00:00 +0100" endDate="2026-01-04 12:00:00 +0100" value="60"/>"#
    )
    let error = try #require(readError(text))
    #expect(error.kind == .unit)
    #expect(error.message.contains("unknown unit 'count/mn'"))
    #expect(error.message.contains("did you mean"))
    #expect(error.location.line == 4)
    #expect(error.description.hasPrefix("export.xml:4:"))
  }

  @Test func incompatibleUnitsBadValuesDatesAndRecordsAreLocated() throws {
    func failure(_ attributes: String, type: String = "HKQuantityTypeIdentifierStepCount") -> ExportError? {
      readError(export(#" <Record type="\#(type)" sourceName="S" \#(attributes)/>"#))
    }
    let dates = #"startDate="2026-01-04 12:00:00 +0100" endDate="2026-01-04 12:10:00 +0100""#
    let incompatible = try #require(failure(#"unit="kg" \#(dates) value="3""#))
    #expect(
      incompatible.kind == .unit && incompatible.message.contains("cannot express HKQuantityTypeIdentifierStepCount"))
    let attributes = #"unit="count" \#(dates) value="three""#
    let notANumber = try #require(failure(attributes))
    #expect(notANumber.kind == .value && notANumber.message.contains("'three' is not a number"))
    let line = #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" "# + attributes
    #expect(notANumber.location.column == line.utf8.count - "three\"".utf8.count + 1, "the value's first byte")
    let badDate = try #require(
      failure(#"unit="count" startDate="yesterday" endDate="2026-01-04 12:10:00 +0100" value="3""#))
    #expect(badDate.kind == .date && badDate.message.contains("'yesterday' is not a date"))
    let backwards = try #require(
      failure(#"unit="count" startDate="2026-01-04 12:10:00 +0100" endDate="2026-01-04 12:00:00 +0100" value="3""#))
    #expect(backwards.kind == .invalidRecord && backwards.message.contains("must be equal to or earlier than endDate"))
    let category = try #require(
      failure(
        #"\#(dates) value="HKCategoryValueSleepAnalysisAsleepCor""#, type: "HKCategoryTypeIdentifierSleepAnalysis"))
    #expect(
      category.kind == .value && category.message.contains("did you mean 'HKCategoryValueSleepAnalysisAsleepCore'"))
    let missingFlag = try #require(
      failure(#"\#(dates) value="HKCategoryValueMenstrualFlowLight""#, type: "HKCategoryTypeIdentifierMenstrualFlow"))
    #expect(missingFlag.kind == .invalidRecord && missingFlag.message.contains("HKMetadataKeyMenstrualCycleStart"))
    let noUnit = try #require(failure(#"\#(dates) value="3""#))
    #expect(noUnit.kind == .unit)
  }

  @Test func meSetsWhatItSaysAndReportsWhatTheCatalogLacks() throws {
    let me =
      #" <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeABNegative" HKCharacteristicTypeIdentifierWheelchairUse="HKWheelchairUseYes" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="HKCardioFitnessMedicationsUseBetaBlockers"/>"#
    let (_, summary) = try readAll(export(me))
    #expect(
      summary.characteristics == [
        SampleType.lookup(name: "bloodType")!: .value(6), SampleType.lookup(name: "wheelchairUse")!: .value(2),
      ], "not set and empty set nothing")
    #expect(summary.skippedElements["Me"] == ["HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse": 1])
    let badType = try #require(
      readError(export(#" <Me HKCharacteristicTypeIdentifierBloodType="HKBloodTypeOPositiv"/>"#)))
    #expect(badType.kind == .value && badType.message.contains("did you mean 'HKBloodTypeOPositive'"))
    #expect((badType.location.line, badType.location.column) == (4, 47))
    let badDate = try #require(
      readError(export(#" <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-02-30"/>"#)))
    #expect(badDate.kind == .value && badDate.message.contains("YYYY-MM-DD"))
  }

  @Test func characteristicConstantsAreApplesNames() {
    func text(_ name: String, _ value: CharacteristicValue?) -> String {
      CharacteristicNames.text(for: SampleType.lookup(name: name)!, value: value)
    }
    #expect(text("bloodType", .value(5)) == "HKBloodTypeABPositive")
    #expect(text("bloodType", .value(2)) == "HKBloodTypeANegative")
    #expect(text("bloodType", nil) == "HKBloodTypeNotSet")
    #expect(text("biologicalSex", .value(3)) == "HKBiologicalSexOther")
    #expect(text("fitzpatrickSkinType", .value(6)) == "HKFitzpatrickSkinTypeVI")
    #expect(text("wheelchairUse", .value(1)) == "HKWheelchairUseNo")
    #expect(text("activityMoveMode", .value(2)) == "HKActivityMoveModeAppleMoveTime")
    #expect(text("dateOfBirth", .dateOfBirth(year: 1990, month: 4, day: 2)) == "1990-04-02")
    #expect(text("dateOfBirth", nil) == "")
    for type in SampleType.all where type.descriptor.isCharacteristic {
      for value in type.descriptor.characteristicValues ?? [] {
        let written = CharacteristicNames.text(for: type, value: .value(value.value))
        #expect(CharacteristicNames.value(for: type, text: written) == .some(.value(value.value)), "\(written)")
      }
    }
  }

  @Test func theRootMustBeHealthData() throws {
    let error = try #require(readError("<Health/>"))
    #expect(error.kind == .notAnExport && error.message.contains("not '<HealthData>'"))
  }

  @Test func anErrorAnywhereInTheFileIsFoundAtEveryChunkSize() throws {
    var text = try String(decoding: bytes(of: fixturePath), as: UTF8.self)
    text = text.replacing("</HealthData>", with: "<Record type=\"HKQuantityTypeIdentifierStepCount\">")
    for chunk in [1, 100, .max] {
      let error = try #require(readError(text, chunk: chunk))
      #expect(error.kind == .malformedXML || error.kind == .notAnExport)
    }
  }
}

@Suite("Export writer and synthetic exports")
struct ExportWriterTests {
  @Test func writtenExportsReadBackToTheSameSamples() throws {
    let (original, _) = try readAll(try bytes(of: fixturePath))
    // Plus samples an app saved (no export details), with fractional dates and every kind of metadata value.
    let water = SampleType.lookup(name: "dietaryWater")!
    let saved = Sample(
      uuid: UUID(), type: water, value: .quantity(250.5), start: Date(timeIntervalSinceReferenceDate: 789_000_000.125),
      end: Date(timeIntervalSinceReferenceDate: 789_000_060.5),
      metadata: [
        "HKWasUserEntered": .bool(true), "note": .string("tea & <milk>\n"), "cups": .int(2), "ratio": .double(0.5),
        "when": .date(Date(timeIntervalSinceReferenceDate: 789_000_000)), "temp": .quantity(36.6, unit: "degC"),
      ],
      source: SampleSource(bundleID: "com.example.water", device: .watch))
    // The watch's HKDevice.local(), kept as HealthKitSim keeps a device an app gives (reserved metadata keys).
    var onTheWatch = saved
    onTheWatch.uuid = UUID()
    onTheWatch.value = .quantity(100)
    for (key, value) in [("name", "Apple Watch"), ("manufacturer", "Apple Inc."), ("model", "Watch")] {
      onTheWatch.metadata["_HealthPair.device." + key] = .string(value)
    }
    var out: [UInt8] = []
    for offset in [0, 3600] {
      out = []
      var writer = ExportWriter(offsetSeconds: offset) { out += $0 }
      try writer.begin(exportDate: parseDate("2026-01-05T08:00:00Z")!)
      for sample in original + [saved, onTheWatch] { try writer.write(sample) }
      try writer.finish()
      let (read, summary) = try readAll(out)
      #expect(read.count == original.count + 2)
      #expect(Array(read.prefix(original.count)) == original, "offset \(offset)")
      let back = read[original.count]
      // No device was given: none is written, and the sample reads back as the phone's (the format has no kind).
      #expect(back.source.bundleID == "com.example.water" && back.source.device == .phone)
      #expect(back.source.details?.hardware == nil)
      #expect(back.value == saved.value && back.start == saved.start && back.end == saved.end)
      #expect(back.metadata == saved.metadata)
      #expect(back.uuid == saved.uuid, "an app-saved sample keeps its identifier through HealthPair's export")
      let watch = read[original.count + 1]
      #expect(watch.source.device == .watch && watch.source.details?.hardware?.model == "Watch")
      #expect(watch.metadata == saved.metadata, "the device is the Record's device attribute, not metadata")
      #expect(watch.uuid == onTheWatch.uuid)
      #expect(summary.skippedElements.isEmpty && summary.skippedTypes.isEmpty)
    }
    let text = String(decoding: out, as: UTF8.self)
    #expect(text.contains(#"unit="count/min""#), "heart rate is written per minute")
    #expect(text.contains(#"value="HKCategoryValueSleepAnalysisAsleepCore""#))
    #expect(text.contains("+0100\""))
  }

  @Test func meCarriesEveryCharacteristicBack() throws {
    var values: [SampleType: CharacteristicValue] = [:]
    for (name, value) in [
      ("dateOfBirth", CharacteristicValue.dateOfBirth(year: 1961, month: 2, day: 28)), ("biologicalSex", .value(2)),
      ("bloodType", .value(5)), ("fitzpatrickSkinType", .value(1)), ("wheelchairUse", .value(2)),
      ("activityMoveMode", .value(2)),
    ] {
      values[SampleType.lookup(name: name)!] = value
    }
    for subset in [values, [:], values.filter { $0.key.name == "bloodType" }] {
      var out: [UInt8] = []
      var writer = ExportWriter { out += $0 }
      try writer.begin(exportDate: parseDate("2026-01-05T08:00:00Z")!, characteristics: subset)
      try writer.finish()
      let (_, summary) = try readAll(out)
      #expect(summary.characteristics == subset)
      #expect(summary.skippedElements.isEmpty)
      let text = String(decoding: out, as: UTF8.self)
      #expect(text.contains("HKCharacteristicTypeIdentifierWheelchairUse=") == (subset.count == 6))
    }
  }

  @Test func syntheticExportsAreDeterministicAndReadCompletely() throws {
    let end = parseDate("2026-01-05T08:00:00Z")!
    var first: [UInt8] = []
    try SyntheticExport(records: 3_000, days: 30, end: end, seed: 9).write { first += $0 }
    var second: [UInt8] = []
    try SyntheticExport(records: 3_000, days: 30, end: end, seed: 9).write { second += $0 }
    #expect(first == second)
    let (samples, summary) = try readAll(first, chunk: 4096)
    #expect(summary.records == 3_000, "records inside Correlation elements are not top-level records")
    #expect(samples.count + summary.skippedTypes.values.reduce(0, +) == 3_000)
    #expect(summary.workouts == 3 && summary.activitySummaries == 3 && summary.routes == 3)
    #expect(summary.skippedElements["Workout"] == nil)
    #expect(summary.sources.count == 6, "five of samples, the workouts' watch without a device description")
    #expect(samples.allSatisfy { $0.start < end && $0.start >= end.addingTimeInterval(-30 * 86_400) })
  }
}
