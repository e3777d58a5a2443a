import FoundationEssentials
import Testing

@testable import Posix
@testable import Scenario
@testable import ScenarioLanguage

/// A small valid scenario: two steps, one of them an expectation, and an error-free comment.
private let lfText = """
  # A comment.
  install Water on phone share dietaryWater
  expect phone: Water share dietaryWater is notDetermined

  """

/// Parses `bytes` as the file `t.scenario`; the diagnostics, or none.
private func diagnostics(_ bytes: [UInt8]) -> [Diagnostic] {
  switch ScenarioParser.parse(bytes: bytes, file: "t.scenario") {
  case .success: return []
  case .failure(let d): return d.items
  }
}

/// The text's bytes with every LF turned into CRLF.
private func crlf(_ text: String) -> [UInt8] { lineEnds(text, "\r\n") }

/// The text's bytes with every LF turned into `end`.
private func lineEnds(_ text: String, _ end: String) -> [UInt8] {
  Array(text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: end).utf8)
}

@Suite("Scenario file encoding and emptiness")
struct SourceTextTests {
  @Test func crlfLineEndsParseExactlyLikeLF() throws {
    let lf = try ScenarioParser.parse(bytes: Array(lfText.utf8), file: "t.scenario").get()
    let windows = try ScenarioParser.parse(bytes: crlf(lfText), file: "t.scenario").get()
    #expect(windows.steps.count == 2)
    #expect(windows.steps == lf.steps)
    #expect(windows.title == lf.title)
  }

  @Test func crlfLeavesColumnsAndLinesOfErrorsAlone() {
    // "at the end of the line" errors are placed after the last character: a kept '\r' would move them.
    let text = "install Water on phone share dietaryWater\nexpect phone: Water share dietaryWater is\n"
    let lf = diagnostics(Array(text.utf8))
    let windows = diagnostics(crlf(text))
    #expect(lf.count == 1)
    #expect(windows == lf)
    #expect(windows.first?.location == SourceLocation(file: "t.scenario", line: 2, column: 42))
    #expect(windows.first?.sourceLine.contains("\r") == false)
  }

  @Test func aCRLFFileLoadedFromDiskRunsItsSteps() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-crlf")
    defer { Posix.removeTree(dir) }
    try Posix.writeFileAtomically(dir + "/windows.scenario", crlf("scenario: From Windows\n" + lfText))
    let loaded = Suite.load([dir])
    #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
    let scenario = try #require(loaded.scenarios.first)
    #expect(scenario.title == "From Windows", "not the whole file read as one title")
    #expect(scenario.steps.count == 2)
  }

  @Test func aByteOrderMarkIsSkippedWithoutShiftingColumns() throws {
    let withBOM = SourceText.byteOrderMark + Array(lfText.utf8)
    let scenario = try ScenarioParser.parse(bytes: withBOM, file: "t.scenario").get()
    #expect(scenario.steps.count == 2)
    #expect(scenario.steps[0].location.column == 1)
    let bad = "kill -9 phone now\n"
    let plain = diagnostics(Array(bad.utf8))
    #expect(diagnostics(SourceText.byteOrderMark + Array(bad.utf8)) == plain)
    #expect(plain.first?.location.column == 15)
  }

  @Test(
    "Bytes that are not UTF-8 are located, never replaced",
    arguments: [
      ([0xFF], "a byte that never occurs"),
      ([0xC3], "a sequence cut short by the end of the line"),
      ([0xC0, 0xAF], "an overlong encoding of '/'"),
      ([0xED, 0xA0, 0x80], "a UTF-16 surrogate"),
    ] as [([UInt8], String)])
  func invalidUTF8IsALocatedError(_ bad: [UInt8], _ what: String) {
    // Line 3, after "expect phone: Water share\tdietaryWater is " (43 columns: the tab counts as two).
    let before = Array("install Water on phone\n# é\nexpect phone: Water share\tdietaryWater is ".utf8)
    let bytes = before + bad + Array(" notDetermined\n".utf8)
    let found = diagnostics(bytes)
    #expect(found.count == 1, "\(what)")
    #expect(found.first?.error == .invalidUTF8(byteOffset: before.count, byte: bad[0]))
    #expect(found.first?.location == SourceLocation(file: "t.scenario", line: 3, column: 44))
    // With a byte order mark the offset is still the file's, the column still the text's.
    let withBOM = diagnostics(SourceText.byteOrderMark + bytes)
    #expect(withBOM.first?.error == .invalidUTF8(byteOffset: before.count + 3, byte: bad[0]))
    #expect(withBOM.first?.location == found.first?.location)
  }

  @Test func invalidUTF8RendersLikeEveryOtherDiagnostic() {
    let bytes = Array("install Water on phone\nexpect phone: caf".utf8) + [0xE9] + Array(" is here\n".utf8)
    guard case .failure(let d) = ScenarioParser.parse(bytes: bytes, file: "Scenarios/x.scenario") else {
      Issue.record("expected an error")
      return
    }
    #expect(
      d.description == """
        Scenarios/x.scenario:2:18: error: invalid UTF-8 at byte offset 40 (0xE9): scenario files must be UTF-8
        expect phone: caf\u{FFFD} is here
                         ^
        """)
  }

  @Test func aLoneCarriageReturnIsALocatedError() {
    // Classic Mac OS line ends: the first one is reported, at the end of the first line.
    let mac = lineEnds(lfText, "\r")
    let found = diagnostics(mac)
    #expect(found.count == 1)
    #expect(found.first?.error == .loneCarriageReturn)
    #expect(found.first?.location == SourceLocation(file: "t.scenario", line: 1, column: 13))
    #expect(found.first?.sourceLine == "# A comment.")
    // One stray CR inside an LF file; and one at the very end of a file.
    let stray = diagnostics(Array("install Water on phone\nexpect phone:\r Water is\n".utf8))
    #expect(stray.map(\.error) == [.loneCarriageReturn])
    #expect(stray.first?.location == SourceLocation(file: "t.scenario", line: 2, column: 14))
    let last = diagnostics(Array("install Water on phone\r\nexpect link is up\r".utf8))
    #expect(last.first?.location == SourceLocation(file: "t.scenario", line: 2, column: 18))
  }

  @Test(
    "A file that checks nothing is an error at its end",
    arguments: [
      ("", ScenarioError.noSteps, 1, 1),
      ("\n\n", .noSteps, 1, 1),
      ("# only\n# comments\n\n", .noSteps, 2, 11),
      ("\u{FEFF}# a BOM and a comment", .noSteps, 1, 22),
      ("scenario: Settings only\nseed 3\n", .noSteps, 2, 7),
      ("install Water on phone\nphone: Water requests\n# no expect\n", .noExpectations, 3, 12),
      ("install Water on phone\r\nphone: Water requests\r\n", .noExpectations, 2, 22),
    ] as [(String, ScenarioError, Int, Int)])
  func aFileThatChecksNothingIsAnError(_ text: String, _ error: ScenarioError, _ line: Int, _ column: Int) {
    let found = diagnostics(Array(text.utf8))
    #expect(found.map(\.error) == [error])
    #expect(found.first?.location == SourceLocation(file: "t.scenario", line: line, column: column))
  }

  @Test func otherErrorsAreNotBuriedUnderTheEmptinessError() {
    // The only expectation is misspelt: that is the error, not "checks nothing".
    let found = diagnostics(Array("install Water on phone\nexpekt link is up\n".utf8))
    #expect(found.map(\.error) == [.unknownStep("expekt", suggestion: "expect")])
  }
}

/// The lexer's byte path for ASCII lines gives exactly what its character path gives: on every line of the
/// repository's scenarios and on lines built to hit each rule (quotes, commas, tabs, comments, `word:`, times,
/// an unterminated quote).
@Suite("The lexer's ASCII path")
struct LexerPathTests {
  static let tricky = [
    "", "   ", "# only a comment", "install Water on phone share dietaryWater,stepCount",
    "expect phone: Water share dietaryWater is notDetermined", "at 08:30 save 250 mL", "a: b:: c:d ::",
    "say \"hello, world\" # and a comment", "say \"\" then\tthat", "word#hash kept # comment", "\"unterminated",
    "x \"open", ",,, ,", ":", "a:", "\"q\":", "tab\tseparated\t\"quoted\ttab\"",
  ]

  @Test func theASCIIPathMatchesTheCharacterPathOnEveryLine() throws {
    var lines = Self.tricky
    var directories = [scenariosDirectory]
    while let directory = directories.popLast() {
      for name in try Posix.listDirectory(directory) {
        let path = directory + "/" + name
        if Posix.directoryExists(path) {
          directories.append(path)
        } else if name.hasSuffix(".scenario") {
          let text = String(decoding: try Posix.readFile(path), as: UTF8.self)
          lines += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
      }
    }
    var checked = 0
    for line in lines where line.utf8.allSatisfy({ $0 < 0x80 }) {
      var copy = line
      let fast = copy.withUTF8 { Lexer.tokenizeASCII($0) }
      let slow = Result { () throws(Lexer.LexError) in try Lexer.tokenizeCharacters(line) }
      switch (fast, slow) {
      case (.success(let a), .success(let b)): #expect(a == b, "\(line)")
      case (.failure(let a), .failure(let b)): #expect(a.column == b.column, "\(line)")
      default: Issue.record("the paths disagree on \(line): \(fast) against \(slow)")
      }
      checked += 1
    }
    #expect(checked > 1_000)
  }
}
