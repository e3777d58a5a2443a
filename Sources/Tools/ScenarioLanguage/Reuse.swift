import FoundationEssentials
import HealthModel
import Posix

/// Where `include` lines read files from: the file system for real runs, nothing or a dictionary in tests and
/// fuzzing (the parser itself does no I/O).
package struct IncludeLoader: Sendable {
  /// The bytes of the file at a path, or nil when it cannot be read.
  package var read: @Sendable (String) -> [UInt8]?
  /// The names in a directory (for suggesting the file meant), or none.
  package var list: @Sendable (String) -> [String]

  /// Creates a loader from its two functions.
  package init(read: @escaping @Sendable (String) -> [UInt8]?, list: @escaping @Sendable (String) -> [String]) {
    self.read = read
    self.list = list
  }

  /// Reads files and directories through the Posix module.
  package static let fileSystem = IncludeLoader(
    read: { path in Posix.directoryExists(path) ? nil : try? Posix.readFile(path, limit: 16 << 20) },
    list: { directory in (try? Posix.listDirectory(directory.isEmpty ? "." : directory)) ?? [] })

  /// Reads nothing: every `include` is a file that does not exist.
  package static let none = IncludeLoader(read: { _ in nil }, list: { _ in [] })

  /// Reads `files` (path → text), for tests.
  package static func files(_ files: [String: String]) -> IncludeLoader {
    IncludeLoader(
      read: { path in files[normalize(path)].map { Array($0.utf8) } },
      list: { directory in
        files.keys.compactMap { path in
          let parts = path.split(separator: "/", omittingEmptySubsequences: false)
          return parts.dropLast().joined(separator: "/") == directory ? parts.last.map(String.init) : nil
        }
      })
  }

  /// The directory of `file` (empty for a bare name).
  package static func directory(of file: String) -> String {
    let parts = file.split(separator: "/", omittingEmptySubsequences: false)
    return parts.count > 1 ? parts.dropLast().joined(separator: "/") : ""
  }

  /// `path` relative to the directory of `file` (an absolute path as it is), normalised.
  package static func resolve(_ path: String, from file: String) -> String {
    if path.hasPrefix("/") { return normalize(path) }
    let directory = directory(of: file)
    return normalize(directory.isEmpty ? path : directory + "/" + path)
  }

  /// `path` without `.` components, repeated slashes and `name/..` pairs (a leading `..` stays).
  package static func normalize(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
        continue
      }
      parts.append(part)
    }
    let joined = parts.joined(separator: "/")
    if path.hasPrefix("/") { return "/" + joined }
    return joined.isEmpty ? "." : joined
  }
}

/// Scenario outlines: the `examples:` table that runs a file once per row.
enum Outline {
  /// The rows of the file's top-level `examples:` table (one empty row when it has none; none when the table is
  /// wrong), and what is wrong with it.
  static func examples(_ lines: [SourceLine], file: String) -> (rows: [[ExampleValue]], diagnostics: [Diagnostic]) {
    var diagnostics: [Diagnostic] = []
    func diagnostic(_ error: ScenarioError, _ line: SourceLine, _ token: Token?) -> Diagnostic {
      Diagnostic(
        location: SourceLocation(file: file, line: line.number, column: token?.column ?? line.text.count + 1),
        error: error, sourceLine: line.text, length: token?.length ?? 1)
    }
    var tables: [(header: SourceLine, block: [SourceLine])] = []
    var index = 0
    while index < lines.count {
      let line = lines[index]
      index += 1
      guard line.indent == 0, isExamplesLine(line) else { continue }
      var block: [SourceLine] = []
      while index < lines.count, lines[index].indent > 0 {
        block.append(lines[index])
        index += 1
      }
      tables.append((line, block))
    }
    guard let table = tables.first else { return ([[]], []) }
    for extra in tables.dropFirst() {
      diagnostics.append(
        diagnostic(
          .misplaced("a second 'examples:' table", belongs: "a file has one table, with a column per placeholder"),
          extra.header, extra.header.tokens[0]))
    }
    guard let headerLine = table.block.first else {
      return ([], diagnostics + [diagnostic(.emptyBlock, table.header, table.header.tokens.last)])
    }
    let pipes = headerLine.tokens.contains { $0.text.contains("|") }
    let header = cells(headerLine, pipes: pipes)
    var names: [String] = []
    for cell in header {
      guard isIdentifier(cell.text) else {
        diagnostics.append(
          diagnostic(.expected("a column name such as device", found: cell.text), headerLine, cell.token))
        continue
      }
      if names.contains(cell.text) {
        diagnostics.append(diagnostic(.duplicateVariable(cell.text), headerLine, cell.token))
      }
      names.append(cell.text)
    }
    let rowLines = table.block.dropFirst()
    if rowLines.isEmpty {
      diagnostics.append(diagnostic(.expected("an example row under the header", found: nil), headerLine, nil))
    }
    var rows: [[ExampleValue]] = []
    for line in rowLines {
      let row = cells(line, pipes: pipes)
      guard row.count == header.count else {
        diagnostics.append(
          diagnostic(.exampleRowWidth(expected: header.count, found: row.count), line, line.tokens.first))
        continue
      }
      rows.append(zip(names, row).map { ExampleValue(name: $0, value: $1.text) })
    }
    // A broken table is reported alone: parsing rows it cannot give would only add noise.
    if !diagnostics.isEmpty || rows.isEmpty { return ([], diagnostics) }
    return (rows, [])
  }

  /// Whether the line is `examples:`.
  static func isExamplesLine(_ line: SourceLine) -> Bool {
    line.tokens.count == 2 && line.tokens[0].keyword == "examples" && line.tokens[1].text == ":"
  }

  /// The cells of a table line: words between `|` (when the header uses them; outer pipes optional), else one
  /// word per cell.
  private static func cells(_ line: SourceLine, pipes: Bool) -> [(text: String, token: Token)] {
    guard pipes else { return line.tokens.map { ($0.text, $0) } }
    // Words and separators in order, then the groups between separators.
    var groups: [[(String, Token)]] = [[]]
    for token in line.tokens {
      if token.quoted {
        groups[groups.count - 1].append((token.text, token))
        continue
      }
      for (offset, piece) in token.text.split(separator: "|", omittingEmptySubsequences: false).enumerated() {
        if offset > 0 { groups.append([]) }
        if !piece.isEmpty { groups[groups.count - 1].append((String(piece), token)) }
      }
    }
    if groups.count > 1, groups.first?.isEmpty == true { groups.removeFirst() }
    if groups.count > 1, groups.last?.isEmpty == true { groups.removeLast() }
    return groups.map { group in (group.map(\.0).joined(separator: " "), group.first?.1 ?? line.tokens[0]) }
  }

  /// A placeholder or variable name: a letter, then letters, digits, `_` or `-`.
  static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.first, first.isLetter, first.isASCII else { return false }
    return text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" }
  }
}

extension ParseState {
  /// Parses `lines` whose steps start at column `indent + 1` (deeper lines belong to the line ending in `:` above
  /// them), appending steps to `scenario` and errors to `diagnostics`. `for` blocks repeat their lines once per
  /// value; `include` parses another file's lines here; `topLevel` is the scenario file outside any block.
  mutating func parseBlock(
    _ lines: [SourceLine], indent: Int, into scenario: inout Scenario, diagnostics: inout [Diagnostic],
    topLevel: Bool
  ) {
    var index = 0
    while index < lines.count {
      guard let left = budget else { return }
      let raw = lines[index]
      index += 1
      guard left > 0 else {
        budget = nil
        diagnostics.append(
          diagnostic(
            .expansionTooLarge(limit: limit), raw, column: raw.tokens[0].column,
            length: raw.tokens[0].length))
        return
      }
      if raw.indent != indent {
        budget = left - 1
        diagnostics.append(
          diagnostic(.strayIndentedLine, raw, column: raw.indent + 1, length: raw.text.count - raw.indent))
        continue
      }
      var block: [SourceLine] = []
      if raw.tokens.last?.text == ":" {
        while index < lines.count, lines[index].indent > indent {
          block.append(lines[index])
          index += 1
        }
      }
      budget = left - 1 - block.count
      do {
        if Outline.isExamplesLine(raw) {
          // Read before any row is parsed (Outline.examples); only the scenario file's top level may have it.
          if !topLevel || includeStack.count > 1 {
            throw diagnostic(
              .misplaced("'examples:'", belongs: "it belongs at the top level of the scenario file"), raw,
              column: raw.tokens[0].column, length: raw.tokens[0].length)
          }
          continue
        }
        let line = try substitute(raw)
        let keyword = line.tokens[0].keyword
        switch keyword {
        case "for":
          try parseFor(line, block: block, into: &scenario, diagnostics: &diagnostics)
        case "include":
          try parseInclude(line, into: &scenario, diagnostics: &diagnostics)
        case _ where !topLevel && (keyword == "scenario" || keyword == "seed"):
          throw diagnostic(
            .misplaced(
              "'\(line.tokens[0].text)'",
              belongs: "settings belong at the top level of the scenario file, not in an included file or a block"),
            line, column: line.tokens[0].column, length: line.tokens[0].length)
        default:
          var substituted: [SourceLine] = []
          for blockLine in block { substituted.append(try substitute(blockLine)) }
          if let step = try parseLine(line, block: substituted, into: &scenario) { scenario.steps.append(step) }
        }
      } catch let error as Diagnostic {
        diagnostics.append(error)
      } catch {
        diagnostics.append(diagnostic(.unknownStep(raw.tokens[0].text, suggestion: nil), raw, column: 1))
      }
    }
  }

  /// `for <name> in <value>…:` + a block: the block once per value, `<name>` replaced by it.
  mutating func parseFor(
    _ line: SourceLine, block: [SourceLine], into scenario: inout Scenario, diagnostics: inout [Diagnostic]
  ) throws(Diagnostic) {
    var c = Cursor(line, self)
    _ = c.next()
    let nameToken = try c.word("a variable name such as device")
    guard Outline.isIdentifier(nameToken.text) else {
      throw c.error(.expected("a variable name such as device", found: nameToken.text), at: nameToken)
    }
    if variables[nameToken.text] != nil { throw c.error(.duplicateVariable(nameToken.text), at: nameToken) }
    try c.expect("in")
    var values: [Token] = []
    while let t = c.peek, t.text != ":" {
      c.index += 1
      if t.keyword != "and" { values.append(t) }
    }
    if values.isEmpty { throw c.error(.expected("values after 'in', such as phone, watch", found: c.peek?.text)) }
    try c.expect(":", what: "':' after the values")
    try c.finish()
    guard let first = block.first else { throw c.error(.emptyBlock, at: line.tokens.last) }
    for value in values {
      variables[nameToken.text] = value.text
      parseBlock(block, indent: first.indent, into: &scenario, diagnostics: &diagnostics, topLevel: false)
    }
    variables[nameToken.text] = nil
  }

  /// `include <file>`: the file's lines parsed here, as if written in place; diagnostics point into it.
  mutating func parseInclude(_ line: SourceLine, into scenario: inout Scenario, diagnostics: inout [Diagnostic])
    throws(Diagnostic)
  {
    var c = Cursor(line, self)
    _ = c.next()
    let target = try c.word("a file to include, relative to this file")
    try c.finish()
    let path = IncludeLoader.resolve(target.text, from: file)
    if includeStack.contains(path) {
      throw c.error(.includeCycle(includeStack + [path]), at: target)
    }
    guard includeStack.count < 32 else {
      throw c.error(.misplaced("a 33rd nested include", belongs: "includes nest at most 32 deep"), at: target)
    }
    let here = SourceLocation(file: file, line: line.number, column: target.column)
    var inner: [Diagnostic] = []
    if included[path] == nil, let bytes = loader.read(path) {
      switch SourceText.lines(bytes, file: path) {
      case .failure(let d): included[path] = .failure(d)
      case .success(let rawLines):
        var problems: [Diagnostic] = []
        let lines = SourceLine.tokenize(rawLines, file: path, diagnostics: &problems)
        // An unterminated quote is reported with the file's other errors (once: diagnostics are de-duplicated).
        inner += problems
        included[path] = .success(lines)
      }
    }
    guard let loaded = included[path] else {
      let directory = IncludeLoader.directory(of: path)
      let name = path.split(separator: "/").last.map(String.init) ?? path
      let near = suggest(name, from: loader.list(directory).filter { !$0.hasPrefix(".") }.sorted())
      let written = IncludeLoader.directory(of: target.text)
      throw c.error(
        .includeNotFound(target.text, suggestion: near.map { written.isEmpty ? $0 : written + "/" + $0 }), at: target)
    }
    switch loaded {
    case .failure(let d): inner.append(d)
    case .success(let lines):
      let saved = file
      file = path
      includeStack.append(path)
      parseBlock(lines, indent: 0, into: &scenario, diagnostics: &inner, topLevel: false)
      includeStack.removeLast()
      file = saved
    }
    for var d in inner {
      d.includedFrom.append(here)
      diagnostics.append(d)
    }
  }

  /// The line with each `<name>` placeholder in scope replaced by its value, keeping the placeholder's column (a
  /// value of several words becomes several words). An unquoted `<name>` nothing binds is an error at the start of a
  /// word; quoted text, and a `<name>` inside a word (a unit's molar mass), keep what nothing binds.
  func substitute(_ line: SourceLine) throws(Diagnostic) -> SourceLine {
    guard line.text.contains("<") else { return line }
    var tokens: [Token] = []
    var replaced = false
    for token in line.tokens {
      var text = ""
      var changed = false
      var rest = Substring(token.text)
      while let open = rest.firstIndex(of: "<") {
        text += rest[..<open]
        let after = rest[rest.index(after: open)...]
        guard let close = after.firstIndex(of: ">"), Outline.isIdentifier(String(after[..<close])) else {
          text.append("<")
          rest = after
          continue
        }
        let name = String(after[..<close])
        if let value = variables[name] {
          text += value
          changed = true
        } else if token.quoted || open != token.text.startIndex {
          // Quoted text, and a `<…>` inside a word (a molar mass: `mmol<180.15588000005408>/L`), keep what nothing
          // binds.
          text += "<\(name)>"
        } else {
          let offset = token.text.distance(from: token.text.startIndex, to: open)
          throw diagnostic(
            .unknownPlaceholder(name, suggestion: suggest(name, from: variables.keys.sorted())), line,
            column: token.column + offset, length: name.count + 2)
        }
        rest = after[after.index(after: close)...]
      }
      text += rest
      guard changed else {
        tokens.append(token)
        continue
      }
      replaced = true
      if token.quoted {
        tokens.append(Token(text: text, column: token.column, length: token.length, quoted: true))
      } else {
        let words = text.split { $0 == " " || $0 == "\t" || $0 == "," }
        for word in words {
          tokens.append(Token(text: String(word), column: token.column, length: token.length, quoted: false))
        }
      }
    }
    guard replaced else { return line }
    var result = line
    result.tokens = tokens
    var shown = line.text
    for (name, value) in variables { shown = shown.replacing("<\(name)>", with: value) }
    result.shown = shown
    return result
  }
}
