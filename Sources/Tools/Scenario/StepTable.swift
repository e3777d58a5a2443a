import HealthModel
import ScenarioLanguage

// The step table: one row per `StepKind` case, each handing the case's values to one function of its family.
//
//   SetupSteps.swift         install, uninstall, policy
//   ClockSteps.swift         clock set / advance, time zone
//   AppSteps.swift           an app's calls: request, save, delete, background delivery
//   WorkoutSteps.swift       an app's workout calls: save a workout, a route, add(_:to:), delete a workout
//   SessionSteps.swift       workout sessions: start, pause, …, finish; the app's run state; the wearer
//   UserSteps.swift          the user: answers, Settings, lock, the Health app's settings and source order
//   LinkSteps.swift          the link, manual sync, wait until synced
//   FaultSteps.swift         kill, stop, restart, journal surgery
//   ImportExportSteps.swift  import and export
//   CheckTable.swift         `expect`: the check table, laid out the same way
//
// How to add a step: add its case to `StepKind` (ScenarioLanguage/AST.swift) and its parsing; write a
// `mutating func` in its family's file (a new family is a new `<Family>Steps.swift`) that takes the case's values
// (and the `Step` when it can fail: it throws `fail(step, expected, actual)` when it cannot do what the step says);
// add its row below. The switches have no `default:`, so the compiler names every switch a new case is missing
// from: this one, and `StepKind.lane` and `StepKind.category` in Trace.swift.

extension RunContext {
  /// Runs `step`; a failure is a ``StepFailure`` of the step (an error the step did not expect says "the step to
  /// run" and what went wrong).
  mutating func perform(_ step: Step) throws {
    try perform(step.kind, of: step)
  }

  /// Runs `kind` (the step itself, or its part on one device for `user on both:`).
  mutating func perform(_ kind: StepKind, of step: Step) throws {
    do {
      switch kind {
      case .onBoth(let phone, let watch): try performOnBoth(phone, watch, step)
      case .install(let app, let devices): try install(app, on: devices)
      case .uninstall(let name, let devices): try uninstall(name, from: devices)
      case .policy(
        let devices, let reprompt, let retention, let authorization, let watchSettings, let units,
        let background):
        try setPolicy(
          devices, reprompt: reprompt, retention: retention, authorization: authorization,
          watchSettings: watchSettings, units: units, background: background)
      case .clockSet(let time): try setClock(time)
      case .clockAdvance(let seconds): try advanceClock(seconds)
      case .timeZone(let devices, let zone): try setTimeZone(devices, zone)
      case .request(let device, let name, let share, let read): try request(device, name, share: share, read: read)
      case .requestFromExtension(let device, let name, let share, let read):
        try requestFromExtension(device, name, share: share, read: read)
      case .handleExtensions(let device, let name): try handleExtensions(device, name)
      case .save(let device, let name, let specs): try save(device, name, specs)
      case .saveCorrelation(let device, let name, let spec): try saveCorrelation(device, name, spec)
      case .saveWorkout(let device, let name, let spec): try saveWorkout(device, name, spec, step)
      case .saveRoute(let device, let name, let route, let workout):
        try saveRoute(device, name, route, workout: workout, step)
      case .addToWorkout(let device, let name, let samples, let named, let workout):
        try addToWorkout(device, name, samples: samples, named: named, workout: workout, step)
      case .deleteWorkout(let device, let name, let workout): try deleteWorkout(device, name, workout: workout, step)
      case .saveHeartbeatSeries(let device, let name, let spec): try saveHeartbeatSeries(device, name, spec)
      case .saveAudiogram(let device, let name, let spec): try saveAudiogram(device, name, spec)
      case .logStateOfMind(let device, let name, let spec): try logStateOfMind(device, name, spec)
      case .logAssessment(let device, let name, let spec): try logAssessment(device, name, spec)
      case .saveDocument(let device, let name, let spec): try saveDocument(device, name, spec)
      case .requestDocuments(let device, let name, let title): try requestDocuments(device, name, title: title)
      case .savePrescription(let device, let name, let spec): try savePrescription(device, name, spec)
      case .requestObjects(let device, let name, let from): try requestObjects(device, name, issuedFrom: from)
      case .answerObjects(let device, let names, let app): try answerObjects(device, names, app)
      case .requestMedications(let device, let name): try requestMedications(device, name)
      case .addMedication(let device, let spec): try addMedication(device, spec, step)
      case .logDose(let device, let spec): try logDose(device, spec, step)
      case .providerSends(let device, let spec): try providerSends(device, spec, step)
      case .saveRandom(let device, let name, let count, let type, let over):
        try saveRandom(device, name, count: count, type: type, over: over)
      case .resave(let device, let name, let sample, let changed): try resave(device, name, sample, changed, step)
      case .deleteAll(let device, let name, let type, let range): try deleteAll(device, name, type, range)
      case .delete(let device, let name, let sampleNames): try delete(device, name, sampleNames)
      case .background(let device, let name, let action): try background(device, name, action, step)
      case .session(let device, let name, let sessionStep): try performSession(device, name, sessionStep, step)
      case .wearer(let device, .recordECG(let spec)): try recordECG(device, spec, step)
      case .wearer(let device, let change): try changeWearer(device, change)
      case .answer(let device, let reply, let name): try answer(device, reply, name)
      case .settings(let device, let name, let change): try changeSettings(device, name, change)
      case .watchSettings(let name, let change): try changeWatchSettings(name, change)
      case .lock(let devices, let locked): try lock(devices, locked)
      case .userSetting(let device, let setting): try changeUserSetting(device, setting)
      case .sourceOrder(let device, let type, let specs): try setSourceOrder(device, type, specs)
      case .syncMode(let manual): try setSyncMode(manual: manual)
      case .link(let action): try link(action)
      case .waitSynced(let seconds): try waitSynced(seconds, step)
      case .kill(let device): kill(device)
      case .stop(let device): try stop(device, step)
      case .restart(let device): try restart(device)
      case .tearJournal(let device): try tearJournal(device, step)
      case .cutJournal(let device, let records): try cutJournal(device, records: records, step)
      case .importExport(let importStep): try performImport(importStep, step)
      case .exportStore(let device, let name): try exportStore(device, name)
      case .expect(let expectation): try check(expectation, step)
      }
    } catch let failure as StepFailure {
      throw failure
    } catch {
      throw fail(step, "the step to run", "\(error)")
    }
  }

  /// `user on both:`: the part on the phone, then the part on the watch; a failure says which device.
  private mutating func performOnBoth(_ phone: StepKind, _ watch: StepKind, _ step: Step) throws {
    for (device, part) in [(DeviceKind.phone, phone), (.watch, watch)] {
      do { try perform(part, of: step) } catch let failure as StepFailure {
        throw failure.on(device)
      }
    }
  }
}
