import FoundationEssentials
import TestSupport
import Testing

@testable import HealthModel
@testable import Posix

private let fixtures = Repository.exportFixtures

@Suite("Command line: import and export")
struct ImportCommandTests {
  @Test func importReportsExportsRoundTripAndBadFilesExitTwo() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-import")
    defer {
      _ = try? healthpair(["down", "--dir", dir + "/pair"])
      Posix.removeTree(dir)
    }
    let synthetic = try healthpair(["export", "--synthetic", "500", "--days", "30", dir + "/synthetic.zip"])
    #expect(synthetic.status == 0 && synthetic.out.contains("500 records"), "\(synthetic.err)")
    let unreachable = try healthpair(["import", fixtures + "/export.xml", "--dir", dir + "/nowhere"])
    #expect(unreachable.status == 1 && unreachable.err.contains("cannot reach the daemon"))
    #expect(try healthpair(["up", "--dir", dir + "/pair"]).status == 0)
    _ = try healthpair(["ctl", "phone", "clock", "set", "2026-01-05T08:00", "--dir", dir + "/pair"])
    let imported = try healthpair([
      "import", fixtures + "/export.zip", "--dir", dir + "/pair", "--source", "Drink & Track=com.example.water",
    ])
    #expect(imported.status == 0, "\(imported.err)")
    // 19 samples, the audiogram and the glasses prescription (added objects count with the samples, as ECGs do).
    #expect(imported.out.hasPrefix("imported 21 samples into the phone"))
    #expect(imported.out.contains("audiograms   1 (read, staged with the samples)"), "\(imported.out)")
    #expect(imported.out.contains("prescriptions 1 (read, staged with the samples)"), "\(imported.out)")
    #expect(imported.out.contains("Hearing Test: 0 + 1 audiograms (app, phone,"), "\(imported.out)")
    #expect(imported.out.contains("Drink & Track: 2 (app, phone, com.example.water)"))
    #expect(imported.out.contains("workouts     1 (1 route), activity summaries 1"), "\(imported.out)")
    #expect(imported.out.contains("FileReference file not in the export: 1"), "the fixture holds no workout-routes/")
    let json = try healthpair(["import", fixtures + "/export.xml", "--dir", dir + "/pair", "--json"])
    #expect(json.status == 0 && json.out.contains("\"alreadyPresent\": 21"), "\(json.out)")
    #expect(json.out.contains("\"audiograms\": 1") && json.out.contains("\"visionPrescriptions\": 1"), "\(json.out)")
    let bad = try healthpair(["import", fixtures + "/unknown-unit.xml", "--dir", dir + "/pair"])
    #expect(bad.status == 2)
    #expect(bad.err.contains("unknown-unit.xml:205:113: error: unknown unit 'beats/min'"), "\(bad.err)")
    #expect(bad.err.contains("nothing was imported"))
    let exported = try healthpair(["export", dir + "/phone.zip", "--dir", dir + "/pair", "--utc-offset", "+0100"])
    #expect(exported.status == 0 && exported.out.contains("exported 19 samples"), "\(exported.err)")
    let again = try healthpair(["import", dir + "/phone.zip", "--dir", dir + "/pair", "--device", "phone"])
    #expect(again.out.contains("21 already present"), "the samples, the audiogram, the prescription: \(again.out)")
    let offset = try healthpair(["export", dir + "/x.xml", "--utc-offset", "0100", "--dir", dir + "/pair"])
    #expect(offset.status == 64 && offset.err.contains("+HHMM"))
  }
}
