import Testing

@testable import Bench
@testable import Posix

@Suite("Bench history, the met? column and the scale ladder")
struct BenchHistoryTests {
  static func metric(_ name: String, _ value: Double, met: Bool?, figure: String = "medianMs") -> Metric {
    Metric(
      name: name, baseline: "—", value: "\(value)", ratio: "—", target: "≤ 30 ms", met: met,
      numbers: [(figure, value), ("other", 1)])
  }

  static func history(_ values: [Double]) -> BenchHistory {
    values.enumerated().reduce(BenchHistory()) { h, item in
      let met = item.element <= 30
      return h.appending(
        BenchHistory.run(
          [metric("6a. Daily statistics (\(item.offset) buckets)", item.element, met: met)], date: "d\(item.offset)",
          machine: "m", loadAverage: "1 1 1"))
    }
  }

  @Test("a metric's key is the number its name starts with, so a changed description keeps its history")
  func keys() {
    #expect(BenchHistory.key(of: Self.metric("6a. Daily statistics (366 buckets)", 1, met: true)) == "6a")
    #expect(BenchHistory.key(of: Self.metric("S3. Daily step totals", 1, met: nil)) == "S3")
  }

  @Test("appending keeps only the last runs, oldest first")
  func trimming() {
    let h = Self.history((1...14).map(Double.init))
    #expect(h.runs.count == BenchHistory.kept)
    #expect(h.runs.first?.date == "d4")
    #expect(h.runs.last?.date == "d13")
    #expect(h.appending(h.runs[0], keeping: 3).runs.count == 3)
  }

  @Test("the spread is the lowest and highest figure over the kept runs, with the runs that missed counted")
  func spread() throws {
    let h = Self.history([12, 8.4, 33, 14.4])
    let s = try #require(h.spread(of: "6a", figure: "medianMs"))
    #expect(s.low == 8.4 && s.high == 33 && s.runs == 4 && s.missed == 1)
    let m = Self.metric("6a. Daily statistics", 12, met: true)
    #expect(h.spreadText(of: m) == "8.4–33 ms (4 runs, missed in 1)")
    #expect(BenchHistory().spreadText(of: m) == "—")
    #expect(Self.history([5]).spreadText(of: m) == "5 ms (1 run)")
  }

  @Test("a row whose baseline comes first follows its headline figure, not the baseline")
  func headline() {
    var m = Metric(
      name: "1. Save round trip vs echo", baseline: "16 µs", value: "56 µs", ratio: "3.5×", target: "≤ 3×", met: false,
      numbers: [("echoMedianMicros", 16), ("saveMedianMicros", 56)], headline: "saveMedianMicros")
    #expect(m.headlineNumber?.0 == "saveMedianMicros")
    let run = BenchHistory.run([m], date: "d", machine: "m", loadAverage: "1 1 1")
    #expect(run.metrics.map(\.figure) == ["saveMedianMicros"] && run.metrics.map(\.value) == [56])
    #expect(BenchHistory().appending(run).spreadText(of: m) == "56 µs (1 run, missed in 1)")
    m.headline = nil
    #expect(m.headlineNumber?.0 == "echoMedianMicros")
  }

  @Test("figures print with the unit their name implies")
  func units() {
    #expect(BenchHistory.format(1.1326, figure: "seconds") == "1132.6 ms")
    #expect(BenchHistory.format(828.4, figure: "residentMiB") == "828 MiB")
    #expect(BenchHistory.format(13.54, figure: "echoMedianMicros") == "13.5 µs")
    #expect(BenchHistory.format(235_579.4, figure: "samplesPerSecond") == "235579/s")
  }

  @Test("met? says yes, no or reported; the Markdown table adds the spread column when there is a history")
  func table() {
    #expect(metText(true) == "yes" && metText(false) == "no" && metText(nil) == "reported")
    let metrics = [Self.metric("6a. Daily", 12, met: true), Self.metric("S1. Recovery", 900, met: nil)]
    let plain = benchMarkdown(metrics, history: nil)
    #expect(plain.contains("| reported |") && !plain.contains("spread"))
    let withHistory = benchMarkdown(metrics, history: Self.history([12, 20]))
    #expect(withHistory.contains("spread (last 2 runs)"))
    #expect(withHistory.contains("| 12–20 ms (2 runs) |"))
    #expect(withHistory.contains("| reported | — |"))
    #expect(benchMarkdown([Self.metric("6a. x", 40, met: false)], history: nil).contains("**no**"))
  }

  @Test("a history file round-trips; a missing one is empty; a malformed one is an error naming the file")
  func files() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-bench-history")
    defer { Posix.removeTree(dir) }
    let path = dir + "/history.json"
    #expect(try BenchHistory.load(path) == BenchHistory())
    let h = Self.history([1, 2, 3])
    try h.save(to: path)
    #expect(try BenchHistory.load(path) == h)
    try Posix.writeFileAtomically(path, Array("{\"runs\": [{\"date\": 3}]}".utf8))
    #expect {
      try BenchHistory.load(path)
    } throws: { error in
      "\(error)".hasPrefix(path + ": not a bench history")
    }
  }

  @Test("the scale ladder runs by decades from 1,000 up to the largest size, which it always includes")
  func ladder() {
    #expect(scaleLadder(upTo: 10_000_000) == [1_000, 10_000, 100_000, 1_000_000, 10_000_000])
    #expect(scaleLadder(upTo: 2_000) == [1_000, 2_000])
    #expect(scaleLadder(upTo: 1_000) == [1_000])
    #expect(scaleLadder(upTo: 300_000) == [1_000, 10_000, 100_000, 300_000])
  }
}
