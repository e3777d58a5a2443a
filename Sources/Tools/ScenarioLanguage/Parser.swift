import FoundationEssentials
import HealthEngine
import HealthModel

// Grammar: the same text as the "Grammar" section of docs/scenario-language.md; the step forms below are the
// first column of its tables, in order (ScenarioTests check both, and that every example there parses).
//
//   file        := line*                                        (at least one step, at least one expect)
//   line        := setting | step | expect | reuse | block-line (block lines are indented under a line ending in ':')
//   setting     := "scenario:" title | "seed" n | "sync:" ("manual" | "automatic")
//   step        := install | uninstall | policy | clock | lock | app-step | user-step | link-step | wait | fault
//                | import | export
//   reuse       := "include" file | "for" name "in" word… ":" | "examples:"   (each opens a block but include)
//   devices     := "phone" | "watch" | "both" | "phone and watch"
//   types       := type ("," type | "and" type | type)*         (HealthKit names: dietaryWater, mindfulSession, …)
//   permission  := ("share" | "read") types
//   time        := 2026-01-05 | 2026-01-05T08:30[:00][Z] | 08:30 (on the clock's current day) | now | now-2h | now+1d
//                | distantPast                                (without Z: the device's local time and day)
//   zone        := UTC | UTC+05:30 | UTC-3 | Europe/Paris | America/New_York | …   (behavior.md K1)
//   range       := "from" time "to" time ["strictly starting"] ["strictly ending"]  (to a bare date: that day's end)
//   duration    := 250ms | 30s | 10m | 2h | 7d | 1w | 1h30m
//   value       := number unit | category-value | number      (a bare number after a category type is its raw value)
//   statistic   := "sum" | "average" | "min" | "max" | "mostRecent" | "duration"
//                | "cumulativeSum" | "discreteAverage" | "discreteMin" | "discreteMax"   (HealthKit's option names)
//   query       := [range] ["from" App…] ["sorted by" ("startDate" | "endDate") ["descending"] ("then" …)*]
//                  ["limit" n] ["with" key=value…] ["outside correlations"]
//                                                             (in any order; statistics take range and "from" App…)
//   outcome     := "is no data" | "fails with" code fragment* | "would terminate the app" ["with"] fragment*
//   fragment    := '"' text '"'                                 (each must occur in the error's message)
//   placeholder := "<" name ">"                                 (a "for" value or an "examples:" cell, anywhere)
//   characteristic := dateOfBirth | biologicalSex | bloodType | fitzpatrickSkinType | wheelchairUse
//                | activityMoveMode | "date of birth" | "biological sex" | "blood type" | "skin type"
//                | "wheelchair use" | "move mode"
//   entitlement := "background delivery" | "health records"
//   frequency   := "immediate" | "hourly" | "daily" | "weekly"
//   activity    := running | cycling | traditionalStrengthTraining | …   (HKWorkoutActivityType's Swift case names)
//   classification := sinusRhythm | atrialFibrillation | inconclusiveLowHeartRate | inconclusiveHighHeartRate
//                | inconclusivePoorReading | inconclusiveOther | unrecognized | notSet
//                                                             (HKElectrocardiogram.Classification's case names)
//
// Step forms (`expect <devices>:` or `expect` precedes an expectation; `+ lines` are the block under it):
//
//   Settings:
//   - scenario: <title>
//   - seed <n>
//   - sync: manual
//   - sync: automatic
//
//   Set-up:
//   - install <App> [as <bundle>] on <devices> [share <types>] [read <types>] [without share description] [without read
//       description] [without health records description] [with <entitlement> [and <entitlement>]] [requiring <clinical
//       types>]
//   - uninstall <App> from <devices>
//   - policy watch: settings on-watch|iphone-only
//   - policy <devices>: authorization independent|companion
//   - policy <devices>: reprompt standard|strict
//   - policy <devices>: retention <duration>|none
//   - policy <devices>: units us|metric|uk
//   - lock <devices> / unlock <devices>
//   - policy <devices>: background window <duration> retry <duration>
//   - clock: set <time>
//   - clock: advance <duration>
//   - clock: time zone <zone> [on <devices>]
//   - travel <devices> to <zone>
//   - import <file> on <device> [with source "<name>" as <bundle>]… [fails [with "<text>"]]
//   - export <device> to <name>
//
//   The app:
//   - <device>: <App> requests [share <types>] [read <types>]
//   - <device>: <App> requests from an extension [share <types>] [read <types>]
//   - <device>: <App> handles authorization for its extensions
//   - <device>: <App> saves <value> <type> [when] [with <key>=<value>…] [uuid <UUID>] [as <name>]
//   - <device>: <App> saves <sample> plus <sample>…
//   - <device>: <App> saves <type> correlation [as <name>] [with <key>=<value>…] of <sample> plus <sample>…
//   - <device>: <App> saves <n> random <type> samples over <duration>
//   - <device>: <App> deletes all <type> [range]
//   - <device>: <App> resaves <name> [as <value> [<unit>]]
//   - <device>: <App> deletes <name>…
//   - <device>: <App> saves workout <activity> from <time> to <time>|for <duration> [paused <time> to <time>]…
//       [activity <activity> from <time> to <time>|for <duration>]… [energy <n> <unit>]
//       [distance <n> <unit> [<type>]] [heart rate every <duration> at <n> bpm]
//       [series <type> every <duration> at <value> <unit>]…
//       [route [<n> Hz|every <duration>] from <latitude>,<longitude> [at <n> m/s]] [indoor|outdoor]
//       [with <key>=<value>…] [uuid <UUID>] [as <name>]
//   - <device>: <App> saves route [<n> Hz|every <duration>] from <latitude>,<longitude> [at <n> m/s] for workout
//       <name>
//   - <device>: <App> adds <sample> [plus <sample>…] to workout <name> / adds <name>… to workout <name>
//   - <device>: <App> deletes workout <name>
//   - <device>: <App> saves heartbeat series at <time> with beats every <duration> for <duration>
//       [gap at <duration> for <duration>]… [as <name>]
//   - <device>: <App> saves audiogram at <time> with <frequency> Hz <left>/<right> dBHL[, <frequency> Hz
//       <left>/<right> dBHL]… [as <name>]
//   - <device>: <App> logs state of mind momentaryEmotion|dailyMood valence <v> [labels <label>…] [associations
//       <association>…] [at <time>] [as <name>]
//   - <device>: <App> logs GAD-7|PHQ-9 answers <answer>… [at <time>] [as <name>]
//   - <device>: <App> saves glasses|contacts prescription [right sphere <d> [cylinder <d> axis <degrees>]] [left
//       sphere <d> [cylinder <d> axis <degrees>]] [brand <word>] [issued <time>] [expires <time>] [as <name>]
//   - <device>: <App> asks to read vision prescriptions [issued from <time>]
//   - <device>: <App> asks to read medications
//   - <device>: <App> saves CDA document "<title>" [for "<patient>"] [by "<author>"] [from "<custodian>"] [at
//       <time>] [without custodian] [as <name>]
//   - <device>: <App> asks to read CDA documents [titled "<title>"]
//   - <device>: <App> enables background delivery of <type> [immediate|hourly|daily|weekly]
//   - <device>: <App> disables background delivery of <type> / disables all background delivery
//   - <device>: <App> completes the background delivery of <type>
//
//   Workout sessions:
//   - <device>: <App> starts a workout session <activity> [indoor|outdoor] [as <name>]
//   - <device>: <App> prepares a workout session <activity> [indoor|outdoor] [as <name>]
//   - <device>: <App> starts workout session <name>
//   - <device>: <App> pauses|resumes|stops|ends workout session <name>
//   - <device>: <App> finishes workout session <name> [as <name>]
//   - <device>: <App> discards workout session <name>
//   - <device>: <App> mirrors workout session <name> to the phone|watch
//   - <device>: <App> stops mirroring workout session <name>
//   - <device>: <App> sends <message> over workout session <name>
//   - phone: <App> starts the watch app for a workout <activity> [indoor|outdoor]
//   - <device>: <App> goes to the background / comes to the foreground / is suspended / is killed
//   - <device>: the wearer's effort becomes rest|easy|moderate|hard|maximal|pace <m:ss> min/km
//   - watch: the watch is taken off / watch: the watch is put back on
//   - <device>: the wearer records an ECG <classification> [at <time>] [heart rate <n> bpm] [with symptoms
//       [<symptom>…]|with no symptoms] [for <duration>] [fails [with "<text>"]]
//   - <device>: the provider sends <clinical type> "<name>" as <FHIR type> [from "<provider>"] [fails [with
//       "<text>"]]
//   - <App>'s workout session <name> is notStarted|prepared|running|paused|stopped|ended
//   - <App>'s workout session <name> heard <callback> [then <callback>]… / heard nothing
//   - <App>'s workout session <name> elapsed time is <duration>
//   - <App>'s workout session <name> collected <n> <type> samples
//   - <App>'s workout session <name> <statistic> of <type> is <value> <unit> / has no <type> statistics
//   - <App>'s workout session <name> builder is notStarted|collecting|ended|finished|discarded
//   - <App>'s workout session <name> is primary|mirrored
//   - <App>'s workout session <name> received <message> [then <message>]… / received nothing
//   - <App> recovers workout session <name> / <App> has no workout session to recover
//
//   The user:
//   - user on <devices>: allows all [for <App>]
//   - user on <devices>: doesn't allow [for <App>]
//   - user on <devices>: allows <permission>… [for <App>]
//   - user on <devices>: cancels [the sheet] [for <App>]
//   - user on <devices>: leaves the app [for <App>]
//   - user on <devices>: sheet fails to present [silently] [for <App>]
//   - user on <devices>: turns on <name>… [for <App>] / user on <devices>: turns on nothing [for <App>]
//   - user on <devices>: adds medication "<text>" [concept "<id>"] [form <form>] [nickname "<text>"] [scheduled]
//       [archived] [as <name>] [fails [with "<text>"]]
//   - user on <devices>: logs a dose of <name> [<status>] [at <time>] [scheduled for <time>] [amount <n>] [fails
//       [with "<text>"]]
//   - user on <devices>: in Settings turns on|off <share|read> <type> for <App>
//   - user on <devices>: in Settings turns off all for <App> / user on <devices>: in Settings resets <App>
//   - user on phone: in the Watch app turns on|off <share|read> <type> for <App> (also turns off all for, resets)
//   - user on <device>: sets <characteristic> [to] <value>|notSet
//   - user on <device>: prefers <unit>|the default unit for <type>
//   - user on phone: in Health orders <type> sources <App> [on <device>]… / user on phone: in Health orders <type>
//       sources by default
//
//   The link and faults:
//   - link: disconnect / link: reconnect
//   - link: hold [<device> to <device>] / link: release [<device> to <device>]
//   - link: latency <duration>
//   - wait until synced [within <duration>]
//   - kill -9 <device>
//   - stop <device>
//   - restart <device>
//   - tear <device> journal
//   - cut <device> journal by <n> records
//
//   Reuse: includes and outlines:
//   - include <file>
//   - for <name> in <value>…: + lines
//   - examples: + a header row and value rows
//
//   Expectations:
//   - <App> share <type> is <status>
//   - <App> read <type> is authorized|denied|undecided
//   - <App> request status [for] [share <types>] [read <types>] is <status> / would terminate the app [with "…"]
//   - <App>'s last call succeeded
//   - <App>'s last call failed [with <code>] ["<fragment>"…]
//   - <App>'s last call would terminate the app [with "<fragment>"…]
//   - <App>'s request is pending
//   - <App>'s request showed a sheet [listing <permission>…] / <App>'s request showed no sheet
//   - <App>'s requests showed <n> sheets, answered <n>, cancelled <n>, <n> presentations failed
//   - <n> sheets pending / no sheet pending
//   - <App>'s queries of <type> fail with <code>
//   - <App> reads <characteristic> as <value>|notSet
//   - <App>'s read of <characteristic> fails with <code>
//   - <App>'s preferred unit for <type> is <unit>
//   - <App>'s preferred units for <types> fail with <code>
//   - locked / unlocked
//   - <n> samples wait for unlock
//   - <n> sync conflicts
//   - <App>'s background delivery of <type> is on [<frequency>]|off|stopped|waiting
//   - <App>'s background deliveries of <type>: <n> woken, <n> completed, <n> missed
//   - <App> is locked out / <App> is not locked out
//   - <App> sees <n> <type> samples [query] / <App> sees no <type> samples [query]
//   - <App> sees <n> <type> correlations [with <n> objects each] [query]
//   - <App> sees <n> workouts [of <activity> [or <activity>…]] [with activity <activity> [or <activity>…]]
//       [lasting at least <duration>] [query] / <App> sees no workouts …
//   - <App>'s workout <name> lasts <duration> / is <activity> / is not found
//   - <App>'s workout <name> <statistic> of <type> is <value> <unit> / has no <type> statistics
//   - <App>'s workout <name> activity <k> is <activity> / activity <k> lasts <duration> / activity <k> <statistic> of
//       <type> is <value> <unit>
//   - <App>'s workout <name> has <n> [<type>] samples / has <n> routes [with <m> locations [each]] / has <n> events /
//       has <n> <event type> events / has <n> activities [of <activity>] / has no route
//   - <App> sees <n> heartbeat series [with <m> beats [each]] [and <k> gaps [each]] [query]
//   - <App> sees <n> electrocardiograms [of <classification> [or <classification>]…] [with symptoms|with no
//       symptoms] [with <m> voltages [each]] [query] / <App> sees no electrocardiograms …
//   - <App> sees <n> audiograms [with <m> points [each]] [query] / <App> sees no audiograms …
//   - <App> sees <n> states of mind [of <kind>] [labelled <label>] [about <association>] [with valence above|below
//       <v>] [classified <class>] [query] / <App> sees no states of mind …
//   - <App> sees <n> GAD-7|PHQ-9 assessments [scoring <s>] [at risk <risk>] [query] / <App> sees no GAD-7|PHQ-9
//       assessments …
//   - <App> sees <n> vision prescriptions [query] / <App> sees no vision prescriptions …
//   - <App> sees <n> medications [archived|not archived] [scheduled|not scheduled] / <App> sees no medications …
//   - <App> sees <n> dose events [of <name>] [<status>] [query] / <App> sees no dose events …
//   - <App> sees <n> CDA documents [titled "<title>"] [query] / <App> sees no CDA documents …
//   - <App> sees <n> <clinical type> records [of <FHIR type>] [query] / <App> sees no <clinical type> records …
//   - <App> sees <n> workout routes [with <m> locations [each]] [query]
//   - <App> sees activity summary [for] <date>[:] [<ring> <value> <unit>]… [paused|not paused] / <App> sees no
//       activity summary <date>
//   - <App>'s activity summary query [for <date>] <outcome>
//   - <App> sees <value> <unit> of <type> [on <date>]
//   - <App> sees <type> [query]: + lines <value> at <time> [from <App>] [on <device>]
//   - <App>'s sample query of <type> [query] <outcome>
//   - <App> <statistic> of <type> [on <date> | range] [from <App>…] is <value> <unit>
//   - <App> <statistic> of <type> [on <date> | range] [from <App>…] by source: + lines <App> <value> <unit>
//   - <App> <statistic> of <type> [on <date> | range] [from <App>…] <outcome>
//   - <App> <statistic> of <type> by hour|day|week|month <range> [from <App>…]: + lines <start> <value> <unit>|none
//   - <App> <statistic> of <type> by hour|day|week|month <range> [from <App>…] <outcome>
//   - <App> sees changes of <type>: <n> added, <n> deleted
//   - store has <n> [<type>] samples / store has no samples / store has <name> / store lacks <name>
//   - store has <n> [<type>] samples [from <source>] [with <key>=<value>…]
//   - last import added <n> samples [and <m> already present] [and <k> before the retention window]
//   - earliest permitted sample date is <time>
//   - clock is <time>
//   - the last settings change was refused|applied
//   - expect converged
//   - expect diverged: + lines only on <device>: <name>…
//   - expect link is up|down
//
// Lines indented under a line that ends in ':' form that line's block (expected samples, buckets, sources,
// divergences, the lines of a `for`, the rows of `examples:`).

/// Parses scenario files into ``Scenario`` values, reporting every error in the file.
package enum ScenarioParser {
  /// The clock every scenario starts at unless it sets one.
  package static let defaultStart = parseDate("2026-01-05T08:00:00Z")!
  /// The most lines one file may expand to, every example row, `for` repetition and include counted: nested
  /// blocks multiply, and a file must not keep the parser (or the fuzzer) busy for ever.
  package static let lineBudget = 100_000

  /// Parses `text` as if read from `file` (a leading BOM and CRLF line ends are handled as in a file's bytes);
  /// returns the scenario (an outline's first example row) or every diagnostic, in line order.
  package static func parse(_ text: String, file: String, loader: IncludeLoader = .fileSystem)
    -> Result<Scenario, Diagnostics>
  {
    parse(bytes: Array(text.utf8), file: file, loader: loader)
  }

  /// Parses the bytes of `file` (see ``SourceText`` for the encoding and line ends); returns the scenario (an
  /// outline's first example row: ``parseAll(bytes:file:loader:)`` gives every row) or every diagnostic, in line
  /// order. An encoding error is the only diagnostic of its file: the lines it would split are not trusted. A file
  /// that parses but has no step, or no expectation, is an error too: it would check nothing.
  package static func parse(bytes: [UInt8], file: String, loader: IncludeLoader = .fileSystem)
    -> Result<Scenario, Diagnostics>
  {
    parseAll(bytes: bytes, file: file, loader: loader).map { $0[0] }
  }

  /// Parses `file` into one scenario, or one per row of its `examples:` table (each runs on a pair of its own);
  /// `include` lines read through `loader`; at most `budget` lines once blocks, includes and rows are expanded.
  package static func parseAll(
    bytes: [UInt8], file: String, loader: IncludeLoader = .fileSystem, budget limit: Int = lineBudget
  ) -> Result<[Scenario], Diagnostics> {
    let rawLines: [String]
    switch SourceText.lines(bytes, file: file) {
    case .success(let lines): rawLines = lines
    case .failure(let diagnostic): return .failure(Diagnostics(items: [diagnostic]))
    }
    var diagnostics: [Diagnostic] = []
    let lines = SourceLine.tokenize(rawLines, file: file, diagnostics: &diagnostics)
    let outline = Outline.examples(lines, file: file)
    diagnostics += outline.diagnostics
    let group = file.split(separator: "/").dropLast().last.map(String.init) ?? "."
    let baseName = file.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) } ?? file
    var seen = Set(diagnostics)
    var scenarios: [Scenario] = []
    var budget: Int? = limit
    for row in outline.rows where budget != nil {
      var state = ParseState(file: file, loader: loader)
      state.budget = budget
      state.limit = limit
      for value in row { state.variables[value.name] = value.value }
      var scenario = Scenario(file: file, title: baseName, seed: nil, steps: [], apps: [:], group: group)
      var found: [Diagnostic] = []
      state.parseBlock(lines, indent: 0, into: &scenario, diagnostics: &found, topLevel: true)
      budget = state.budget
      for diagnostic in found where seen.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
      scenario.apps = state.apps
      scenario.example = row
      if !row.isEmpty && !state.titleHadPlaceholder {
        scenario.title += " (" + row.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + ")"
      }
      scenarios.append(scenario)
    }
    if !diagnostics.isEmpty { return .failure(Diagnostics(items: diagnostics.sorted { $0.location < $1.location })) }
    // A file that checks nothing must not pass: reported at the end of its last non-blank line.
    if let empty = scenarios.first(where: { !$0.steps.contains(where: \.isExpectation) }) {
      let number = rawLines.lastIndex { !$0.trimmingWhitespace().isEmpty }.map { $0 + 1 } ?? 1
      let text = rawLines.indices.contains(number - 1) ? rawLines[number - 1].replacingTabs() : ""
      let location = SourceLocation(file: file, line: number, column: text.count + 1)
      let error: ScenarioError = empty.steps.isEmpty ? .noSteps : .noExpectations
      return .failure(Diagnostics(items: [Diagnostic(location: location, error: error, sourceLine: text)]))
    }
    return .success(scenarios)
  }
}
