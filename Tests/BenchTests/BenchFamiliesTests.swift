import Testing

@testable import Bench

@Suite("Bench families: the table --only selects from")
struct BenchFamiliesTests {
  static func selected(_ only: Set<String>) -> [[String]] { BenchFamily.selected(by: only).map(\.groups) }

  @Test("every family runs when nothing is selected, in table order")
  func everything() {
    #expect(BenchFamily.selected(by: []).count == BenchFamily.all.count)
    #expect(Self.selected([]).first == ["roundtrip"])
    #expect(Self.selected([]).last == ["mirroring", "workouts"])
  }

  @Test("userpath is calls, pairs and suite, in that order; each of them also runs alone")
  func userPath() {
    #expect(Self.selected(["userpath"]) == [["calls", "userpath"], ["pairs", "userpath"], ["suite", "userpath"]])
    #expect(Self.selected(["pairs"]) == [["pairs", "userpath"]])
  }

  @Test("import includes importshape; importshape runs alone; bigstore is two families")
  func groupsHoldingSeveral() {
    #expect(Self.selected(["import"]) == [["import"], ["importshape", "import"]])
    #expect(Self.selected(["importshape"]) == [["importshape", "import"]])
    #expect(Self.selected(["bigstore"]) == [["bigstore"], ["bigstore"]])
    #expect(
      Self.selected(["workouts"]) == [
        ["workoutsync", "workouts"], ["workoutquery", "workouts"], ["livesession", "workouts"],
        ["mirroring", "workouts"],
      ])
    #expect(Self.selected(["workoutquery"]) == [["workoutquery", "workouts"]])
  }

  @Test("--only accepts exactly the table's groups, each once")
  func onlyAcceptsTheTablesGroups() throws {
    #expect(BenchCommand.groups == BenchFamily.names)
    #expect(Set(BenchFamily.names).count == BenchFamily.names.count)
    #expect(
      Set(BenchFamily.names) == [
        "roundtrip", "throughput", "sync", "start", "bigstore", "snapshot", "scale", "clients", "import",
        "importshape", "scenarios", "userpath", "calls", "pairs", "suite", "workoutsync", "workouts", "workoutquery",
        "livesession", "mirroring",
      ])
    for name in BenchFamily.names { _ = try BenchCommand(["--only", name]) }
    #expect(throws: (any Error).self) { try BenchCommand(["--only", "workout"]) }
  }

  @Test("userPathMetrics runs nothing for parts that are not user-path families")
  func userPathMetricsIgnoresOtherParts() throws {
    #expect(try userPathMetrics(daemon: "/nonexistent", sizes: .smoke, suite: nil, parts: ["roundtrip"]).isEmpty)
  }
}
