import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
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
        let bundle = app(name).bundleID
        let client = client(device)
        let actual: String
        switch attempt({ () throws(ClientError) in try client.requestStatus(bundle, share: share, read: read) }) {
        case .success(let status): actual = "\(status)"
        case .failure(let e): actual = e.healthError.map { "an error: \($0)" } ?? "\(e)"
        }
        if actual != "\(expected)" { throw fail(step, "\(device): request status \(expected)", actual) }
      }
    case .lastCall(let device, let name, let expected):
      settle(device)
      guard let call = lastCall[key(device, name)] else {
        throw fail(step, "\(name) to have made a call on the \(device)", "no call yet")
      }
      let ok: Bool
      switch (expected, call) {
      case (.pending, .request(let ticket, _)): ok = ticket.result == nil
      case (.succeeded, .request(let ticket, _)):
        if case .success(.authorization(let r))? = ticket.result { ok = r.success } else { ok = false }
      case (.failed(let code), .request(let ticket, _)):
        if case .success(.authorization(let r))? = ticket.result {
          ok = !r.success && r.error?.code == code
        } else if case .failure(let e)? = ticket.result {
          ok = e.healthError?.kind == .healthKit && e.healthError?.code == code
        } else {
          ok = false
        }
      case (.wouldTerminate(let part), .request(let ticket, _)):
        if case .failure(let e)? = ticket.result, let h = e.healthError {
          ok = h.kind == .wouldTerminate && (part.map { h.message.contains($0) } ?? true)
        } else {
          ok = false
        }
      case (.succeeded, .done(let r)):
        if case .success = r { ok = true } else { ok = false }
      case (.failed(let code), .done(.failure(let e))): ok = e.kind == .healthKit && e.code == code
      case (.wouldTerminate(let part), .done(.failure(let e))):
        ok = e.kind == .wouldTerminate && (part.map { e.message.contains($0) } ?? true)
      default: ok = false
      }
      if !ok {
        let what: String
        switch expected {
        case .succeeded: what = "succeeded"
        case .failed(let code): what = "failed with \(code) (\(code.rawValue))"
        case .wouldTerminate(let part): what = "would terminate the app" + (part.map { " with \"\($0)\"" } ?? "")
        case .pending: what = "pending (a sheet is up)"
        }
        throw fail(step, "\(name)'s last call on the \(device) \(what)", call.outcome)
      }
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
    case .seesCount(let devices, let name, let type, let expected, let rangeSpec):
      for device in devices.list {
        let range = rangeSpec.map {
          DateRange(start: resolve($0.start, on: device), end: resolve($0.end, on: device), options: $0.options)
        }
        let actual = try client(device).sampleQuery(app(name).bundleID, SampleQuery(type: type, range: range)).count
        if actual != expected {
          throw fail(step, "\(name) sees \(expected) \(type) samples on the \(device)", "\(actual)")
        }
      }
    case .seesTotal(let devices, let name, let type, let value, let unit, let day):
      for device in devices.list {
        let actual = try visibleTotal(device, name, type, unit: unit, day: day)
        if !same(actual, value) {
          throw fail(step, "\(name) sees \(show(value, unit)) of \(type) on the \(device)", show(actual, unit))
        }
      }
    case .seesSamples(let device, let name, let type, let expected):
      let samples = try client(device).sampleQuery(app(name).bundleID, SampleQuery(type: type))
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
    case .statistic(let device, let name, let kind, let type, let value, let unit, let day):
      let canonical = type.descriptor.canonicalUnit!
      var actual: Double?
      let bundle = app(name).bundleID
      let client = client(device)
      let query = StatisticsQuery(type: type, range: dayRange(day, on: device), options: kind.option)
      switch attempt({ () throws(ClientError) in try client.statistics(bundle, query) }) {
      case .success(let stats):
        let raw: Double? =
          switch kind {
          case .sum: stats.sum
          case .average: stats.average
          case .min: stats.minimum
          case .max: stats.maximum
          }
        actual = try raw.map { try canonical.convert($0, to: unit ?? canonical) }
      case .failure(let e) where e.healthError?.code == .errorNoData:
        actual = nil
      case .failure(let e):
        throw e
      }
      let shownUnit = unit ?? canonical
      switch (value, actual) {
      case (nil, nil): break
      case (let v?, let a?) where same(v, a): break
      default:
        throw fail(
          step, "\(kind.rawValue) of \(type) = " + (value.map { show($0, shownUnit) } ?? "no data (errorNoData)"),
          actual.map { show($0, shownUnit) } ?? "no data (errorNoData)")
      }
    case .statisticTerminates(let device, let name, let kind, let type):
      let bundle = app(name).bundleID
      let client = client(device)
      let query = StatisticsQuery(type: type, options: kind.option)
      switch attempt({ () throws(ClientError) in try client.statistics(bundle, query) }) {
      case .failure(let e) where e.healthError?.kind == .wouldTerminate: break
      case .failure(let e): throw fail(step, "the \(kind.rawValue) query would terminate the app", "\(e)")
      case .success: throw fail(step, "the \(kind.rawValue) query would terminate the app", "it returned statistics")
      }
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
    case .daily(let device, let name, let kind, let type, let from, let to, let expected, let interval):
      // Intervals of the device's calendar anchored at local midnight of `from`, up to the one starting on `to`.
      let canonical = type.descriptor.canonicalUnit!
      let calendar = calendar(device)
      let anchor = calendar.date(localFieldsOf: from)
      let last = calendar.date(localFieldsOf: to)
      let query = StatisticsQuery(
        type: type, range: DateRange(start: anchor, end: calendar.adding(interval, times: 1, to: last)),
        options: kind.option, interval: interval, anchor: anchor)
      let buckets = try client(device).statisticsCollection(app(name).bundleID, query)
      func day(_ date: Date) -> String { String(calendar.local(date).description.prefix(10)) }
      func line(_ date: Date, _ value: Double?, _ unit: HealthUnit?) -> String {
        "\(day(date)) " + (value.map { show($0, unit ?? canonical) } ?? "none")
      }
      let wanted = expected.map { line(calendar.date(localFieldsOf: $0.start), $0.value, $0.unit) }
      let actual = buckets.enumerated().map { offset, bucket -> String in
        let unit = offset < expected.count ? expected[offset].unit ?? canonical : canonical
        let raw: Double? =
          switch kind {
          case .sum: bucket.sum
          case .average: bucket.average
          case .min: bucket.minimum
          case .max: bucket.maximum
          }
        return line(bucket.start, raw.map { (try? canonical.convert($0, to: unit)) ?? $0 }, unit)
      }
      if wanted != actual { throw fail(step, wanted.joined(separator: "\n"), actual.joined(separator: "\n")) }
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
      let phoneOnly = Set(phone.samples.map(\.uuid)).subtracting(watch.samples.map(\.uuid))
      let watchOnly = Set(watch.samples.map(\.uuid)).subtracting(phone.samples.map(\.uuid))
      if !phoneOnly.isEmpty || !watchOnly.isEmpty
        || Set(phone.tombstones.map(\.uuid)) != Set(watch.tombstones.map(\.uuid))
      {
        throw fail(
          step, "both devices store the same samples and deletions",
          "only on the phone: \(phoneOnly.map(name).sorted().joined(separator: ", ")); only on the watch: \(watchOnly.map(name).sorted().joined(separator: ", "))"
        )
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
    case .syncConflicts(let devices, let expected):
      for device in devices.list {
        let actual = try client(device).dump().link.sync.conflicts
        if actual != expected {
          throw fail(step, "\(expected) sync conflicts on the \(device)", "\(actual)")
        }
      }
    case .linkUp(let expected):
      let phone = try client(.phone).link(.reconnectNow).connected
      let watch = try client(.watch).link(.reconnectNow).connected
      if (phone && watch) != expected {
        throw fail(
          step, expected ? "link up" : "link down", "phone \(phone ? "up" : "down"), watch \(watch ? "up" : "down")")
      }
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
      text =
        "\(line.flatMap { $0.value.split(separator: " ").first }.flatMap { Double($0) }.map { same($0, converted) ? String($0.formatted) : formatNumber(converted) } ?? formatNumber(converted)) \(unit)"
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
