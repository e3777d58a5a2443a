import FoundationEssentials
import HealthEngine
import HealthExport
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render

/// `healthpair import <export.zip|export.xml>`: loads an Apple Health export into one device of a running pair.
package struct ImportCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "import", abstract: "Load an Apple Health export (export.zip or export.xml) into a device of the pair.",
    usage: "import <export.zip|export.xml> [--device phone|watch] [--dir <dir>] [--source <name=bundle>]… "
      + "[--validate-first] [--json]",
    discussion: """
      OPTIONS:
      \(dirHelp)
        --device <d>       phone (default) or watch.
        --source <n=b>     Give the export's source named n the bundle identifier b (repeatable), e.g.
                           --source "Sleep Cycle=com.lexwarelabs.goodmorning", so an app finds its own history.
        --validate-first   Read the whole file once before sending anything, so a file that does not parse never
                           reaches the device's journal (the import is all or nothing either way).
        --json             Print the report as JSON.

      Every Record of a type HealthPair knows becomes a sample with its source (name, version, device), dates, unit
      (converted to the type's canonical unit), value and metadata; sources become the device's sources, Apple's own
      (iPhone, Apple Watch, the Health app) marked as such, and Me's characteristics (date of birth, biological sex,
      blood type, skin type) become the Health app's values (docs/behavior.md I1–I11). Correlations, workouts (with
      their routes), activity summaries, audiograms (with their sensitivity points) and, into the phone, vision
      prescriptions and clinical records (with their FHIR files under clinical-records/) are imported too; records
      of unknown types are skipped and reported by element and type. The
      import is all or nothing: everything becomes visible in one journal commit; a bad file, or the daemon stopping
      mid-import, leaves the store exactly as it was. Importing into the phone lets the watch receive what sync and
      its retention window give it. A locked device refuses imports (the user cannot use the Health app on it).
      Each electrocardiogram CSV file under electrocardiograms/ (beside export.xml, or in the zip) becomes a
      recording of the watch's ECG app in the same commit; one the device holds already (same identifier, or same
      start second and voltages) is left out.

      Errors in the file are reported as file:line:col with the byte offset (exit status 2). A progress line is
      shown when standard output is a terminal.
      """)

  var path: String
  var device: DeviceKind = .phone
  var directory: String
  var options = ExportImportOptions()
  var json = false

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    directory = pairDirectory(try args.option("dir"))
    if let name = try args.option("device") {
      guard let d = DeviceKind(name: name) else {
        throw args.error("invalid value '\(name)' for '--device': expected 'phone' or 'watch'")
      }
      device = d
    }
    for text in try args.options("source") {
      guard let (name, bundle) = SourceMapping.parseOverride(text) else {
        throw args.error(
          "invalid value '\(text)' for '--source': expected NAME=BUNDLE (e.g. \"Sleep Cycle=com.example.sleep\")")
      }
      options.mapping.overrides[name] = bundle
    }
    options.validateFirst = args.flag("validate-first")
    json = args.flag("json")
    path = try args.required("the export file (export.zip or export.xml)")
    try args.finish()
  }

  /// Imports the file.
  package func run() throws -> Int32 {
    let client = try DeviceClient(
      socketPath: PairLayout(root: directory).socket(device), clientName: "healthpair import", timeout: 120)
    defer { client.close() }
    let progress = ProgressLine(enabled: Posix.isTerminal(1) && !json)
    do {
      let report = try HealthExportFiles.importExport(path: path, into: client, options: options) { p in
        progress.update(p)
      }
      progress.clear()
      out(json ? report.json.render() + "\n" : report.text)
      return 0
    } catch let error as ExportError {
      progress.clear()
      err("\(error)\nnothing was imported: the \(device)'s store is as it was\n")
      return error.kind == .io ? 1 : 2
    } catch let error as ClientError {
      progress.clear()
      err("error: \(error)\nnothing was imported: the \(device)'s store is as it was\n")
      return 1
    }
  }
}

/// A progress line on a terminal, redrawn at most five times a second.
final class ProgressLine: @unchecked Sendable {
  private let enabled: Bool
  private var last: UInt64 = 0
  private var shown = false
  private let started = Posix.monotonicNanoseconds()

  init(enabled: Bool) { self.enabled = enabled }

  func update(_ p: ExportImportProgress) {
    guard enabled else { return }
    let now = Posix.monotonicNanoseconds()
    guard now - last > 200_000_000 else { return }
    last = now
    let percent = p.fileSize > 0 ? min(100, p.fileBytes * 100 / p.fileSize) : 0
    let seconds = Double(now - started) / 1e9
    let rate = seconds > 0 ? Int(Double(p.records) / seconds) : 0
    Posix.writeStandardOutput(
      "\r\(p.validating ? "checking" : "importing") \(percent)%  \(p.records) records  \(rate) records/s   ")
    shown = true
  }

  func clear() {
    guard enabled, shown else { return }
    Posix.writeStandardOutput("\r" + String(repeating: " ", count: 72) + "\r")
    shown = false
  }
}

extension ExportImportReport {
  /// The report as JSON: device, seconds, records, added (by type), alreadyPresent, beforeRetention,
  /// characteristics (what `Me` set) and characteristicsSet (how many changed a value), audiograms (`Audiogram`
  /// elements read), visionPrescriptions (`VisionPrescription` elements read), clinicalRecords (`ClinicalRecord`
  /// elements read), electrocardiograms (CSV files read), sources, skippedTypes, skippedElements.
  var json: JSON {
    .object([
      ("device", .string(device.description)),
      ("seconds", .number(seconds)),
      ("fileBytes", .int(fileBytes)),
      ("records", .int(summary.records)),
      ("read", .int(summary.sampleCount)),
      ("added", .object(outcome.added.sorted { $0.key < $1.key }.map { ($0.key.name, .int($0.value)) })),
      ("alreadyPresent", .int(outcome.alreadyPresent)),
      ("beforeRetention", .int(outcome.beforeRetention)),
      (
        "characteristics",
        .object(
          summary.characteristics.sorted { $0.key < $1.key }.map { ($0.key.name, .string($0.value.name(for: $0.key))) })
      ),
      ("characteristicsSet", .int(outcome.characteristicsSet)),
      ("audiograms", .int(summary.audiograms)),
      ("visionPrescriptions", .int(summary.visionPrescriptions)),
      ("clinicalRecords", .int(summary.clinicalRecords)),
      ("electrocardiograms", .int(summary.electrocardiograms)),
      (
        "sources",
        .array(
          summary.sources.map { entry in
            .object([
              ("name", .optional(entry.source.details?.name)), ("bundleID", .string(entry.source.bundleID)),
              ("apple", .bool(entry.source.isApple)), ("device", .string(entry.source.device.description)),
              ("version", .optional(entry.source.details?.version)), ("samples", .int(entry.samples)),
            ])
          })
      ),
      ("skippedTypes", .object(summary.skippedTypes.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
      (
        "skippedElements",
        .object(
          summary.skippedElements.sorted { $0.key < $1.key }.map { element, details in
            (element, .object(details.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }))
          })
      ),
    ])
  }
}

/// `healthpair export`: writes a device's store as an Apple Health export, or a synthetic export.
package struct ExportCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "export", abstract: "Write a device's samples as an Apple Health export (export.xml or export.zip).",
    usage: "export <file> [--device phone|watch] [--dir <dir>] [--utc-offset <+HHMM>] | export --synthetic <n> <file> "
      + "[--days <d>] [--seed <s>]",
    discussion: """
      OPTIONS:
      \(dirHelp)
        --device <d>       phone (default) or watch.
        --utc-offset <o>   Write dates in the local time of this offset, e.g. +0100 (default +0000).
        --synthetic <n>    Write a synthetic export of n records in the real schema instead (no pair needed):
                           iPhone, Apple Watch, Health and app sources, real units and metadata, a year of data.
        --days <d>         The span of a synthetic export, in days (default 365), ending now (2026-01-05 08:00 UTC).
        --seed <s>         The synthetic export's seed (default 1).

      The file is export.xml, or a zip archive holding apple_health_export/export.xml (stored, not compressed) when
      its name ends in .zip — the layout 'healthpair import' reads back to the same samples, so a team can diff a
      pair against an export. Me holds the device's characteristics. Records are written type by type, by start
      date; quantities in the unit the Health app shows when that reads back exactly (else the canonical unit),
      category values by their constant names, the device an import or an app gave a sample as its description.
      HealthPair keeps no creation date: creationDate is written as the end date. Audiograms follow the activity
      summaries, one SensitivityPoint per frequency (iOS 18.1's masked and clamping attributes when set). Each
      electrocardiogram is a CSV file in Apple's layout, electrocardiograms/ecg_<day>.csv (then _1, _2 for later
      ones that day), beside export.xml or in the zip.
      """)

  var path: String
  var device: DeviceKind = .phone
  var directory: String
  var offsetSeconds = 0
  var synthetic: Int?
  var days = 365
  var seed: UInt64 = 1

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    directory = pairDirectory(try args.option("dir"))
    if let name = try args.option("device") {
      guard let d = DeviceKind(name: name) else {
        throw args.error("invalid value '\(name)' for '--device': expected 'phone' or 'watch'")
      }
      device = d
    }
    if let text = try args.option("utc-offset") {
      guard let offset = Self.parseOffset(text) else {
        throw args.error("invalid value '\(text)' for '--utc-offset': expected +HHMM or -HHMM, e.g. +0100")
      }
      offsetSeconds = offset
    }
    synthetic = try args.intOption("synthetic", range: 0...100_000_000)
    days = try args.intOption("days", range: 1...36_500) ?? 365
    if let text = try args.option("seed") {
      guard let value = UInt64(text) else {
        throw args.error("invalid value '\(text)' for '--seed': expected an integer")
      }
      seed = value
    }
    path = try args.required("the file to write (export.xml or export.zip)")
    try args.finish()
  }

  static func parseOffset(_ text: String) -> Int? {
    let chars = Array(text)
    guard chars.count == 5, chars[0] == "+" || chars[0] == "-", let hours = Int(String(chars[1...2])),
      let minutes = Int(String(chars[3...4])), hours <= 18, minutes < 60
    else { return nil }
    return (hours * 3600 + minutes * 60) * (chars[0] == "-" ? -1 : 1)
  }

  /// Writes the file.
  package func run() throws -> Int32 {
    if let synthetic {
      let generator = SyntheticExport(
        records: synthetic, days: days, end: parseDate("2026-01-05T08:00:00Z")!, seed: seed)
      let bytes = try HealthExportFiles.writeSynthetic(generator, to: path)
      out("wrote a synthetic export of \(synthetic) records to \(path) (\(bytes) bytes)\n")
      return 0
    }
    let client = try DeviceClient(
      socketPath: PairLayout(root: directory).socket(device), clientName: "healthpair export", timeout: 120)
    defer { client.close() }
    do {
      let records = try HealthExportFiles.exportStore(from: client, to: path, offsetSeconds: offsetSeconds)
      out("exported \(records) samples of the \(device) to \(path)\n")
      return 0
    } catch let error as ClientError {
      err("error: \(error)\n")
      return 1
    }
  }
}
