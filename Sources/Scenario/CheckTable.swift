import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage
import Wire

extension RunContext {
  private func fail(_ step: Step, _ expected: String, _ actual: String) -> StepFailure {
    StepFailure(step: step, expected: expected, actual: actual)
  }

  private func same(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * max(1, abs(a), abs(b)) }

  private func show(_ value: Double, _ unit: HealthUnit) -> String {
    "\(formatNumber((value * 1e6).rounded() / 1e6)) \(unit)"
  }

  /// The name a scenario gave a UUID, or the UUID.
  private func name(of uuid: UUID) -> String { names.first { $0.value == uuid }?.key ?? uuid.uuidString.lowercased() }

  mutating func check(_ expectation: Expectation, _ step: Step) throws {
    switch expectation {
    case .shareStatus(let devices, let name, let type, let expected):
      for device in devices.list {
        let actual = try client(device).authorizationStatus(app(name).bundleID, type)
        if actual != expected {
          throw fail(step, "\(device): \(name) authorizationStatus(\(type)) = \(expected)", "\(actual)")
        }
      }
    case .hiddenRead(let devices, let name, let type, let expected):
      for device in devices.list {
        let actual = try client(device).dump().device.app(app(name).bundleID)?.decision(Permission(type, .read))
        if actual != expected {
          throw fail(
            step, "\(device): \(name)'s hidden read decision for \(type) = \(expected?.description ?? "undecided")",
            actual?.description ?? "undecided")
        }
      }
    case .requestStatus(let devices, let name, let share, let read, let expected):
      for device in devices.list {
        let declared = declared(name, on: device)
        let bundle = declared.bundleID
        let (share, read) = (share ?? declared.share, read ?? declared.read)
        let client = client(device)
        let result = attempt({ () throws(ClientError) in try client.requestStatus(bundle, share: share, read: read) })
        let met: Bool
        switch (expected, result) {
        case (.status(let status), .success(let actual)): met = actual == status
        case (.wouldTerminate(let fragments), .failure(let e)):
          met = e.healthError.map { $0.kind == .wouldTerminate && contains($0.message, fragments) } ?? false
        default: met = false
        }
        if met { continue }
        let wanted =
          switch expected {
          case .status(let status): "\(status)"
          case .wouldTerminate(let fragments): "would terminate the app" + fragments.map { " with \"\($0)\"" }.joined()
          }
        let actual: String
        switch result {
        case .success(let status): actual = "\(status)"
        case .failure(let e): actual = e.healthError.map { "an error: \($0)" } ?? "\(e)"
        }
        throw fail(step, "\(device): request status \(wanted)", actual)
      }
    case .lastCall(let device, let name, let expected):
      settle(device)
      guard let call = lastCall[key(device, name)] else {
        throw fail(step, "\(name) to have made a call on the \(device)", "no call yet")
      }
      // What the call ended with: pending, success, or an error (a request's success = false included).
      let ok: Bool
      switch (expected, call.ending) {
      case (.pending, .pending): ok = true
      case (.succeeded, .succeeded): ok = true
      case (.failed(let code, let fragments), .failed(let error)):
        ok =
          error.map { $0.kind == .healthKit && (code == nil || $0.code == code) && contains($0.message, fragments) }
          ?? (code == nil && fragments.isEmpty)
      case (.wouldTerminate(let fragments), .failed(let error?)):
        ok = error.kind == .wouldTerminate && contains(error.message, fragments)
      default: ok = false
      }
      if !ok { throw fail(step, "\(name)'s last call on the \(device) \(describe(expected))", call.outcome) }
    case .sheetShown(let device, let name, let listing):
      guard case .request(_, let sheet)? = lastCall[key(device, name)] else {
        throw fail(step, "\(name)'s last request on the \(device) showed a sheet", "\(name) made no request")
      }
      guard let sheet else { throw fail(step, "\(name)'s request showed a sheet", "no sheet was shown") }
      if let listing, Set(listing) != Set(sheet.permissions) {
        throw fail(
          step, "a sheet listing \(listing.sorted().map(\.description).joined(separator: ", "))",
          "a sheet listing \(sheet.permissions.map(\.description).joined(separator: ", "))")
      }
    case .noSheet(let device, let name):
      guard case .request(_, let sheet)? = lastCall[key(device, name)] else {
        throw fail(step, "\(name)'s last request on the \(device) showed no sheet", "\(name) made no request")
      }
      if let sheet {
        throw fail(step, "no sheet", "a sheet listing \(sheet.permissions.map(\.description).joined(separator: ", "))")
      }
    case .pendingSheets(let device, let expected):
      let prompts = try client(device).dump().device.pendingPrompts
      if prompts.count != expected {
        throw fail(
          step, "\(expected) sheet\(expected == 1 ? "" : "s") pending on the \(device)",
          "\(prompts.count)"
            + (prompts.isEmpty ? "" : ": " + prompts.map { "#\($0.id) \($0.bundleID)" }.joined(separator: ", ")))
      }
    case .lockedOut(let devices, let name, let expected):
      for device in devices.list {
        let actual = try client(device).dump().device.app(app(name).bundleID)?.lockedOut ?? false
        if actual != expected {
          throw fail(
            step, "\(name) \(expected ? "locked out" : "not locked out") on the \(device)",
            actual ? "locked out" : "not locked out")
        }
      }
    case .seesCount(let devices, let spec, let expected):
      for device in devices.list {
        let actual = try samples(device, spec, step, expecting: "\(expected) samples")
        if actual.count != expected {
          throw fail(step, "\(spec.app) sees \(expected) \(spec.type) samples on the \(device)", "\(actual.count)")
        }
      }
    case .seesCorrelations(let devices, let spec, let expected, let objectsEach):
      for device in devices.list {
        let query = CorrelationQuery(
          base: SampleQuery(
            type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
            limit: spec.limit ?? 0, sort: spec.sort))
        let bundle = app(spec.app).bundleID
        let results: [CorrelationResult]
        switch attempt({ () throws(ClientError) in try client(device).correlationQuery(bundle, query) }) {
        case .success(let r): results = r
        case .failure(let error):
          guard let health = error.healthError else { throw error }
          throw fail(
            step, "\(spec.app)'s correlation query of \(spec.type) on the \(device) to return \(expected)",
            show(health))
        }
        if results.count != expected {
          throw fail(
            step, "\(spec.app) sees \(expected) \(spec.type) correlations on the \(device)", "\(results.count)")
        }
        if let objectsEach, let odd = results.first(where: { $0.objects.count != objectsEach }) {
          throw fail(
            step, "\(objectsEach) objects in each \(spec.type) correlation on the \(device)",
            "\(odd.objects.count) in \(odd.correlation.uuid)")
        }
      }
    case .seesTotal(let devices, let name, let type, let value, let unit, let day):
      for device in devices.list {
        let actual = try visibleTotal(device, name, type, unit: unit, day: day)
        if !same(actual, value) {
          throw fail(step, "\(name) sees \(show(value, unit)) of \(type) on the \(device)", show(actual, unit))
        }
      }
    case .seesSamples(let device, let spec, let expected):
      let samples = try samples(device, spec, step, expecting: "\(expected.count) samples")
      let actual = samples.map { describeForBlock($0, like: expected.first) }
      let wanted = expected.map { line -> String in
        var text = "\(line.value) at \(formatDate(resolve(line.at, on: device)))"
        if let app = line.app { text += " from \(app)" }
        if let device = line.device { text += " on \(device)" }
        return text
      }
      let actualAligned =
        zip(samples, expected).map { describeForBlock($0.0, like: $0.1) }
        + samples.dropFirst(expected.count).map { describeForBlock($0, like: nil) }
      if actualAligned != wanted {
        throw fail(
          step, wanted.isEmpty ? "no samples" : wanted.joined(separator: "\n"),
          actual.isEmpty ? "no samples" : actualAligned.joined(separator: "\n"))
      }
    case .sampleQuery(let device, let spec, let expected):
      let result = attempt { () throws(ClientError) in try sampleQuery(device, spec) }
      try compare(result, expected, step, what: "\(spec.app)'s sample query of \(spec.type)") { samples in
        samples.isEmpty ? nil : "it returned \(samples.count) sample\(samples.count == 1 ? "" : "s")"
      }
    case .statistic(let device, let spec, let expected):
      try checkStatistic(device, spec, expected, step)
    case .collection(let device, let spec, let expected):
      try checkCollection(device, spec, expected, step)
    case .sheetHistory(let device, let name, let counts):
      let wanted = describe(counts, counts)
      let actual = describe(sheetCounts(device, name), counts)
      if wanted != actual { throw fail(step, "\(name)'s requests on the \(device): \(wanted)", actual) }
    case .settingsRefused(let device, let refused):
      guard let result = settingsResult[device] else {
        throw fail(step, "a Settings change on the \(device)", "none was made")
      }
      switch (refused, result) {
      case (true, .failure), (false, .success): break
      case (true, .success): throw fail(step, "the change to be refused", "it was applied")
      case (false, .failure(let e)): throw fail(step, "the change to be applied", "refused: \(e)")
      }
    case .clock(let device, let time):
      let actual = try client(device).dump().device.now
      let expected = resolve(time, on: device)
      if actual != expected { throw fail(step, formatDate(expected), formatDate(actual)) }
    case .changes(let device, let name, let type, let added, let deleted):
      let anchorKey = key(device, name) + "/\(type.code)"
      let result = try client(device).anchoredQuery(app(name).bundleID, type: type, anchor: anchors[anchorKey] ?? 0)
      anchors[anchorKey] = result.newAnchor
      if result.added.count != added || result.deleted.count != deleted {
        throw fail(
          step, "\(added) added, \(deleted) deleted", "\(result.added.count) added, \(result.deleted.count) deleted")
      }
    case .storeCount(let devices, let type, let expected):
      for device in devices.list {
        let actual = try client(device).storedSamples(type: type).samples.count
        if actual != expected {
          throw fail(step, "the \(device) stores \(expected) \(type?.name ?? "") samples", "\(actual)")
        }
      }
    case .storeHas(let devices, let sample, let expected):
      for device in devices.list {
        let uuid = names[sample] ?? UUID()
        let actual = try client(device).storedSamples().samples.contains { $0.uuid == uuid }
        if actual != expected {
          throw fail(
            step, "the \(device) \(expected ? "stores" : "does not store") \(sample)",
            actual ? "it is stored" : "it is not stored")
        }
      }
    case .earliestPermitted(let device, let time):
      let actual = try client(device).earliestPermittedSampleDate()
      let expected = resolve(time, on: device)
      if actual != expected { throw fail(step, formatDate(expected), formatDate(actual)) }
    case .converged:
      let phone = try client(.phone).storedSamples()
      let watch = try client(.watch).storedSamples()
      let differences = convergence(phone: phone.samples, watch: watch.samples)
      let phoneDeleted = Set(phone.tombstones.map(\.uuid))
      let watchDeleted = Set(watch.tombstones.map(\.uuid))
      var problems = differences
      if phoneDeleted != watchDeleted {
        let phoneOnly = phoneDeleted.subtracting(watchDeleted).map { name(of: $0) }.sorted()
        let watchOnly = watchDeleted.subtracting(phoneDeleted).map { name(of: $0) }.sorted()
        problems.append(
          "deletions only on the phone: \(phoneOnly.joined(separator: ", ")); only on the watch: "
            + watchOnly.joined(separator: ", "))
      }
      if !problems.isEmpty {
        throw fail(
          step, "both devices store the same samples (values, dates, metadata, sources) and deletions",
          problems.joined(separator: "\n"))
      }
    case .diverged(let expected):
      let phone = Set(try client(.phone).storedSamples().samples.map(\.uuid))
      let watch = Set(try client(.watch).storedSamples().samples.map(\.uuid))
      let actual = [
        "only on phone: " + phone.subtracting(watch).map(name).sorted().joined(separator: ", "),
        "only on watch: " + watch.subtracting(phone).map(name).sorted().joined(separator: ", "),
      ]
      var wantedPhone: [String] = []
      var wantedWatch: [String] = []
      for d in expected { if d.onlyOn == .phone { wantedPhone += d.names } else { wantedWatch += d.names } }
      let wanted = [
        "only on phone: " + wantedPhone.sorted().joined(separator: ", "),
        "only on watch: " + wantedWatch.sorted().joined(separator: ", "),
      ]
      if wanted != actual { throw fail(step, wanted.joined(separator: "\n"), actual.joined(separator: "\n")) }
    case .backgroundState(let devices, let name, let type, let expected):
      for device in devices.list {
        let status = try client(device).backgroundDeliveries(app(name).bundleID).registrations.first {
          $0.key.type == type
        }
        let actual: String
        switch status {
        case nil: actual = "off"
        case let s? where s.stopped: actual = "stopped"
        case let s? where s.waiting != nil: actual = "waiting (on \(s.effective))"
        case let s?: actual = "on \(s.effective)"
        }
        let ok: Bool
        switch expected {
        case .off: ok = status == nil
        case .stopped: ok = status?.stopped == true
        case .waiting: ok = status?.waiting != nil
        case .on(let frequency):
          ok = status.map { !$0.stopped && (frequency == nil || $0.effective == frequency) } ?? false
        }
        if !ok {
          let what: String =
            switch expected {
            case .off: "off"
            case .stopped: "stopped"
            case .waiting: "waiting"
            case .on(let f): f.map { "on \($0)" } ?? "on"
            }
          throw fail(step, "\(device): \(name)'s background delivery of \(type.name) is \(what)", actual)
        }
      }
    case .backgroundCounts(let devices, let name, let type, let woken, let completed, let missed):
      for device in devices.list {
        let history = try client(device).backgroundDeliveries(app(name).bundleID).history.filter { $0.type == type }
        func count(_ kind: BackgroundDeliveryEvent.Kind) -> Int { history.filter { $0.kind == kind }.count }
        let actual = "\(count(.woken)) woken, \(count(.completed)) completed, \(count(.missed)) missed"
        let expected = "\(woken) woken, \(completed) completed, \(missed) missed"
        if actual != expected {
          throw fail(step, "\(device): \(name)'s background deliveries of \(type.name): \(expected)", actual)
        }
      }
    case .queriesFail(let device, let name, let type, let code):
      let bundle = app(name).bundleID
      let client = client(device)
      var kinds: [(String, () throws(ClientError) -> Void)] = [
        ("sample query", { () throws(ClientError) in _ = try client.sampleQuery(bundle, SampleQuery(type: type)) }),
        (
          "anchored query",
          { () throws(ClientError) in
            _ = try client.anchoredQuery(bundle, type: type, anchor: 0, range: nil, limit: 0)
          }
        ),
      ]
      if let style = type.descriptor.aggregation {
        let options: StatisticsOptions = style == .cumulative ? .cumulativeSum : .discreteAverage
        kinds.append(
          (
            "statistics query",
            { () throws(ClientError) in
              _ = try client.statistics(bundle, StatisticsQuery(type: type, options: options))
            }
          ))
        kinds.append(
          (
            "statistics collection query",
            { () throws(ClientError) in
              _ = try client.statisticsCollection(
                bundle,
                StatisticsQuery(
                  type: type, options: options, interval: CalendarInterval(days: 1),
                  anchor: Date(timeIntervalSinceReferenceDate: 0)))
            }
          ))
      }
      for (kind, run) in kinds {
        switch attempt(run) {
        case .success: throw fail(step, "\(name)'s \(kind) of \(type.name) to fail with \(code)", "it succeeded")
        case .failure(let error) where error.healthError?.kind == .healthKit && error.healthError?.code == code:
          continue
        case .failure(let error): throw fail(step, "\(name)'s \(kind) of \(type.name) to fail with \(code)", "\(error)")
        }
      }
    case .lastImport(let device, let added, let alreadyPresent, let beforeRetention):
      guard let report = lastImport[device] else {
        throw fail(step, "an import into the \(device)", "no import ran on the \(device)")
      }
      let outcome = report.outcome
      func describe(_ a: Int, _ p: Int?, _ r: Int?) -> String {
        "\(a) added" + (p.map { ", \($0) already present" } ?? "")
          + (r.map { ", \($0) before the retention window" } ?? "")
      }
      if outcome.addedCount != added || alreadyPresent.map({ $0 != outcome.alreadyPresent }) == true
        || beforeRetention.map({ $0 != outcome.beforeRetention }) == true
      {
        throw fail(
          step, describe(added, alreadyPresent, beforeRetention),
          describe(outcome.addedCount, outcome.alreadyPresent, outcome.beforeRetention))
      }
    case .storeCountMatching(let devices, let type, let expected, let source, let metadata):
      for device in devices.list {
        let actual = try client(device).storedSamples(type: type).samples.filter { sample in
          (source.map { sample.source.details?.name == $0 || sample.source.bundleID == $0 } ?? true)
            && metadata.allSatisfy { sample.metadata[$0.key] == $0.value }
        }.count
        if actual != expected {
          let from = source.map { " from \"\($0)\"" } ?? ""
          let with =
            metadata.isEmpty
            ? "" : " with " + metadata.keys.sorted().map { "\($0)=\(metadata[$0]!)" }.joined(separator: " and ")
          throw fail(step, "the \(device) stores \(expected) \(type?.name ?? "") samples\(from)\(with)", "\(actual)")
        }
      }
    case .syncConflicts(let devices, let expected):
      for device in devices.list {
        let actual = try client(device).dump().link.sync.conflicts
        if actual != expected {
          throw fail(step, "\(expected) sync conflicts on the \(device)", "\(actual)")
        }
      }
    case .locked(let devices, let expected):
      for device in devices.list {
        let actual = try client(device).dump().device.locked
        if actual != expected {
          throw fail(step, "the \(device) \(expected ? "locked" : "unlocked")", actual ? "locked" : "unlocked")
        }
      }
    case .waitingForUnlock(let device, let expected):
      let actual = try client(device).dump().device.lockedSamples
      if actual != expected {
        throw fail(
          step, "\(expected) sample\(expected == 1 ? "" : "s") waiting for the \(device) to unlock", "\(actual)")
      }
    case .characteristic(let device, let name, let type, let expected):
      let bundle = app(name).bundleID
      let client = client(device)
      let actual: CharacteristicExpectation
      switch attempt({ () throws(ClientError) in try client.readCharacteristic(bundle, type) }) {
      case .success(let value): actual = .value(value)
      case .failure(let error):
        guard let health = error.healthError, health.kind == .healthKit else {
          throw fail(step, describe(expected, type), "\(error)")
        }
        actual = .fails(health.code)
      }
      if actual != expected { throw fail(step, describe(expected, type), describe(actual, type)) }
    case .preferredUnit(let device, let name, let type, let expected):
      let bundle = app(name).bundleID
      let client = client(device)
      switch attempt({ () throws(ClientError) in try client.preferredUnits(bundle, [type]) }) {
      case .success(let units):
        let actual = units[type] ?? "none"
        let same = actual == expected || (try? HealthUnit(parsing: actual)) == (try? HealthUnit(parsing: expected))
        if !same { throw fail(step, "\(name)'s preferred unit for \(type) = \(expected)", actual) }
      case .failure(let error):
        throw fail(step, "\(name)'s preferred unit for \(type) = \(expected)", "\(error)")
      }
    case .preferredUnitsFail(let device, let name, let types, let code):
      let bundle = app(name).bundleID
      let client = client(device)
      let what = "\(name)'s preferredUnits(for: \(types.map(\.name).joined(separator: ", "))) to fail with \(code)"
      switch attempt({ () throws(ClientError) in try client.preferredUnits(bundle, types) }) {
      case .success(let units):
        throw fail(
          step, what,
          "it returned " + units.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
      case .failure(let error) where error.healthError?.kind == .healthKit && error.healthError?.code == code: break
      case .failure(let error): throw fail(step, what, "\(error)")
      }
    case .linkUp(let expected):
      let phone = try client(.phone).link(.reconnectNow).connected
      let watch = try client(.watch).link(.reconnectNow).connected
      if (phone && watch) != expected {
        throw fail(
          step, expected ? "link up" : "link down", "phone \(phone ? "up" : "down"), watch \(watch ? "up" : "down")")
      }
    case .onBoth(let phone, let watch):
      // Checked on the phone, then the watch; a failure says which device.
      for (device, expectation) in [(DeviceKind.phone, phone), (.watch, watch)] {
        do { try check(expectation, step) } catch let failure as StepFailure {
          throw failure.on(device)
        }
      }
    }
  }

  /// How a characteristic read is written in a failure: `reads female`, `fails with errorDatabaseInaccessible (6)`.
  private func describe(_ expectation: CharacteristicExpectation, _ type: SampleType) -> String {
    switch expectation {
    case .value(let value): "reads \(value?.name(for: type) ?? "notSet")"
    case .fails(let code): "fails with \(code) (\(code.rawValue))"
    }
  }

  /// The app's visible total of a type over a day: a statistics sum for quantities, summed durations for categories.
  private func visibleTotal(_ device: DeviceKind, _ name: String, _ type: SampleType, unit: HealthUnit, day: Date?)
    throws -> Double
  {
    let bundle = app(name).bundleID
    if let canonical = type.descriptor.canonicalUnit {
      let client = client(device)
      let query = StatisticsQuery(type: type, range: dayRange(day, on: device), options: .cumulativeSum)
      switch attempt({ () throws(ClientError) in try client.statistics(bundle, query) }) {
      case .success(let stats): return try canonical.convert(stats.sum ?? 0, to: unit)
      case .failure(let e) where e.healthError?.code == .errorNoData: return 0
      case .failure(let e): throw e
      }
    }
    let range = dayRange(day, on: device)
    let samples = try client(device).sampleQuery(bundle, SampleQuery(type: type, range: range))
    var seconds = 0.0
    for s in samples {
      var start = s.start
      var end = s.end
      if let range, let dayStart = range.start, let dayEnd = range.end {
        start = max(start, dayStart)
        end = min(end, dayEnd)
      }
      seconds += max(0, end.timeIntervalSince(start))
    }
    return try HealthUnit(parsing: "s").convert(seconds, to: unit)
  }

  /// Renders a sample the way a block line writes it, in the same unit as the expected line.
  private func describeForBlock(_ sample: Sample, like line: ExpectedSample?) -> String {
    var text: String
    switch sample.value {
    case .quantity(let v):
      let canonical = sample.type.descriptor.canonicalUnit!
      let unitText = line.flatMap { $0.value.split(separator: " ").last.map(String.init) }
      let unit = unitText.flatMap { try? HealthUnit(parsing: $0) } ?? canonical
      let converted = (try? canonical.convert(v, to: unit)) ?? v
      // The expected line's own spelling of the number when it denotes the same value (typed step by step: as one
      // expression this took the type checker 1.6 s).
      let firstWord: Substring? = line?.value.split(separator: " ").first
      let expected: Double? = firstWord.flatMap { Double($0) }
      let number: String = expected.map { same($0, converted) ? $0.formatted : formatNumber(converted) }
        ?? formatNumber(converted)
      text = "\(number) \(unit)"
    case .category(let c):
      text = sample.type.descriptor.categoryValues?.first { $0.value == c }?.name ?? String(c)
    }
    text += " at \(formatDate(sample.start))"
    if line?.app != nil {
      let appName = scenario.apps.values.first { $0.bundleID == sample.source.bundleID }?.name ?? sample.source.bundleID
      text += " from \(appName)"
    }
    if line?.device != nil { text += " on \(sample.source.device)" }
    return text
  }
}

extension Double {
  fileprivate var formatted: String { formatNumber(self) }
}

/// Runs a call and captures its typed outcome.
func attempt<T>(_ body: () throws(ClientError) -> T) -> Result<T, ClientError> {
  do { return .success(try body()) } catch { return .failure(error) }
}

// MARK: - Queries, statistics, sheets, convergence

extension RunContext {
  /// A written range, resolved against the virtual clock in the device's time zone (behavior.md K2).
  func resolve(_ range: RangeSpec, on device: DeviceKind) -> DateRange {
    DateRange(start: resolve(range.start, on: device), end: resolve(range.end, on: device), options: range.options)
  }

  /// The bundle identifiers of `from <App>…` (nil: every source).
  private func sources(_ names: [String]) -> Set<String>? {
    names.isEmpty ? nil : Set(names.map { app($0).bundleID })
  }

  /// Whether `message` contains every fragment.
  func contains(_ message: String, _ fragments: [String]) -> Bool { fragments.allSatisfy { message.contains($0) } }

  /// Runs the sample query `spec` on `device`; the daemon applies its predicates (metadata, correlations) before the
  /// limit, as HealthKit does.
  func sampleQuery(_ device: DeviceKind, _ spec: SampleQuerySpec) throws(ClientError) -> [Sample] {
    let filters = spec.metadata.map(\.filter) + (spec.outsideCorrelations ? [.notInCorrelation] : [])
    let query = SampleQuery(
      type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
      limit: spec.limit ?? 0, sort: spec.sort,
      filter: filters.count > 1 ? .and(filters) : filters.first)
    return try client(device).sampleQuery(app(spec.app).bundleID, query)
  }

  /// The samples of `spec`; a query that fails is the step's failure (expected `expecting`).
  fileprivate func samples(_ device: DeviceKind, _ spec: SampleQuerySpec, _ step: Step, expecting: String) throws
    -> [Sample]
  {
    switch attempt({ () throws(ClientError) in try sampleQuery(device, spec) }) {
    case .success(let samples): return samples
    case .failure(let error):
      guard let health = error.healthError else { throw error }
      throw fail(
        step, "\(spec.app)'s sample query of \(spec.type) on the \(device) to return \(expecting)", show(health))
    }
  }

  /// A query error as the report shows it.
  private func show(_ error: HealthError) -> String {
    switch error.kind {
    case .healthKit: "it failed with \(error.code) (\(error.code.rawValue)): \(error.message)"
    case .wouldTerminate: "it would terminate the app: \(error.message)"
    case .simulator: "the simulator rejected it: \(error.message)"
    }
  }

  /// An outcome as the report shows it.
  private func describe(_ outcome: QueryOutcome) -> String {
    func quoted(_ fragments: [String]) -> String {
      fragments.isEmpty ? "" : " containing " + fragments.map { "\"\($0)\"" }.joined(separator: " and ")
    }
    switch outcome {
    case .noData: return "no data"
    case .fails(let code, let fragments): return "fails with \(code) (\(code.rawValue))" + quoted(fragments)
    case .wouldTerminate(let fragments): return "would terminate the app" + quoted(fragments)
    }
  }

  /// A last-call expectation as the report shows it.
  func describe(_ expected: CallExpectation) -> String {
    func quoted(_ fragments: [String]) -> String {
      fragments.isEmpty ? "" : " with a message containing " + fragments.map { "\"\($0)\"" }.joined(separator: " and ")
    }
    switch expected {
    case .succeeded: return "succeeded with no error"
    case .failed(let code?, let fragments): return "failed with \(code) (\(code.rawValue))" + quoted(fragments)
    case .failed(nil, let fragments): return "failed" + quoted(fragments)
    case .wouldTerminate(let fragments): return "would terminate the app" + quoted(fragments)
    case .pending: return "pending (a sheet is up)"
    }
  }

  /// Checks a query's result against `expected`: `noData` when `unexpected` finds nothing to say about the result;
  /// `fails` and `wouldTerminate` by the error's kind, code and message.
  fileprivate func compare<T>(
    _ result: Result<T, ClientError>, _ expected: QueryOutcome, _ step: Step, what: String,
    unexpected: (T) -> String?
  ) throws {
    let actual: String?
    switch (result, expected) {
    case (.success(let value), .noData): actual = unexpected(value)
    case (.success(let value), _): actual = unexpected(value) ?? "it returned no data"
    case (.failure(let error), _):
      guard let health = error.healthError else { throw error }
      switch expected {
      case .noData: actual = health.kind == .healthKit && health.code == .errorNoData ? nil : show(health)
      case .fails(let code, let fragments):
        let ok = health.kind == .healthKit && health.code == code && contains(health.message, fragments)
        actual = ok ? nil : show(health)
      case .wouldTerminate(let fragments):
        actual = health.kind == .wouldTerminate && contains(health.message, fragments) ? nil : show(health)
      }
    }
    if let actual { throw fail(step, "\(what) \(describe(expected))", actual) }
  }

  /// `value` (canonical unit, seconds for a duration) in `unit`.
  private func convert(_ value: Double, _ kind: StatisticKind, _ type: SampleType, to unit: HealthUnit) -> Double {
    let from = kind == .duration ? try? HealthUnit(parsing: "s") : type.descriptor.canonicalUnit
    return from.flatMap { try? $0.convert(value, to: unit) } ?? value
  }

  /// The unit a statistic is shown in when the expectation names none.
  private func defaultUnit(_ kind: StatisticKind, _ type: SampleType) -> HealthUnit {
    kind == .duration ? try! HealthUnit(parsing: "s") : type.descriptor.canonicalUnit!
  }

  /// An `HKStatisticsQuery` expectation.
  fileprivate mutating func checkStatistic(
    _ device: DeviceKind, _ spec: StatisticsSpec, _ expected: StatisticsOutcome, _ step: Step
  ) throws {
    var options = spec.kind.option
    if case .bySource = expected { options.insert(.separateBySource) }
    let query = StatisticsQuery(
      type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
      options: options)
    let bundle = app(spec.app).bundleID
    let client = client(device)
    let result = attempt { () throws(ClientError) in try client.statistics(bundle, query) }
    let what = "\(spec.app)'s \(spec.kind.optionName) of \(spec.type) on the \(device)"
    switch expected {
    case .failure(let outcome):
      try compare(result, outcome, step, what: what) { stats in
        spec.kind.value(of: stats).map {
          "it returned "
            + show(
              convert($0, spec.kind, spec.type, to: defaultUnit(spec.kind, spec.type)),
              defaultUnit(spec.kind, spec.type))
        }
          ?? (outcome == .noData ? nil : "it returned statistics with no \(spec.kind.optionName)")
      }
    case .value(let value, let unit):
      let actual: String
      switch result {
      case .success(let stats):
        guard let raw = spec.kind.value(of: stats) else {
          actual = "no \(spec.kind.optionName) in the result"
          break
        }
        let converted = convert(raw, spec.kind, spec.type, to: unit)
        if same(converted, value) { return }
        actual = show(converted, unit)
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        actual = health.code == .errorNoData && health.kind == .healthKit ? "no data (errorNoData)" : show(health)
      }
      throw fail(step, "\(what) = \(show(value, unit))", actual)
    case .bySource(let lines):
      let stats: Statistics
      switch result {
      case .success(let s): stats = s
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        throw fail(step, "\(what) by source", health.code == .errorNoData ? "no data (errorNoData)" : show(health))
      }
      let wanted = lines.map { "\($0.app) \(show($0.value, $0.unit))" }
      var actual: [String] = []
      var seen: Set<String> = []
      for line in lines {
        let bundle = app(line.app).bundleID
        guard let part = stats.bySource[bundle] else { continue }
        seen.insert(bundle)
        let value = spec.kind.value(of: part).map { show(convert($0, spec.kind, spec.type, to: line.unit), line.unit) }
        actual.append("\(line.app) \(value ?? "none")")
      }
      for (bundle, part) in stats.bySource.sorted(by: { $0.key < $1.key }) where !seen.contains(bundle) {
        let unit = defaultUnit(spec.kind, spec.type)
        let value = spec.kind.value(of: part).map { show(convert($0, spec.kind, spec.type, to: unit), unit) }
        actual.append("\(appName(bundle)) \(value ?? "none")")
      }
      if wanted != actual {
        throw fail(step, "\(what) by source:\n" + wanted.joined(separator: "\n"), actual.joined(separator: "\n"))
      }
    }
  }

  /// An `HKStatisticsCollectionQuery` expectation.
  fileprivate mutating func checkCollection(
    _ device: DeviceKind, _ spec: CollectionSpec, _ expected: CollectionOutcome, _ step: Step
  ) throws {
    // Intervals of the device's calendar counted from the range's start (behavior.md K3).
    let range = resolve(spec.range, on: device)
    let calendar = calendar(device)
    let query = StatisticsQuery(
      type: spec.type, range: range, sources: sources(spec.sources), options: spec.kind.option,
      interval: spec.interval.calendarInterval, anchor: range.start)
    let bundle = app(spec.app).bundleID
    let client = client(device)
    let result = attempt { () throws(ClientError) in try client.statisticsCollection(bundle, query) }
    let what = "\(spec.app)'s \(spec.interval.adverb) \(spec.kind.optionName) of \(spec.type) on the \(device)"
    func line(_ date: Date, _ value: Double?, _ unit: HealthUnit?) -> String {
      // The device's local date, and time unless it is midnight.
      let local = calendar.local(date)
      let text = local.description
      let shown = local.secondsOfDay == 0 ? String(text.prefix(10)) : text
      return shown + " " + (value.map { show($0, unit ?? defaultUnit(spec.kind, spec.type)) } ?? "none")
    }
    switch expected {
    case .failure(let outcome):
      try compare(result, outcome, step, what: what) { buckets in
        let filled = buckets.filter { spec.kind.value(of: $0) != nil }
        return filled.isEmpty ? nil : "it returned \(filled.count) bucket\(filled.count == 1 ? "" : "s") with a value"
      }
    case .buckets(let expected):
      let buckets: [Statistics]
      switch result {
      case .success(let b): buckets = b
      case .failure(let error):
        guard let health = error.healthError else { throw error }
        throw fail(step, what, show(health))
      }
      let wanted = expected.map { line(resolve($0.start, on: device), $0.value, $0.unit) }
      let actual = buckets.enumerated().map { offset, bucket -> String in
        let unit = offset < expected.count ? expected[offset].unit : nil
        let value = spec.kind.value(of: bucket).map {
          convert($0, spec.kind, spec.type, to: unit ?? defaultUnit(spec.kind, spec.type))
        }
        return line(bucket.start, value, unit)
      }
      if wanted != actual { throw fail(step, wanted.joined(separator: "\n"), actual.joined(separator: "\n")) }
    }
  }

  /// How the app's sheets on `device` went, from the trace so far.
  fileprivate func sheetCounts(_ device: DeviceKind, _ name: String) -> SheetCounts {
    var counts = SheetCounts()
    counts.shown = 0
    counts.answered = 0
    counts.cancelled = 0
    counts.failed = 0
    for entry in trace where entry.lane == Lane(device) {
      switch entry.kind {
      case .sheetShown(let app, _, _) where app == name: counts.shown! += 1
      case .sheetClosed(let app, _, let outcome) where app == name:
        if outcome.hasPrefix("answered") { counts.answered! += 1 }
        if outcome.hasPrefix("cancelled") { counts.cancelled! += 1 }
        if outcome.hasPrefix("failed to present") { counts.failed! += 1 }
      default: break
      }
    }
    return counts
  }

  /// The counts `like` asks about, as the report shows them.
  fileprivate func describe(_ counts: SheetCounts, _ like: SheetCounts) -> String {
    var parts: [String] = []
    if like.shown != nil { parts.append("showed \(counts.shown ?? 0) sheet\(counts.shown == 1 ? "" : "s")") }
    if like.answered != nil { parts.append("answered \(counts.answered ?? 0)") }
    if like.cancelled != nil { parts.append("cancelled \(counts.cancelled ?? 0)") }
    if like.failed != nil {
      parts.append("\(counts.failed ?? 0) presentation\(counts.failed == 1 ? "" : "s") failed")
    }
    return parts.joined(separator: ", ")
  }

  /// What differs between the phone's and the watch's samples: identifiers on one side only, and samples whose
  /// content (type, value, dates, metadata, source) differs under one identifier.
  fileprivate func convergence(phone: [Sample], watch: [Sample]) -> [String] {
    let phoneByID = Dictionary(phone.map { ($0.uuid, $0) }, uniquingKeysWith: { a, _ in a })
    let watchByID = Dictionary(watch.map { ($0.uuid, $0) }, uniquingKeysWith: { a, _ in a })
    var problems: [String] = []
    let phoneOnly = Set(phoneByID.keys).subtracting(watchByID.keys).map { name(of: $0) }.sorted()
    let watchOnly = Set(watchByID.keys).subtracting(phoneByID.keys).map { name(of: $0) }.sorted()
    if !phoneOnly.isEmpty || !watchOnly.isEmpty {
      problems.append(
        "only on the phone: \(phoneOnly.joined(separator: ", ")); "
          + "only on the watch: \(watchOnly.joined(separator: ", "))")
    }
    // Names only for the samples that differ, each computed once: naming one unnamed sample formats its UUID, and
    // sorting every sample by a name computed in the comparison cost a converged check most of its time.
    var differing: [(name: String, a: Sample, b: Sample)] = []
    for (uuid, a) in phoneByID {
      guard let b = watchByID[uuid], a != b else { continue }
      differing.append((name(of: uuid), a, b))
    }
    differing.sort { $0.name < $1.name }
    for (sampleName, a, b) in differing {
      var fields: [String] = []
      if a.type != b.type { fields.append("type \(a.type) / \(b.type)") }
      if a.value != b.value { fields.append("value \(show(a)) / \(show(b))") }
      if a.start != b.start || a.end != b.end {
        let dates = { (s: Sample) in "\(formatDate(s.start))–\(formatDate(s.end))" }
        fields.append("dates \(dates(a)) / \(dates(b))")
      }
      if a.metadata != b.metadata { fields.append("metadata \(show(a.metadata)) / \(show(b.metadata))") }
      if a.source != b.source { fields.append("source \(a.source) / \(b.source)") }
      problems.append("\(sampleName) differs (phone / watch): " + fields.joined(separator: "; "))
    }
    return problems
  }

  /// A sample's value as the report shows it.
  private func show(_ sample: Sample) -> String {
    switch sample.value {
    case .quantity(let v): show(v, sample.type.descriptor.canonicalUnit!)
    case .category(let c): sample.type.descriptor.categoryValues?.first { $0.value == c }?.name ?? String(c)
    }
  }

  /// Metadata as the report shows it, keys sorted.
  private func show(_ metadata: Metadata) -> String {
    "[" + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "]"
  }
}
