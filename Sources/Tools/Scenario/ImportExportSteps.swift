import HealthExport
import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage

/// Import and export steps: Apple Health exports read into a device, a device's store written as one.
extension RunContext {
  /// `import <file> on <device> …`: the file is one an `export` step wrote under that name, else a path resolved
  /// against the scenario file's directory; the step fails when the import's outcome is not the one written
  /// (success, or `fails [with "<text>"]`).
  mutating func performImport(_ importStep: ImportStep, _ step: Step) throws {
    let directory = scenario.file.split(separator: "/", omittingEmptySubsequences: false).dropLast()
      .joined(separator: "/")
    let path =
      exported[importStep.path]
      ?? (importStep.path.hasPrefix("/") || directory.isEmpty ? importStep.path : directory + "/" + importStep.path)
    var options = ExportImportOptions()
    options.mapping = SourceMapping(overrides: importStep.sources)
    options.timeout = max(timeout, 30)
    do {
      let report = try HealthExportFiles.importExport(path: path, into: client(importStep.device), options: options)
      lastImport[importStep.device] = report
      if let expected = importStep.failure {
        throw StepFailure(
          step: step, expected: "the import to fail" + (expected.isEmpty ? "" : " with \"\(expected)\""),
          actual: "it added \(report.outcome.addedCount) samples")
      }
    } catch let failure as StepFailure {
      throw failure
    } catch {
      let message = "\(error)"
      guard let expected = importStep.failure else {
        throw StepFailure(step: step, expected: "the import to succeed", actual: message)
      }
      if !expected.isEmpty && !message.contains(expected) {
        throw StepFailure(step: step, expected: "the import to fail with \"\(expected)\"", actual: message)
      }
    }
  }

  /// `export <device> to <name>`: the device's store as an Apple Health export in the pair's directory; a later
  /// `import <name>` reads it.
  mutating func exportStore(_ device: DeviceKind, _ name: String) throws {
    let path = pair.layout.root + "/" + name
    _ = try HealthExportFiles.exportStore(from: client(device), to: path)
    exported[name] = path
  }
}
