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

  private func type(_ name: String, _ args: Arguments) throws(UsageError) -> SampleType {
    if let type = SampleType.lookup(name: name) { return type }
    let suggestion = suggest(name, from: SampleType.catalog.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
    throw args.error("unknown type '\(name)'\(suggestion)")
  }

  private func characteristicType(_ name: String, _ args: Arguments) throws(UsageError) -> SampleType {
    let t = try type(name, args)
    guard t.descriptor.isCharacteristic else {
      let names = SampleType.catalog.filter(\.isCharacteristic).map(\.name).joined(separator: ", ")
      throw args.error("\(t.name) is not a characteristic type: expected one of \(names)")
    }
    return t
  }

  private func types(_ list: String?, _ args: Arguments) throws(UsageError) -> [SampleType] {
    guard let list else { return [] }
    var result: [SampleType] = []
    for name in list.split(separator: ",") { result.append(try type(String(name), args)) }
    return result
  }

  private func date(_ text: String?, _ args: Arguments, _ what: String) throws(UsageError) -> Date? {
    guard let text else { return nil }
    guard let date = parseDate(text) else {
      throw args.error("invalid \(what) '\(text)': expected a UTC date such as 2026-01-05T08:00")
    }
    return date
  }

  private func duration(_ text: String, _ args: Arguments) throws(UsageError) -> Double {
    guard let d = parseDuration(text) else {
      throw args.error("invalid duration '\(text)': expected e.g. 30s, 10m, 2h, 7d")
    }
    return d
  }

  private func range(_ args: inout Arguments) throws(UsageError) -> DateRange? {
    let start = try date(try args.option("start"), args, "start")
    let end = try date(try args.option("end"), args, "end")
    var options: QueryOptions = []
    if args.flag("strict-start") { options.insert(.strictStartDate) }
    if args.flag("strict-end") { options.insert(.strictEndDate) }
    return start == nil && end == nil ? nil : DateRange(start: start, end: end, options: options)
  }

  private func unit(_ args: inout Arguments) throws(UsageError) -> HealthUnit? {
    guard let text = try args.option("unit") else { return nil }
    do { return try HealthUnit(parsing: text) } catch { throw args.error("invalid unit '\(text)': \(error)") }
  }

  private func settingsChange(_ args: inout Arguments) throws(UsageError) -> SettingsChange {
    let first = try args.required("'share', 'read', 'all-off' or 'reset'")
    switch first {
    case "all-off": return .turnAllOff
    case "reset": return .reset
    case "share", "read":
      let t = try type(try args.required("type"), args)
      let state = try args.required("'on' or 'off'")
      guard state == "on" || state == "off" else { throw args.error("expected 'on' or 'off', got '\(state)'") }
      return .set(Permission(t, first == "share" ? .share : .read), on: state == "on")
    default: throw args.error("unknown settings change '\(first)': expected share, read, all-off or reset")
    }
  }

  private func statisticsOptions(_ args: inout Arguments) -> StatisticsOptions {
    var options: StatisticsOptions = []
    if args.flag("sum") { options.insert(.cumulativeSum) }
    if args.flag("avg") { options.insert(.discreteAverage) }
    if args.flag("min") { options.insert(.discreteMin) }
    if args.flag("max") { options.insert(.discreteMax) }
    if args.flag("most-recent") { options.insert(.mostRecent) }
    if args.flag("by-source") { options.insert(.separateBySource) }
    if args.flag("duration") { options.insert(.duration) }
    return options
  }

  private func describe(_ stats: Statistics, _ type: SampleType, unit: HealthUnit?) -> String {
    let canonical = type.descriptor.canonicalUnit!
    let shown = unit ?? canonical
    func v(_ x: Double?) -> String? {
      x.map { "\(formatNumber((try? canonical.convert($0, to: shown)) ?? $0)) \(shown)" }
    }
    var parts = ["\(formatDate(stats.start))–\(formatDate(stats.end))", "samples=\(stats.sampleCount)"]
    if let s = v(stats.sum) { parts.append("sum=\(s)") }
    if let s = v(stats.average) { parts.append("avg=\(s)") }
    if let s = v(stats.minimum) { parts.append("min=\(s)") }
    if let s = v(stats.maximum) { parts.append("max=\(s)") }
    if let s = v(stats.mostRecent) { parts.append("most-recent=\(s)") }
    if let d = stats.duration { parts.append("duration=\(formatDuration(d))") }
    for (bundle, part) in stats.bySource.sorted(by: { $0.key < $1.key }) {
      parts.append(
        "[\(bundle): " + describe(part, type, unit: unit).split(separator: " ").dropFirst().joined(separator: " ") + "]"
      )
    }
    return parts.joined(separator: "  ")
  }

  /// `background [<app>]`, `background <app> enable|disable|complete …`.
  private func background(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.positional()
    guard let bundle, let action = try args.positional() else {
      try args.finish()
      let (list, history) = try client.backgroundDeliveries(bundle)
      for s in list {
        var state = s.stopped ? "stopped" : s.waiting.map { "waiting for delivery #\($0)" } ?? "on"
        if s.pending { state += ", changes pending" }
        out(
          "\(s.key.bundleID) \(s.key.type.name): \(s.frequency) (applied: \(s.effective)), \(state); woken \(s.woken), "
            + "completed \(s.completed), misses in a row \(s.misses)\n")
      }
      for e in history { out("  \(formatDate(e.at)) \(e)\n") }
      if list.isEmpty { out("no background delivery registrations\n") }
      return
    }
    switch action {
    case "enable":
      let t = try type(try args.required("type"), args)
      let name = try args.positional() ?? "immediate"
      guard let frequency = UpdateFrequency(name: name) else {
        throw args.error("unknown frequency '\(name)': expected immediate, hourly, daily or weekly")
      }
      try args.finish()
      try client.enableBackgroundDelivery(bundle, t, frequency: frequency)
      out("background delivery of \(t.name) enabled for \(bundle) (\(frequency))\n")
    case "disable":
      let which = try args.required("type or 'all'")
      let t = which == "all" ? nil : try type(which, args)
      try args.finish()
      try client.disableBackgroundDelivery(bundle, t)
      out("background delivery of \(t?.name ?? "every type") disabled for \(bundle)\n")
    case "complete":
      let text = try args.required("delivery number")
      guard let delivery = UInt64(text) else { throw args.error("invalid delivery number '\(text)'") }
      try args.finish()
      try client.completeBackgroundDelivery(bundle, delivery: delivery)
      out("completion handler of delivery #\(delivery) called\n")
    default:
      throw args.error("unknown background operation '\(action)': expected enable, disable or complete")
    }
  }

  private func perform(_ args: inout Arguments, _ client: DeviceClient) throws {
    switch operation {
    case "install":
      let bundle = try args.required("app")
      var entitlements: Set<Entitlement> = []
      for name in try args.options("entitlement") {
        guard let entitlement = Entitlement(name: name) else {
          throw args.error("unknown entitlement '\(name)': expected background-delivery or health-records")
        }
        entitlements.insert(entitlement)
      }
      let app = AppRecord(
        bundleID: bundle, displayName: try args.option("name") ?? bundle,
        writeUsageDescription: try args.option("write-usage"),
        readUsageDescription: try args.option("read-usage"), entitlements: entitlements)
      try args.finish()
      try client.installApp(app)
      out("installed \(bundle) on the \(device)\n")
    case "uninstall":
      let bundle = try args.required("app")
      try args.finish()
      try client.uninstallApp(bundle)
      out("uninstalled \(bundle) from the \(device)\n")
    case "request":
      let bundle = try args.required("app")
      let share = try types(try args.option("share"), args)
      let read = try types(try args.option("read"), args)
      let noWait = args.flag("no-wait")
      try args.finish()
      let request = try client.beginAuthorization(bundle, share: share, read: read)
      switch try request.waitFirst(timeout: client.timeout) {
      case .final(let result):
        out("completed without a sheet: \(describeAuthorization(result))\n")
        // Say why when it is the watch's lockout rather than decisions already made (W1).
        if let app = try client.dump().device.app(bundle), app.lockedOut {
          out(
            "note: no sheet because the \(device)'s strict re-prompt model locked \(bundle) out after a denial or "
              + "cancel; change its permissions in Settings or the iPhone's Watch app to ask again\n")
        }
      case .sheet(let prompt):
        out(
          "sheet presented (#\(prompt.id)) listing \(prompt.permissions.map(\.description).joined(separator: ", "))\n")
        if noWait { return }
        out("waiting for the user (healthpair ctl \(device) answer allow|deny|cancel|fail)…\n")
        let seconds = timeout ?? Self.defaultAnswerTimeout
        switch catching({ () throws(ClientError) in try request.wait(timeout: seconds) }) {
        case .success(let final): out("completed: \(describeAuthorization(final))\n")
        case .failure(.timeout):
          err(
            "error: nobody answered the sheet within \(formatSeconds(seconds)); it is still up — answer it with "
              + "'healthpair ctl \(device) answer allow|deny|cancel|fail', or wait longer with --timeout <seconds>\n")
          throw CtlFailure()
        case .failure(let error): throw error
        }
      }
    case "answer":
      let how = try args.required("answer")
      let bundle = try args.option("app")
      let prompt = try args.intOption("prompt", range: 1...Int(Int32.max)).map { UInt64($0) }
      let answer: PromptAnswer
      switch how {
      case "allow": answer = .allowAll
      case "deny": answer = .denyAll
      case "cancel": answer = .cancel
      case "fail": answer = .failToPresent(.error)
      case "fail-silently": answer = .failToPresent(.silent)
      case "leave": answer = .leaveApp
      case "choose":
        var choices: [Permission: Bool] = [:]
        for (flag, on) in [("on", true), ("off", false)] {
          for list in try args.options(flag) {
            for item in list.split(separator: ",") {
              let parts = item.split(separator: ":")
              guard parts.count == 2,
                let direction = parts[0] == "share" ? Direction.share : parts[0] == "read" ? .read : nil
              else {
                throw args.error("invalid choice '\(item)': expected share:<type> or read:<type>")
              }
              choices[Permission(try type(String(parts[1]), args), direction)] = on
            }
          }
        }
        answer = .choices(choices)
      default: throw args.error("unknown answer '\(how)': expected allow, deny, cancel, fail, fail-silently or choose")
      }
      try args.finish()
      try client.answerPrompt(answer, promptID: prompt, bundleID: bundle)
      out("answered\n")
    case "status":
      let bundle = try args.required("app")
      let t = try type(try args.required("type"), args)
      try args.finish()
      let status = try client.authorizationStatus(bundle, t)
      out("\(status) (\(status.rawValue))\n")
    case "request-status":
      let bundle = try args.required("app")
      let share = try types(try args.option("share"), args)
      let read = try types(try args.option("read"), args)
      try args.finish()
      let status = try client.requestStatus(bundle, share: share, read: read)
      out("\(status) (\(status.rawValue))\n")
    case "save":
      let bundle = try args.required("app")
      let t = try type(try args.required("type"), args)
      let valueText = try args.required("value")
      let at = try date(try args.option("at"), args, "date") ?? Date(timeIntervalSince1970: Posix.wallClockSeconds())
      let durationText = try args.option("duration")
      let endText = try args.option("end")
      let uuidText = try args.option("uuid")
      var metadata: Metadata = [:]
      for item in try args.options("meta") {
        let kv = item.split(separator: "=", maxSplits: 1)
        guard kv.count == 2 else { throw args.error("invalid metadata '\(item)': expected key=value") }
        let key = MetadataKey.byConstantName[String(kv[0])] ?? String(kv[0])
        let v = String(kv[1])
        metadata[key] =
          v == "true"
          ? .bool(true)
          : v == "false" ? .bool(false) : Int64(v).map { .int($0) } ?? Double(v).map { .double($0) } ?? .string(v)
      }
      let value: SampleInput.Value
      if let canonical = t.descriptor.canonicalUnit {
        guard let number = Double(valueText) else {
          throw args.error("invalid value '\(valueText)': expected a number")
        }
        value = .quantity(number, unit: try args.positional() ?? canonical.description)
      } else if let values = t.descriptor.categoryValues {
        if let raw = Int(valueText) {
          value = .category(raw)
        } else if let named = values.first(where: { $0.name == valueText }) {
          value = .category(named.value)
        } else {
          throw args.error(
            "invalid value '\(valueText)' for \(t.name): expected one of \(values.map(\.name).joined(separator: ", "))")
        }
      } else if t.descriptor.isCharacteristic {
        throw args.error("\(t.name) is a characteristic type, not a sample type: the user sets it (set-characteristic)")
      } else {
        throw args.error("\(t.name) is a correlation type: HealthPair does not save correlations")
      }
      try args.finish()
      var end = at
      if let durationText { end = at.addingTimeInterval(try duration(durationText, args)) }
      if let e = try date(endText, args, "end") { end = e }
      var uuid = UUID()
      if let uuidText {
        guard let parsed = UUID(uuidString: uuidText) else { throw args.error("invalid UUID '\(uuidText)'") }
        uuid = parsed
      }
      try client.save(bundle, [SampleInput(uuid: uuid, type: t, value: value, start: at, end: end, metadata: metadata)])
      out("saved \(uuid.uuidString.lowercased())\n")
    case "delete":
      let bundle = try args.required("app")
      var uuids: [UUID] = []
      for text in try args.rest() {
        guard let u = UUID(uuidString: text) else { throw args.error("invalid UUID '\(text)'") }
        uuids.append(u)
      }
      try client.delete(bundle, uuids)
      out("deleted \(uuids.count)\n")
    case "query":
      let bundle = try args.required("app")
      let t = try type(try args.required("type"), args)
      let r = try range(&args)
      let limit = try args.intOption("limit", range: 0...Int(Int32.max)) ?? 0
      var sort: [SampleSort] = []
      if let s = try args.option("sort") {
        let descending = s.hasPrefix("-")
        let field = descending ? String(s.dropFirst()) : s
        guard field == "start" || field == "end" else {
          throw args.error("invalid sort '\(s)': expected start, end, -start or -end")
        }
        sort = [SampleSort(field == "start" ? .startDate : .endDate, ascending: !descending)]
      }
      let sources = try args.options("source")
      let shown = try unit(&args)
      try args.finish()
      let samples = try client.sampleQuery(
        bundle, SampleQuery(type: t, range: r, sources: sources.isEmpty ? nil : Set(sources), limit: limit, sort: sort))
      for s in samples { out(s.describe(unit: shown) + "\n") }
      out("\(samples.count) sample\(samples.count == 1 ? "" : "s")\n")
    case "stats", "collection":
      let bundle = try args.required("app")
      let t = try type(try args.required("type"), args)
      let r = try range(&args)
      var options = statisticsOptions(&args)
      let shown = try unit(&args)
      var interval: CalendarInterval?
      var anchor: Date?
      if operation == "collection" {
        guard let i = try args.option("interval") else { throw args.error("missing '--interval'") }
        guard let parsed = CalendarInterval(parsing: i) else {
          throw args.error("invalid interval '\(i)': expected e.g. 1h, 30m, 1d, 1w, 1mo or 1y")
        }
        interval = parsed
        anchor = try date(try args.option("anchor"), args, "anchor")
      }
      try args.finish()
      if options.isEmpty { options = t.descriptor.aggregation?.isDiscrete == true ? .discreteAverage : .cumulativeSum }
      let query = StatisticsQuery(type: t, range: r, options: options, interval: interval, anchor: anchor)
      if operation == "stats" {
        out(describe(try client.statistics(bundle, query), t, unit: shown) + "\n")
      } else {
        for bucket in try client.statisticsCollection(bundle, query) { out(describe(bucket, t, unit: shown) + "\n") }
      }
    case "anchored":
      let bundle = try args.required("app")
      let t = try type(try args.required("type"), args)
      let anchor = UInt64(try args.intOption("anchor", range: 0...Int.max) ?? 0)
      let limit = try args.intOption("limit", range: 0...Int(Int32.max)) ?? 0
      try args.finish()
      let result = try client.anchoredQuery(bundle, type: t, anchor: anchor, limit: limit)
      for s in result.added { out("+ " + s.describe() + "\n") }
      for d in result.deleted { out("- \(d.uuid.uuidString.lowercased()) \(d.type.name)\n") }
      out("anchor \(result.newAnchor)\n")
    case "settings", "watch-settings":
      let bundle = try args.required("app")
      let change = try settingsChange(&args)
      try args.finish()
      if operation == "settings" {
        try client.changeSettings(bundle, change)
      } else {
        try client.watchSettings(bundle, change)
      }
      out(operation == "settings" ? "changed\n" : "queued for the watch\n")
    case "clock":
      let how = try args.required("'set', 'advance' or 'real'")
      let now: Date
      switch how {
      case "set":
        let text = try args.required("date")
        guard let d = parseDate(text) else { throw args.error("invalid date '\(text)'") }
        try args.finish()
        now = try client.setClock(d)
      case "advance":
        let d = try duration(try args.required("duration"), args)
        try args.finish()
        now = try client.advanceClock(seconds: d)
      case "real":
        try args.finish()
        now = try client.setClock(nil)
      default: throw args.error("unknown clock operation '\(how)': expected set, advance or real")
      }
      out("\(device) clock: \(formatDate(now))\n")
    case "policy":
      let current = try client.dump().device.policy
      var policy = current
      if let r = try args.option("reprompt") {
        guard let p = RepromptPolicy(rawValue: r) else {
          throw args.error("invalid re-prompt policy '\(r)': expected standard or strict")
        }
        policy.reprompt = p
      }
      if let r = try args.option("retention") { policy.retention = r == "none" ? nil : try duration(r, args) }
      if let a = try args.option("authorization") {
        guard let model = AuthorizationModel.allCases.first(where: { $0.description == a }) else {
          throw args.error("invalid authorization model '\(a)': expected independent or companion")
        }
        policy.authorization = model
      }
      if let w = try args.option("settings") {
        guard let model = WatchSettingsModel.allCases.first(where: { $0.description == w }) else {
          throw args.error("invalid watch settings model '\(w)': expected on-watch or iphone-only")
        }
        policy.watchSettings = model
      }
      if let u = try args.option("units") {
        guard let units = UnitLocale(name: u) else {
          throw args.error("invalid unit locale '\(u)': expected us, metric or uk")
        }
        policy.units = units
      }
      if let z = try args.option("time-zone") {
        do { policy.timeZone = try TimeZoneRule(identifier: z) } catch { throw args.error("\(error)") }
      }
      try args.finish()
      try client.setPolicy(policy)
      out(
        "policy: reprompt=\(policy.reprompt.rawValue) retention=\(policy.retention.map(formatDuration) ?? "none") "
          + "units=\(policy.units) time-zone=\(policy.timeZone)\n")
    case "lock", "unlock":
      try args.finish()
      try client.setLocked(operation == "lock")
      out("\(device) \(operation == "lock" ? "locked: protected health data unavailable" : "unlocked")\n")
    case "characteristic":
      let bundle = try args.required("app")
      let t = try characteristicType(try args.required("type"), args)
      try args.finish()
      let value = try client.readCharacteristic(bundle, t)
      out("\(t.name): \(value?.name(for: t) ?? "notSet")\n")
    case "set-characteristic":
      let t = try characteristicType(try args.required("type"), args)
      let text = try args.required("value (or notSet)")
      try args.finish()
      var value: CharacteristicValue?
      if text.lowercased() != "notset" {
        guard let parsed = CharacteristicValue.parse(text, for: t) else {
          let valid = t.descriptor.characteristicValues?.map(\.name) ?? []
          throw args.error(
            "invalid value '\(text)' for \(t.name): expected "
              + (valid.isEmpty ? "a date such as 1990-04-02" : (["notSet"] + valid).joined(separator: ", ")))
        }
        value = parsed
      }
      try client.changeUserSetting(.characteristic(t, value))
      out("\(t.name) set to \(value?.name(for: t) ?? "notSet") in the \(device)'s Health app\n")
    case "units":
      let bundle = try args.required("app")
      let list = try types(try args.required("types"), args)
      try args.finish()
      for (t, unit) in try client.preferredUnits(bundle, list).sorted(by: { $0.key < $1.key }) {
        out("\(t.name): \(unit)\n")
      }
    case "prefer-unit":
      let t = try type(try args.required("type"), args)
      let text = try args.required("unit (or default)")
      try args.finish()
      let unit: String? = text == "default" ? nil : text
      if let unit {
        do { _ = try HealthUnit(parsing: unit) } catch { throw args.error("invalid unit '\(unit)': \(error)") }
      }
      try client.changeUserSetting(.preferredUnit(t, unit))
      out("\(t.name) shown in \(unit ?? "the locale's default unit") on the \(device)\n")
    case "source-order":
      let t = try type(try args.required("type"), args)
      let reset = args.flag("default")
      var sources: [SampleSource] = []
      for text in try args.rest() {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let on = DeviceKind(name: String(parts[1])) else {
          throw args.error("invalid source '\(text)': expected <app>@phone or <app>@watch")
        }
        sources.append(SampleSource(bundleID: String(parts[0]), device: on))
      }
      guard reset != !sources.isEmpty else {
        throw args.error("give the sources in order (<app>@phone, <app>@watch) or --default, not both")
      }
      try client.setSourceOrder(t, sources)
      out(
        reset
          ? "\(t.name): default source order\n" : "\(t.name): \(sources.map(\.description).joined(separator: ", "))\n")
    case "samples":
      let t = try args.positional().map { name throws(UsageError) in try type(name, args) }
      try args.finish()
      let (samples, tombstones) = try client.storedSamples(type: t)
      for s in samples { out(s.describe() + "\n") }
      for d in tombstones where t == nil || d.type == t {
        out("deleted \(d.uuid.uuidString.lowercased()) \(d.type.name) \(d.source)\n")
      }
      out("\(samples.count) stored, \(tombstones.count) deleted\n")
    case "earliest":
      try args.finish()
      out(formatDate(try client.earliestPermittedSampleDate()) + "\n")
    case "background":
      try background(&args, client)
    case "link":
      let how = try args.required("link operation")
      let command: LinkCommand?
      switch how {
      case "connect": command = .connect
      case "disconnect": command = .disconnect
      case "hold": command = .hold
      case "release": command = .release
      case "latency": command = .latency(try duration(try args.required("duration"), args))
      case "status": command = nil
      default: throw args.error("unknown link operation '\(how)'")
      }
      try args.finish()
      var status: LinkStatus
      if let command { status = try client.link(command) } else { status = try client.dump().link }
      if command == .connect && !status.connected {
        // Wait until linked (both sides must allow the link), on pushed link events, with a deadline.
        let gate = DispatchSemaphore(value: 0)
        let token = client.addListener { event in if case .linkChanged = event { gate.signal() } }
        defer { client.removeListener(token) }
        try client.subscribe(.link)
        let seconds = timeout ?? 10
        let deadline = DispatchTime.now() + seconds
        while true {
          status = try client.link(.reconnectNow)
          if status.connected { break }
          if gate.wait(timeout: deadline) == .timedOut, !(try client.link(.reconnectNow)).connected {
            err(
              "error: the link did not come up within \(formatSeconds(seconds)): is the \(device.peer) running, and "
                + "its side of the link connected ('healthpair ctl \(device.peer) link connect')?\n")
            throw CtlFailure()
          }
        }
      }
      out(
        "link \(status.connected ? "up" : "down") enabled=\(status.enabled) holding=\(status.holding) latency=\(formatDuration(status.latency)) pending=\(status.sync.pendingItems)\n"
      )
    case "dump":
      let json = args.flag("json")
      try args.finish()
      let snapshot = try client.dump()
      out(json ? snapshot.json.render() + "\n" : snapshot.describe().joined(separator: "\n") + "\n")
    case "events":
      try args.finish()
      _ = client.addListener { event in out("\(event)\n") }
      try client.subscribe(.all)
      let until = timeout.map { " for \(formatSeconds($0))" } ?? " (Ctrl-C to stop)"
      out("listening for events on the \(device)\(until)\n")
      if client.waitUntilClosed(timeout: timeout) { out("the \(device) daemon closed the connection\n") }
    default:
      let operations = [
        "install", "uninstall", "request", "answer", "status", "request-status", "save", "delete", "query", "stats",
        "collection", "anchored", "settings", "watch-settings", "clock", "policy", "samples", "earliest", "link",
        "dump", "events", "lock", "unlock", "characteristic", "set-characteristic", "units", "prefer-unit",
      ]
      let suggestion = suggest(operation, from: operations).map { " (did you mean '\($0)'?)" } ?? ""
      throw args.error("unknown operation '\(operation)'\(suggestion)")
    }
  }

  /// `30 s`, `0.5 s`.
  private func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
  }

  private func describeAuthorization(_ result: AuthorizationCallResult) -> String {
    "success=\(result.success)" + (result.error.map { " error=\($0)" } ?? "")
  }
}

/// A failure `ctl` has already explained on standard error; it exits 1.
struct CtlFailure: Error {}
