import Testing

@testable import ScenarioLanguage

/// The phrases of a table's word rows, in row order (rows chosen by a test give none).
private func phrases<Context, Result>(_ rules: [Rule<Context, Result>]) -> [[[String]]] {
  rules.map { rule in
    guard case .words(let phrases) = rule.selector else { return [] }
    return phrases
  }
}

/// The rows of `table` one of whose phrases starts with an earlier row's phrase, so that it can never be chosen.
private func shadowed(_ table: [[[String]]]) -> [String] {
  var found: [String] = []
  for (later, laterPhrases) in table.enumerated() {
    for phrase in laterPhrases {
      for earlier in table[..<later].joined() where phrase.starts(with: earlier) {
        found.append("'\(phrase.joined(separator: " "))' after '\(earlier.joined(separator: " "))'")
      }
    }
  }
  return found
}

@Suite("Scenario language: dispatch tables")
struct LanguageTableTests {
  @Test func everyFirstWordChoosesOneStepRow() {
    let words = ParseState.steps.flatMap { $0.words + $0.aliases }
    #expect(Set(words).count == words.count, "\(words)")
    #expect(ParseState.stepRules.count == words.count)
  }

  @Test func noRowIsHiddenByAnEarlierOne() {
    let tables: [String: [[[String]]]] = [
      "policies": phrases(ParseState.policies), "appVerbs": phrases(ParseState.appVerbs),
      "saveForms": phrases(ParseState.saveForms), "userActions": phrases(ParseState.userActions),
      "pairExpectations": phrases(ParseState.pairExpectations),
      "deviceExpectations": phrases(ParseState.deviceExpectations),
      "possessiveExpectations": phrases(ParseState.possessiveExpectations),
      "appExpectations": phrases(ParseState.appExpectations), "seesForms": phrases(ParseState.seesForms),
    ]
    for (name, table) in tables {
      #expect(shadowed(table).isEmpty, "\(name): \(shadowed(table))")
    }
    #expect(shadowed([[["allows"]], [["allows", "all"]]]) == ["'allows all' after 'allows'"], "the check can fail")
  }

  @Test func unknownWordsAreComparedWithTheTablesWords() {
    #expect(diagnose("phone: Water savs 1 mL dietaryWater").map(\.0) == [.unknownStep("savs", suggestion: "saves")])
    #expect(diagnose("instal Water on phone").map(\.0) == [.unknownStep("instal", suggestion: "install")])
    #expect(
      diagnose("expect phone: Water's lats call succeeded").map(\.0) == [
        .expected(
          "'last call', 'queries of', 'sample query of', 'requests', 'read of', 'preferred unit for', "
            + "'preferred units for', 'background delivery of', 'background deliveries of', 'workout session', "
            + "'workout', 'activity summary query' or 'request'",
          found: "lats")
      ])
  }
}
