import FoundationEssentials
import HealthEngine
import HealthModel

/// What the parser knows while reading a file.
struct ParseState {
  /// The file being read: the scenario, or an included file while its lines are parsed.
  var file: String
  var apps: [String: AppDeclaration] = [:]
  /// The devices each app is installed on at the line being parsed, by name (Installs.swift).
  var installed: [String: Set<DeviceKind>] = [:]
  /// Where an `uninstall` last removed each app from each device.
  var uninstalled: [String: [DeviceKind: SourceLocation]] = [:]
  var sampleNames: Set<String> = []
  /// The names `saves workout … as <name>` gave (also in ``sampleNames``, which they share).
  var workoutNames: Set<String> = []
  /// The names `starts|prepares a workout session … as <name>` gave (a namespace of their own).
  var sessionNames: Set<String> = []
  /// The concept identifier of each medication `adds medication "<text>" as <name>` named (its name is also in
  /// ``sampleNames``).
  var medicationConcepts: [String: String] = [:]
  /// Where `include` reads files.
  let loader: IncludeLoader
  /// The values of the `<name>` placeholders in scope (`examples:` columns, `for` variables).
  var variables: [String: String] = [:]
  /// The files being included, outermost (the scenario) first: an include of one of them is a cycle.
  var includeStack: [String]
  /// Whether the `scenario:` line used a placeholder (an outline row's title then needs no suffix).
  var titleHadPlaceholder = false
  /// Included files read so far (an include repeated by a `for` block or an outline row is read once).
  var included: [String: Result<[SourceLine], Diagnostic>] = [:]
  /// How many more lines may be parsed (`for` blocks, includes and example rows multiply them); nil once spent.
  var budget: Int?
  /// The budget the file started with (for the message).
  var limit = ScenarioParser.lineBudget

  init(file: String, loader: IncludeLoader = .none) {
    self.file = file
    self.loader = loader
    self.includeStack = [IncludeLoader.normalize(file)]
  }

  func diagnostic(_ e: ScenarioError, _ line: SourceLine, column: Int, length: Int = 1) -> Diagnostic {
    Diagnostic(
      location: SourceLocation(file: file, line: line.number, column: column), error: e, sourceLine: line.text,
      length: length)
  }
}
