import FoundationEssentials
import HealthEngine
import HealthModel

/// An audiogram to save, as `saves audiogram …` writes it: its start and, per frequency, the ears' hearing levels
/// (unmasked air tests; `-` for an ear not tested).
package struct AudiogramSpec: Hashable, Sendable {
  /// When the test starts (it ends 5 minutes later).
  package var start: TimeSpec
  /// Per point: the frequency in Hz and each ear's dBHL (nil: not tested).
  package var points: [(frequency: Double, left: Double?, right: Double?)]
  /// `as <name>`: the audiogram's name (a sample name: `deletes <name>` deletes it).
  package var name: String?

  /// The points as the model holds them.
  package var modelPoints: [AudiogramPoint] {
    points.map { point in
      AudiogramPoint(
        frequency: point.frequency,
        tests: [(point.left, AudiogramSide.left), (point.right, .right)].compactMap { value, side in
          value.map { AudiogramTest(sensitivity: $0, side: side) }
        })
    }
  }

  /// Equal when start and points are.
  package static func == (a: AudiogramSpec, b: AudiogramSpec) -> Bool {
    a.start == b.start && a.modelPoints == b.modelPoints && a.name == b.name
  }

  /// Hashes start and points.
  package func hash(into hasher: inout Hasher) {
    hasher.combine(start)
    hasher.combine(modelPoints)
    hasher.combine(name)
  }
}

/// `saves audiogram …` and `sees <n> audiograms …` (docs/scenario-language.md; behavior.md section H).
extension ParseState {
  /// `saves audiogram at <time> with <frequency> Hz <left>/<right> dBHL[, <frequency> Hz <left>/<right> dBHL]…`,
  /// an ear's level a number or `-` (not tested), then `[as <name>]`.
  mutating func parseSaveAudiogram(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    try c.expect("at", what: "'at <time>', the test's start")
    let start = try c.time()
    try c.expect("with", what: "'with <frequency> Hz <left>/<right> dBHL'")
    var spec = AudiogramSpec(start: start, points: [])
    repeat {
      let frequency = try c.number()
      try c.expect("Hz")
      let earsToken = try c.word("'<left>/<right>', each a number of dBHL or '-'")
      let parts = earsToken.text.split(separator: "/", omittingEmptySubsequences: false)
      func ear(_ text: Substring) -> Double?? { text == "-" ? .some(nil) : Double(text).map { .some($0) } }
      guard parts.count == 2, let left = ear(parts[0]), let right = ear(parts[1]) else {
        throw c.error(.expected("'<left>/<right>', each a number of dBHL or '-'", found: earsToken.text), at: earsToken)
      }
      try c.expect("dBHL")
      spec.points.append((frequency, left, right))
      guard spec.points.count <= 40 else { throw c.error(.expected("at most 40 points", found: nil)) }
    } while c.peek.map { Double($0.text) != nil } == true  // the next point (the comma between is a separator)
    if c.take("as") {
      spec.name = try newSampleName(&c)
    }
    try c.finish()
    return .saveAudiogram(device, app: app.name, spec)
  }

  /// `sees <n> audiograms [with <m> points [each]] [query]`, or `sees no audiograms …` (`count` 0: the words are
  /// read already).
  func parseSeesAudiograms(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 1)  // "audiograms"
    var points: Int?
    if c.index + 2 < c.line.tokens.count, c.peek?.keyword == "with",
      ["points", "point"].contains(c.line.tokens[c.index + 2].keyword)
    {
      c.index += 1
      let t = c.peek
      let n = try c.integer()
      guard n >= 0 else { throw c.error(.invalidNumber(String(n)), at: t) }
      c.index += 1
      _ = c.take("each")
      points = n
    }
    var query = SampleQuerySpec(app: subject.app.name, type: SpecialObjectStore.audiogramType)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesAudiograms(subject.devices, query, count, points: points)
  }
}
