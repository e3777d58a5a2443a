import Testing

@testable import HealthExport
@testable import HealthPairClient
@testable import Posix

/// An export is read from a regular file; any other kind of path is refused at once, never waited on.
@Suite("An export path that is not a regular file")
struct ExportInputTests {
  /// A FIFO at the export's path would block `open` for reading until a writer came (the import, and a scenario
  /// run importing in-process, would hang): it is refused with its path named. A directory is refused too.
  @Test func aFIFOOrADirectoryIsRefusedNotWaitedOn() throws {
    let root = try Posix.makeTemporaryDirectory(prefix: "hp-export-input")
    defer { Posix.removeTree(root) }
    let fifo = root + "/export.zip"
    try Posix.makeFIFO(fifo)
    for path in [fifo, root] {
      let error = #expect(throws: ExportError.self) { _ = try FileInput(path: path) }
      #expect(error.map { "\($0)" }?.contains(path) == true, "\(String(describing: error))")
      #expect(error.map { "\($0)" }?.contains("not a regular file") == true, "\(String(describing: error))")
    }
  }

  /// A regular file opens, with its size.
  @Test func aRegularFileOpens() throws {
    let root = try Posix.makeTemporaryDirectory(prefix: "hp-export-input")
    defer { Posix.removeTree(root) }
    let path = root + "/export.xml"
    try Posix.writeFileAtomically(path, Array("<HealthData/>".utf8))
    #expect(try FileInput(path: path).size == 13)
  }
}
