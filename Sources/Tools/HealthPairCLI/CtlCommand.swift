import Dispatch
import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render
import Wire

/// `healthpair ctl <phone|watch> <operation> …`: every client operation, for driving a pair by hand.
package struct CtlCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "ctl", abstract: "Drive one device by hand: install, request, answer, save, query, settings, clock, link…",
    usage: "ctl <phone|watch> <operation> [arguments] [--dir <dir>] [--timeout <seconds>]",
    discussion: """
      OPERATIONS (apps are bundle identifiers; types are HealthKit names such as dietaryWater):
        install <app> [--name <name>] [--write-usage <text>] [--read-usage <text>]
                [--health-records-usage <text>] [--required-type <clinical type identifier>]…
                [--entitlement background-delivery|health-records]…
        uninstall <app>
        request <app> [--share <t,t>] [--read <t,t>] [--no-wait]
                                   Prints the sheet if one is presented, then waits for the user's answer.
        answer <allow|deny|cancel|leave|fail|fail-silently> [--app <app>] [--prompt <id>]
        answer choose --on <share:t,read:t> [--app <app>]   Per-type choices; unlisted toggles stay off.
        status <app> <type>        authorizationStatus(for:)
        request-status <app> [--share <t,t>] [--read <t,t>]
        save <app> <type> <value> [<unit>] [--at <date>] [--duration <d>] [--end <date>] [--meta <k=v>] [--uuid <u>]
        delete <app> <uuid>…
        query <app> <type> [--start <date>] [--end <date>] [--strict-start] [--strict-end] [--limit <n>]
                           [--sort start|end|-start|-end] [--source <app>] [--unit <unit>]
        stats <app> <type> [--sum] [--avg] [--min] [--max] [--most-recent] [--duration] [--by-source]
                           [--start <date>] [--end <date>] [--unit <unit>]
        collection <app> <type> --interval <1h|1d|1w|1mo|1y…> [--anchor <date>] [--start <date>] [--end <date>]
                           [--sum|--avg|…]   Intervals in the device's calendar and time zone.
        source-order <type> <app@phone|app@watch>… | source-order <type> --default
                                   (phone) The Health app's data-source order of the type; it reaches the watch.
        anchored <app> <type> [--anchor <n>] [--limit <n>]
        settings <app> <share|read> <type> <on|off>     (phone) Settings → Privacy → Health
        settings <app> all-off | reset
        watch-settings <app> …     (phone) the same, in the iPhone's Watch app, for the watch
        clock set <date> | clock advance <duration> | clock real
        policy [--reprompt standard|strict] [--retention <duration>|none] [--authorization independent|companion]
               [--settings on-watch|iphone-only] [--units us|metric|uk] [--time-zone <zone>]
                                   (zone: UTC, UTC+05:30, Europe/Paris…)
        lock | unlock              Lock the device (the watch: take it off the wrist): queries fail with
                                   errorDatabaseInaccessible, saves wait for unlock; unlock merges them.
        characteristic <app> <type>            The app reads dateOfBirth, biologicalSex, bloodType, … (its answer).
        set-characteristic <type> <value>|notSet   The user, in the Health app (dates: YYYY-MM-DD).
        units <app> <type,type>    preferredUnits(for:) as the app gets it.
        prefer-unit <type> <unit>|default      The user chooses a display unit in the Health app.
        samples [<type>]           The raw store (every app's samples) and tombstones.
        earliest                   earliestPermittedSampleDate()
        background [<app>]         Background delivery registrations and their events.
        background <app> enable <type> [immediate|hourly|daily|weekly] | disable <type>|all | complete <delivery>
        link connect|disconnect|hold|release|status | link latency <duration>
        dump [--json]              Full device state.
        events                     Print pushed events until interrupted (or until --timeout passes).

      OPTIONS:
        --dir <dir>                The pair's directory (default: $HEALTHPAIR_DIR, else ./.healthpair).
        --timeout <seconds>        Give up after this long (error, exit 1) instead of waiting on: the connection and
                                   every answer (default 30); for request, the user's answer too (default 300); for
                                   events, stop listening (exit 0; default: never).

      Dates are UTC: 2026-01-05, 2026-01-05T08:00 or 2026-01-05T08:00:00Z. Durations: 250ms, 30s, 10m, 2h, 7d.
      A collection's intervals and local days follow the device's time zone (policy --time-zone).

      EXAMPLES:
        healthpair ctl phone install com.example.water --write-usage "Logs water" --read-usage "Shows totals"
        healthpair ctl phone request com.example.water --share dietaryWater --read dietaryWater
        healthpair ctl phone answer allow
        healthpair ctl phone save com.example.water dietaryWater 250 mL
        healthpair ctl phone query com.example.water dietaryWater
      """)

  var device: DeviceKind
  var operation: String
  var args: Arguments
  var directory: String
  /// `--timeout`, when given.
  var timeout: Double?

  /// The deadline of a connection and of each answer when `--timeout` is not given, seconds.
  static let defaultTimeout = 30.0
  /// The deadline of `request`'s wait for the user's answer when `--timeout` is not given, seconds.
  static let defaultAnswerTimeout = 300.0

  /// Parses the device and operation; the operation parses the rest when it runs.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    directory = pairDirectory(try args.option("dir"))
    if let text = try args.option("timeout") {
      guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 31_536_000 else {
        throw args.error("invalid value '\(text)' for '--timeout': expected seconds, more than 0 (e.g. 5 or 0.5)")
      }
      timeout = seconds
    }
    let deviceName = try args.required("device ('phone' or 'watch')")
    guard let device = DeviceKind(name: deviceName) else {
      throw args.error("unknown device '\(deviceName)': expected 'phone' or 'watch'")
    }
    self.device = device
    operation = try args.required("operation")
    self.args = args
  }

  /// Runs the operation.
  package func run() throws -> Int32 {
    var args = self.args
    let client = try DeviceClient(
      socketPath: PairLayout(root: directory).socket(device), clientName: "healthpair ctl",
      timeout: timeout ?? Self.defaultTimeout)
    defer { client.close() }
    do {
      try perform(&args, client)
      return 0
    } catch is CtlFailure {
      return 1
    } catch let error as ClientError {
      if let health = error.healthError {
        err("error: \(health)\n")
        return 1
      }
      throw error
    }
  }

  /// Runs the operation named on the command line (its row in ``operations``) on the connected device.
  private func perform(_ args: inout Arguments, _ client: DeviceClient) throws {
    guard let row = Self.operations.first(where: { $0.name == operation }) else {
      let suggestion = suggest(operation, from: Self.operations.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
      throw args.error("unknown operation '\(operation)'\(suggestion)")
    }
    try row.run(self, &args, client)
  }
}

/// A failure `ctl` has already explained on standard error; it exits 1.
struct CtlFailure: Error {}
