import HealthEngine
import HealthModel

/// Settings: `scenario: <title>`, `seed <n>`, `sync: manual|automatic`.
extension ParseState {
  /// `scenario: <title>`: the report's title (the text after the colon, placeholders substituted).
  mutating func parseTitle(_ c: inout Cursor, _ step: StepLine, _ scenario: inout Scenario) throws(Diagnostic)
    -> StepKind?
  {
    try c.expect(":")
    let shown = step.line.shown ?? step.line.text
    let colon = shown.firstIndex(of: ":")!
    scenario.title = String(shown[shown.index(after: colon)...]).trimmingWhitespace()
    titleHadPlaceholder = step.line.shown != nil
    if scenario.title.isEmpty { throw c.error(.expected("a title", found: nil)) }
    return nil
  }

  /// `seed <n>`: the scenario's seed (a 64-bit unsigned integer).
  func parseSeed(_ c: inout Cursor, _ scenario: inout Scenario) throws(Diagnostic) -> StepKind? {
    let t = try c.word("a seed")
    guard let seed = UInt64(t.text) else { throw c.error(.invalidSeed(t.text), at: t) }
    try c.finish()
    scenario.seed = seed
    return nil
  }

  /// `sync: manual` / `sync: automatic`.
  func parseSyncMode(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    try c.expect(":")
    let manual: Bool
    if c.take("manual") {
      manual = true
    } else if c.take("automatic") {
      manual = false
    } else {
      throw c.error(.expected("'manual' or 'automatic'", found: c.peek?.text))
    }
    try c.finish()
    return .syncMode(manual: manual)
  }
}
