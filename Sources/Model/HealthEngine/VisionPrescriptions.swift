import FoundationEssentials
import HealthModel

/// `DeviceState`: vision prescriptions — saved by apps with share permission on the iPhone (the watch refuses),
/// kept there, and read object by object: an app sees its own prescriptions and those the user turned on for it in
/// a per-object sheet (`requestPerObjectReadAuthorization`), never through a type-level read permission
/// (behavior.md V1–V5).
extension DeviceState {
  /// `save(_:)` of `HKVisionPrescription`s, all or nothing: on the iPhone only, each valid
  /// (``VisionPrescription/validate()``), share permission for the type, new identifiers, the device unlocked. The
  /// source is the app on this device, whatever `prescriptions` say.
  /// - Throws: what the save's completion would receive (`errorHealthDataRestricted` on the watch); `wouldTerminate`
  ///   for what a device raises on.
  package mutating func saveVisionPrescriptions(_ bundleID: String, _ prescriptions: [VisionPrescription], wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    guard !prescriptions.isEmpty else { throw .healthKit(.errorInvalidArgument, "Nothing to save") }
    guard device == .phone else {
      throw .healthKit(.errorHealthDataRestricted, "Unable to save vision samples on this device")
    }
    let source = SampleSource(bundleID: bundleID, device: device)
    var stored: [VisionPrescription] = []
    for var prescription in prescriptions {
      try prescription.validate()
      prescription.source = source
      stored.append(prescription)
    }
    try requireShelvable(
      bundleID, stored, SpecialObjectStore.visionPrescriptionType, what: "vision prescriptions", wall: wall)
    return commitEvents([.visionPrescriptionsSaved(stored)])
  }

  /// Stages the vision prescriptions of an import (stored at its commit); the watch, which keeps none, leaves them
  /// out (V6).
  /// - Throws: a simulator error for identifier 0, a locked device or a bad source; `errorInvalidArgument` for an
  ///   invalid prescription.
  package mutating func stageImportVisionPrescriptions(_ id: UInt64, _ prescriptions: [VisionPrescription])
    throws(HealthError) -> [DeviceEvent]
  {
    try checkImportShelved(id, prescriptions, what: "vision prescription") { prescription throws(HealthError) in
      try prescription.validate()
    }
    // The watch stages none, but the import is staged (its commit may hold nothing else).
    return commitEvents([.importVisionPrescriptionsStaged(id: id, device == .phone ? prescriptions : [])])
  }

  /// Every stored vision prescription, whatever app saved it, in change order (exports, tests).
  package func storedVisionPrescriptions() -> [VisionPrescription] {
    specialObjects.visionPrescriptions.ordered.map(\.value)
  }

  /// Whether `bundleID` may read `prescription`: the user's per-object choice for it, else whether the app saved it
  /// and may still share the type (V3–V4).
  package func mayRead(_ bundleID: String, _ prescription: VisionPrescription) -> Bool {
    mayReadObject(bundleID, prescription.uuid, prescription.source, SpecialObjectStore.visionPrescriptionType)
  }

  /// `HKSampleQuery` of `HKPrescriptionType`: the prescriptions the app may read (``mayRead(_:_:)``; no type-level
  /// read decision is needed or possible), matching the range, sources and filter, sorted by date and limited.
  package func visionPrescriptionQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [VisionPrescription]
  {
    try requireObjectQuery(
      bundleID, query, of: SpecialObjectStore.visionPrescriptionType,
      refusal: "\(query.type.identifier) cannot be read with a prescription query")
    let candidates = shelvedCandidates(VisionPrescription.self) { mayRead(bundleID, $0) }
    return select(candidates, bundleID, query, wall: wall, everyCandidateVisible: true) { prescription, filter in
      filter.matches(prescription)
    }
  }

  /// `requestPerObjectReadAuthorization(for:predicate:)`: a sheet listing every stored prescription matching
  /// `range` and `filter` (the app's own and other apps'), in date order — presented on every call, even when
  /// nothing matches (V3). The watch presents none and completes with `errorHealthDataRestricted` (V5).
  /// - Throws: `wouldTerminate` for a type read as a whole ("Per-Object authorization to read … is disallowed") or
  ///   a missing `NSHealthShareUsageDescription`.
  package mutating func requestPerObjectRead(
    _ bundleID: String, _ type: SampleType, range: DateRange?, filter: SampleFilter?, wall: Date
  ) throws(HealthError) -> RequestOutcome {
    let app = try installedApp(bundleID)
    guard type.descriptor.readsPerObject else {
      throw .invalidArgumentException("Per-Object authorization to read \(type.identifier) is disallowed")
    }
    if app.readUsageDescription?.trimmingWhitespace().isEmpty ?? true {
      throw .invalidArgumentException(
        "NSHealthShareUsageDescription must be set in the app's Info.plist in order to request read "
          + "authorization for the following types: \(type.identifier)")
    }
    guard device == .phone else {
      return .completed(
        AuthorizationCallResult(
          success: false,
          error: .healthKit(
            .errorHealthDataRestricted, "Per-object authorization presentation is not supported on this device")))
    }
    if type == SpecialObjectStore.cdaType {
      return documentReadSheet(bundleID, type, range: range, filter: filter, wall: wall)
    }
    if type == SpecialObjectStore.medicationType { return medicationReadSheet(bundleID, filter: filter, wall: wall) }
    if isLocked { return .completed(Self.dismissedResult(because: "the \(device) is locked")) }
    let listed = specialObjects.visionPrescriptions.entries.values.map(\.value).filter { prescription in
      (range?.matches(
        start: prescription.start.timeIntervalSinceReferenceDate, end: prescription.end.timeIntervalSinceReferenceDate)
        ?? true) && (filter.map { $0.matches(prescription) } ?? true)
    }.sorted { ($0.dateIssued, $0.uuid.uuidString) < ($1.dateIssued, $1.uuid.uuidString) }
    return .prompt(presentObjectSheet(bundleID, type, listed.map(\.uuid), wall: wall))
  }

  /// Shows a per-object sheet for `bundleID` listing `objects` of `type`.
  mutating func presentObjectSheet(_ bundleID: String, _ type: SampleType, _ objects: [UUID], wall: Date) -> Prompt {
    let prompt = Prompt(
      id: nextPromptID, bundleID: bundleID, permissions: [Permission(type, .read)], shownAt: now(wall: wall),
      objects: objects)
    nextPromptID += 1
    prompts.append(prompt)
    promptHistory.append(PromptRecord(prompt: prompt, outcome: .pending))
    if promptHistory.count > 1000 { promptHistory.removeFirst(promptHistory.count - 1000) }
    return prompt
  }

  /// The user answers a per-object sheet: all on, all off, or the objects of a set on and the rest off (recorded as
  /// ``DeviceEvent/objectReadChosen(bundleID:choices:)``); a cancel fails the call with `errorUserCanceled` and
  /// records nothing, as leaving the app or a failed presentation does.
  /// - Throws: a simulator error for per-type choices, or objects the sheet does not list.
  mutating func answerObjectPrompt(_ prompt: Prompt, _ answer: PromptAnswer) throws(HealthError) -> (
    completions: [PromptCompletion], events: [DeviceEvent]
  ) {
    // An object deleted while the sheet was up gets no choice (its choices were forgotten with it).
    let listed = (prompt.objects ?? []).filter { specialObjects.readsPerObject($0) }
    var choices: [UUID: Bool] = [:]
    let result: AuthorizationCallResult
    switch answer {
    case .allowAll, .denyAll:
      for uuid in listed { choices[uuid] = answer == .allowAll }
      result = .succeeded
    case .objects(let on):
      let unknown = on.subtracting(listed).map(\.uuidString).sorted()
      guard unknown.isEmpty else {
        throw .simulator(
          "the sheet for '\(prompt.bundleID)' does not list \(unknown.joined(separator: ", ")); it lists "
            + (listed.isEmpty ? "no object" : listed.map(\.uuidString).joined(separator: ", ")))
      }
      for uuid in listed { choices[uuid] = on.contains(uuid) }
      result = .succeeded
    case .choices:
      throw .simulator(
        "the sheet for '\(prompt.bundleID)' lists objects, not types: turn objects on, or answer allows all or "
          + "doesn't allow")
    case .cancel:
      finish(prompt, .cancelled)
      return ([PromptCompletion(prompt: prompt, result: Self.cancelledResult)], [])
    case .leaveApp, .failToPresent:
      return ([PromptCompletion(prompt: prompt, result: unshown(prompt, answer))], [])
    }
    finish(prompt, .answered([]))
    let events = choices.isEmpty ? [] : commit([.objectReadChosen(bundleID: prompt.bundleID, choices: choices)])
    return ([PromptCompletion(prompt: prompt, result: result)], events)
  }
}

extension SampleFilter {
  /// Whether `prescription` passes the filter: every condition a sample without a value of its own passes; other
  /// families' conditions match none.
  package func matches(_ prescription: VisionPrescription) -> Bool {
    switch self {
    case .and(let parts): return parts.allSatisfy { $0.matches(prescription) }
    case .or(let parts): return parts.contains { $0.matches(prescription) }
    case .not(let part): return !part.matches(prescription)
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField,
      .medication:
      return false
    case .constant, .dates, .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return matches(
        Sample(
          uuid: prescription.uuid, type: prescription.objectType, value: .quantity(.nan),
          start: prescription.dateIssued, end: prescription.end, metadata: prescription.metadata,
          source: prescription.source))
    }
  }
}
