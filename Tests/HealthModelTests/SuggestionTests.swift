import Testing

@testable import HealthModel

/// The full Levenshtein table, as the reference the banded one must agree with.
private func fullDistance(_ a: [Character], _ b: [Character]) -> Int {
  if a.isEmpty { return b.count }
  var previous = Array(0...b.count)
  for (i, ca) in a.enumerated() {
    var current = [i + 1] + [Int](repeating: 0, count: b.count)
    for (j, cb) in b.enumerated() {
      current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}

@Suite("Suggestions")
struct SuggestionTests {
  @Test("the banded edit distance agrees with the full table within its limit and is nil beyond it")
  func bandedAgreesWithFull() {
    let words = ["", "a", "kg", "kcal", "count/min", "mmHg", "degC", "fl_oz_us", "flozus", "HeartRate", "hartrate",
      "stepCount", "stepcuont", "ab", "ba", "abcdef", "azced", "xyz"]
    for a in words {
      for b in words {
        let full = fullDistance(Array(a), Array(b))
        for limit in 0...6 {
          var cells = 0
          let banded = editDistance(Array(a), Array(b), limit: limit, cells: &cells)
          #expect(banded == (full <= limit ? full : nil), "\(a) → \(b), limit \(limit)")
          #expect(cells <= (2 * limit + 1) * a.count, "\(a) → \(b), limit \(limit): \(cells) cells")
        }
      }
    }
  }

  @Test("a word far longer than a candidate costs no table at all, a long near one only the band")
  func boundedWork() {
    var cells = 0
    let huge = Array(String(repeating: "x", count: 200_000))
    #expect(editDistance(huge, Array("count"), limit: 66_666, cells: &cells) == nil)
    #expect(cells == 0)
    let long = Array(String(repeating: "ab", count: 5_000))
    var near = long
    near[4_000] = "z"
    #expect(editDistance(long, near, limit: 3, cells: &cells) == 1)
    #expect(cells <= 7 * long.count)
  }

  @Test("suggestions are unchanged for typos and absent for huge words")
  func suggestionsStillWork() throws {
    #expect(suggest("stepcuont", from: ["heartRate", "stepCount"]) == "stepCount")
    #expect(suggest("StepCount", from: ["heartRate", "stepCount"]) == "stepCount")
    #expect(suggest("stepCount", from: ["heartRate", "stepCount"]) == nil)
    #expect(suggest("zzzzzzzz", from: ["heartRate", "stepCount"]) == nil)
    #expect(suggest("ab", from: ["xy", "ay", "ab"]) == nil)
    #expect(suggest("aa", from: ["xy", "ay", "ab"]) == "ay")
    let huge = String(repeating: "q", count: 1_600_000)
    #expect(suggest(huge, from: SampleType.catalog.map(\.name)) == nil)
    #expect(UnitParser.suggestion(for: "kcall") == "kcal")
    #expect(UnitParser.suggestion(for: huge) == nil)
    #expect(throws: UnitError.self) { try HealthUnit(parsing: huge) }
  }
}
