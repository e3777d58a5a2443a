import Testing

@testable import Posix

/// Every executable's and every `healthpair` subcommand's `--help`, compared byte for byte with
/// `Tests/CLITests/Golden/<page>.txt` (`healthpair.txt`, `healthpair-up.txt`, …, `healthpaird.txt`).
///
/// Help is part of the interface, so a change to it must be deliberate. After changing a command's configuration,
/// accept the new output with
///
///     HEALTHPAIR_UPDATE_GOLDEN=1 swift test --filter Golden
///
/// and review and commit the diff of `Tests/CLITests/Golden/`. Without the variable a difference fails with a diff,
/// and so does a subcommand without a golden file or a golden file without a subcommand.
@Suite("Golden help")
struct GoldenHelpTests {
  /// `Tests/CLITests/Golden`, next to this file.
  static let goldenDirectory: String = {
    let file = "\(#filePath)"
    return file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/Golden"
  }()

  /// Whether this run rewrites the golden files instead of comparing.
  static var updating: Bool { Posix.environment("HEALTHPAIR_UPDATE_GOLDEN") == "1" }

  /// One help page: the golden file's name (without `.txt`), the executable and its arguments.
  struct Page: CustomStringConvertible {
    var name: String
    var executable: String
    var arguments: [String]
    var description: String { ([executable] + arguments).joined(separator: " ") }
  }

  /// The subcommands `healthpair --help` lists, in order.
  static func subcommands(inHelp help: String) -> [String] {
    guard let list = help.split(separator: "\n", omittingEmptySubsequences: false).split(separator: "COMMANDS:").last
    else { return [] }
    return list.prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
  }

  /// Every help page: the four executables, then each subcommand `healthpair --help` lists.
  static func pages() throws -> [Page] {
    var pages = ["healthpair", "healthpaird", "healthpair-bench", "healthpair-fuzz"].map {
      Page(name: $0, executable: $0, arguments: ["--help"])
    }
    let top = try runBuilt("healthpair", ["--help"])
    for command in subcommands(inHelp: top.out) {
      pages.append(Page(name: "healthpair-\(command)", executable: "healthpair", arguments: [command, "--help"]))
    }
    return pages
  }

  @Test func everyHelpPageMatchesItsGoldenFile() throws {
    let pages = try Self.pages()
    #expect(pages.count > 4, "healthpair --help lists its subcommands")
    try Posix.makeDirectory(Self.goldenDirectory, mode: 0o755)
    for page in pages {
      let result = try runBuilt(page.executable, page.arguments)
      #expect(result.status == 0 && result.err.isEmpty, "\(page): status \(result.status), \(result.err)")
      let path = "\(Self.goldenDirectory)/\(page.name).txt"
      let golden = Posix.exists(path) ? String(decoding: try Posix.readFile(path), as: UTF8.self) : nil
      if golden == result.out { continue }
      if Self.updating {
        try Posix.writeFileAtomically(path, Array(result.out.utf8), mode: 0o644)
        continue
      }
      guard let golden else {
        let message =
          "\(page): no golden file Golden/\(page.name).txt. Review the help, then record it with "
          + "HEALTHPAIR_UPDATE_GOLDEN=1 swift test --filter Golden"
        Issue.record("\(message)")
        continue
      }
      let message =
        "\(page) differs from Golden/\(page.name).txt (accept a deliberate change with HEALTHPAIR_UPDATE_GOLDEN=1 "
        + "swift test --filter Golden):\n" + lineDiff(golden, result.out)
      Issue.record("\(message)")
    }
  }

  @Test func everyGoldenFileHasAHelpPage() throws {
    let names = Set(try Self.pages().map { "\($0.name).txt" })
    for file in try Posix.listDirectory(Self.goldenDirectory).sorted() where !names.contains(file) {
      if Self.updating {
        Posix.unlink("\(Self.goldenDirectory)/\(file)")
      } else {
        Issue.record("Golden/\(file) belongs to no executable or subcommand: remove it (or run the update)")
      }
    }
  }

  @Test func theDiffShowsTheChangedLinesWithTheirNumbers() {
    let diff = lineDiff("a\nb\nc\n", "a\nB\nc\nd\n")
    #expect(diff == "  2 - b\n  2 + B\n  4 + d\n")
    #expect(lineDiff("same\n", "same\n").isEmpty)
  }
}

/// The lines that differ between `expected` and `actual`: `- ` for a line only in `expected`, `+ ` for one only in
/// `actual`, each with its line number in its own text, in order (a longest-common-subsequence alignment).
func lineDiff(_ expected: String, _ actual: String) -> String {
  let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
  // common[i][j]: the length of the longest common subsequence of a[i...] and b[j...].
  var common = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
  for i in stride(from: a.count - 1, through: 0, by: -1) {
    for j in stride(from: b.count - 1, through: 0, by: -1) {
      common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
    }
  }
  var text = ""
  func line(_ number: Int, _ sign: String, _ content: Substring) {
    let label = String(number)
    text += String(repeating: " ", count: max(0, 3 - label.count)) + label + " \(sign) " + content + "\n"
  }
  var (i, j) = (0, 0)
  while i < a.count || j < b.count {
    if i < a.count, j < b.count, a[i] == b[j] {
      (i, j) = (i + 1, j + 1)
    } else if i < a.count, j == b.count || common[i + 1][j] >= common[i][j + 1] {
      line(i + 1, "-", a[i])
      i += 1
    } else {
      line(j + 1, "+", b[j])
      j += 1
    }
  }
  return text
}
