import FoundationEssentials
import Testing

@testable import HealthExport
@testable import HealthModel

@Suite("Export dates, numbers, category names, metadata and sources")
struct FormatTests {
  @Test func datesWithOffsetsParseToTheInstant() throws {
    let utc = try #require(ExportDate.parse("2024-03-01 08:15:00 +0000"))
    #expect(ExportDate.parse("2024-03-01 09:15:00 +0100") == utc)
    #expect(ExportDate.parse("2024-02-29 23:45:00 -0830") == utc)
    #expect(Date(timeIntervalSinceReferenceDate: utc) == parseDate("2024-03-01T08:15:00Z"))
    #expect(ExportDate.parse("2024-03-01 08:15:00.25 +0000") == utc + 0.25)
    for bad in [
      "2024-03-01T08:15:00Z", "2024-03-01 08:15:00", "2024-13-01 08:15:00 +0000", "2023-02-29 08:15:00 +0000",
      "2024-03-01 24:00:00 +0000", "2024-03-01 08:60:00 +0000", "2024-03-01 08:15:00 +1900", "",
      "2024-03-01 08:15:00 +0000 ", "2024-03-01 08:15:00. +0000",
    ] {
      #expect(ExportDate.parse(bad) == nil, "\(bad)")
    }
  }

  @Test func datesFormatAndReadBackBitForBit() throws {
    let instants: [Double] = [0, 789_000_000, -1_000_000_000.5, 789_000_000.123456, 1e-5, -0.75, 31_000_000_000]
    for t in instants {
      for offset in [0, 3600, -30_600, 19_800] {
        let text = ExportDate.format(t, offsetSeconds: offset)
        #expect(ExportDate.parse(text)?.bitPattern == t.bitPattern, "\(t) \(offset) → \(text)")
      }
    }
    #expect(ExportDate.format(0, offsetSeconds: 3600) == "2001-01-01 01:00:00 +0100")
    #expect(ExportDate.format(-0.75) == "2000-12-31 23:59:59.25 +0000")
  }

  @Test func numbersParseCorrectlyRoundedAndFormatShortest() throws {
    let samples = [
      "72", "0.156", "-3.5", "1e-05", "1E3", "123456789012345678901234", "0.1", "9007199254740993", "2.5e-310",
      "+4", "71.99999999999999", "4.94e-324",
    ]
    for text in samples {
      #expect(ExportNumber.parse(text) == Double(text), "\(text)")
    }
    for bad in ["", "-", ".", "1.2.3", "1e", "nan", "inf", "0x10", "1 2", "1e400"] {
      #expect(ExportNumber.parse(bad) == nil, "\(bad)")
    }
    for value in [72.0, 0.1, 1.0 / 3, -2.5, 1e-5, 1e22, 123_456_789_012.75, 5e-324] {
      #expect(ExportNumber.parse(ExportNumber.format(value)) == value)
    }
    #expect(ExportNumber.format(72) == "72")
  }

  @Test func categoryValueConstantsRoundTripForEveryCatalogCategoryType() throws {
    for type in SampleType.all {
      guard let values = type.descriptor.categoryValues else { continue }
      for (value, _) in values {
        let constant = CategoryNames.constant(for: type, value: value)
        #expect(CategoryNames.value(for: type, constant: constant) == value, "\(type.name) \(constant)")
      }
    }
    let sleep = SampleType.lookup(name: "sleepAnalysis")!
    #expect(CategoryNames.constant(for: sleep, value: 3) == "HKCategoryValueSleepAnalysisAsleepCore")
    #expect(CategoryNames.value(for: sleep, constant: "HKCategoryValueSleepAnalysisAsleep") == 1)
    #expect(CategoryNames.value(for: sleep, constant: "2") == 2)
    #expect(CategoryNames.value(for: sleep, constant: "HKCategoryValueSleepAnalysisNapping") == nil)
    let mindful = SampleType.lookup(name: "mindfulSession")!
    #expect(CategoryNames.constant(for: mindful, value: 0) == "HKCategoryValueNotApplicable")
  }

  @Test func metadataTextTypesValuesAndReadsBackWhatItWrites() throws {
    #expect(MetadataText.value(key: "HKWasUserEntered", text: "1") == .bool(true))
    #expect(MetadataText.value(key: "HKTimeZone", text: "Europe/Paris") == .string("Europe/Paris"))
    #expect(MetadataText.value(key: "HKExternalUUID", text: "12345") == .string("12345"))
    #expect(MetadataText.value(key: "HKMetadataKeyHeartRateMotionContext", text: "2") == .int(2))
    #expect(MetadataText.value(key: "custom", text: "3.25") == .double(3.25))
    #expect(MetadataText.value(key: "HKWeatherTemperature", text: "73.4 degF") == .quantity(73.4, unit: "degF"))
    #expect(MetadataText.value(key: "custom", text: "73.4 furlongs") == .string("73.4 furlongs"))
    let date = MetadataText.value(key: "custom", text: "2026-01-05 09:00:00 +0100")
    #expect(date == .date(parseDate("2026-01-05T08:00:00Z")!))
    let values: [(String, MetadataValue)] = [
      ("HKWasUserEntered", .bool(false)), ("HKTimeZone", .string("Asia/Tokyo")), ("n", .int(-7)),
      ("d", .double(3)), ("d2", .double(0.1)), ("q", .quantity(1.5, unit: "kcal/hr.kg")),
      ("t", .date(Date(timeIntervalSinceReferenceDate: 789_000_000.5))), ("s", .string("a, b & <c>")),
    ]
    for (key, value) in values {
      #expect(MetadataText.value(key: key, text: MetadataText.text(value)) == value, "\(key)")
    }
  }

  @Test func sourceMappingNamesAppleAndAppSources() throws {
    let mapping = SourceMapping(overrides: ["Sleep Cycle": "com.example.sleep"])
    let watchHardware = try #require(
      HardwareDetails(
        exportDescription: "<<HKDevice: 0x282d03020>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
          + "hardware:Watch6,2, software:10.1>"))
    #expect(watchHardware.fields.map(\.key) == ["name", "manufacturer", "model", "hardware", "software"])
    #expect(watchHardware.hardwareVersion == "Watch6,2")
    let watch = mapping.source(name: "Sam’s Apple Watch", version: "10.1", hardware: watchHardware)
    #expect(watch.bundleID.hasPrefix("com.apple.health.") && watch.isApple && watch.device == .watch)
    #expect(watch.details?.name == "Sam’s Apple Watch")
    #expect(mapping.source(name: "Sam’s Apple Watch", version: "10.1", hardware: watchHardware) == watch)
    // A renamed iPhone is recognized by its version being the device's software version.
    let phoneHardware = HardwareDetails(fields: [
      .init("name", "iPhone"), .init("manufacturer", "Apple Inc."), .init("model", "iPhone"),
      .init("software", "17.6.1"),
    ])
    let renamed = mapping.source(name: "hellomyzn13", version: "17.6.1", hardware: phoneHardware)
    #expect(renamed.isApple && renamed.device == .phone)
    // An app that tags its samples with the iPhone it ran on is still an app.
    let app = mapping.source(name: "Nutrino", version: "2.15.0.6", hardware: phoneHardware)
    #expect(app.bundleID == "com.healthpair.imported.nutrino" && !app.isApple)
    #expect(mapping.source(name: "Health", version: "17.2", hardware: nil).bundleID == "com.apple.Health")
    #expect(mapping.source(name: "Santé", version: "17.2", hardware: nil).bundleID == "com.apple.Health")
    #expect(mapping.source(name: "Sleep Cycle", version: "4", hardware: nil).bundleID == "com.example.sleep")
    #expect(mapping.source(name: "com.example.water", version: nil, hardware: nil).bundleID == "com.example.water")
    #expect(
      mapping.source(name: "One Drop", version: nil, hardware: nil).bundleID == "com.healthpair.imported.one-drop")
    #expect(
      mapping.source(name: "健康日記", version: nil, hardware: nil).bundleID.hasPrefix("com.healthpair.imported.source-"))
    #expect(SourceMapping.parseOverride("Sleep Cycle=com.x.y")! == ("Sleep Cycle", "com.x.y"))
    #expect(SourceMapping.parseOverride("no equals") == nil)
  }

  @Test func hardwareDescriptionsRoundTripWithoutTheirAddress() throws {
    let text =
      "<<HKDevice: 0x3034fcbe0>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone16,1, "
      + "software:17.6.1, creation date:2024-08-31 17:17:55 +0000>"
    let hardware = try #require(HardwareDetails(exportDescription: text))
    #expect(hardware["creation date"] == "2024-08-31 17:17:55 +0000")
    #expect(HardwareDetails(exportDescription: hardware.exportDescription) == hardware)
    #expect(hardware.exportDescription.hasPrefix("<<HKDevice: 0x"))
  }
}
