import FoundationEssentials
import TestSupport
import Testing

@testable import HealthExport
@testable import HealthModel
@testable import Posix

/// The hand-written fixture every element kind is in.
let fixturePath = Repository.exportFixtures + "/export.xml"
let fixtureZipPath = Repository.exportFixtures + "/export.zip"

/// A file's bytes.
func bytes(of path: String) throws -> [UInt8] { try Posix.readFile(path) }

struct TestFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Every sample `text` (an export.xml) holds, and the reader's summary.
func readAll(_ text: String, chunk: Int = .max, mapping: SourceMapping = SourceMapping()) throws(ExportError) -> (
  samples: [Sample], summary: ImportSummary
) {
  try readAll(Array(text.utf8), chunk: chunk, mapping: mapping)
}

/// Every sample `bytes` (an export.xml) holds, and the reader's summary.
func readAll(_ bytes: [UInt8], chunk: Int = .max, mapping: SourceMapping = SourceMapping(), file: String = "export.xml")
  throws(ExportError) -> (samples: [Sample], summary: ImportSummary)
{
  var reader = ExportReader(MemoryInput(bytes, chunk: chunk), file: file, mapping: mapping)
  var samples: [Sample] = []
  while let sample = try reader.next() { samples.append(sample) }
  return (samples, reader.summary)
}

/// The error reading `text` throws (fails the test when it reads).
func readError(_ text: String, chunk: Int = .max) -> ExportError? {
  do {
    _ = try readAll(text, chunk: chunk)
    Issue.record("expected an error")
    return nil
  } catch { return error }
}

/// A minimal export around `records`.
func export(_ records: String) -> String {
  """
  <?xml version="1.0" encoding="UTF-8"?>
  <HealthData locale="en_US">
   <ExportDate value="2026-01-05 09:00:00 +0100"/>
  \(records)
  </HealthData>

  """
}
