import HealthModel
import ScenarioLanguage

// The check table: one row per `Expectation` case, each handing the case's values to one function of its family.
//
//   AuthorizationChecks.swift  authorization status, requests and their sheets, last calls, Settings changes
//   SampleChecks.swift         what an app's sample, correlation and anchored queries return
//   WorkoutChecks.swift        what an app's workout, route and activity summary queries return
//   SessionChecks.swift        a workout session's state, what it heard, its live builder, recovery
//   StatisticsChecks.swift     statistics and statistics collection queries
//   StoreChecks.swift          the raw store, imports, the earliest permitted date
//   SyncChecks.swift           the link, convergence, sync conflicts
//   DeviceChecks.swift         the device's clock and lock
//   UserSettingChecks.swift    characteristics and preferred units as an app reads them
//   BackgroundChecks.swift     background delivery registrations and their history
//   CheckSupport.swift         what the families share: comparing numbers and query outcomes, showing errors
//
// How to add a check: add its case to `Expectation` (ScenarioLanguage/AST.swift) and its parsing; write a
// `func check…` in its family's file (a new family is a new `<Family>Checks.swift`) that takes the case's values
// and the `Step`, and throws `fail(step, expected, actual)` when the daemons disagree, in the words of the
// expectation; add its row below. The switches have no `default:`, so the compiler names every switch a new case is
// missing from: this one, and `Expectation.lane` in Trace.swift.

extension RunContext {
  /// Checks `expectation` against the daemons; a mismatch is a ``StepFailure`` of `step` saying what it expected and
  /// what it found.
  mutating func check(_ expectation: Expectation, _ step: Step) throws {
    switch expectation {
    case .shareStatus(let devices, let name, let type, let expected):
      try checkShareStatus(devices, name, type, expected, step)
    case .hiddenRead(let devices, let name, let type, let expected):
      try checkHiddenRead(devices, name, type, expected, step)
    case .requestStatus(let devices, let name, let share, let read, let expected):
      try checkRequestStatus(devices, name, share: share, read: read, expected, step)
    case .lastCall(let device, let name, let expected): try checkLastCall(device, name, expected, step)
    case .sheetShown(let device, let name, let listing): try checkSheetShown(device, name, listing, step)
    case .noSheet(let device, let name): try checkNoSheet(device, name, step)
    case .pendingSheets(let device, let expected): try checkPendingSheets(device, expected, step)
    case .lockedOut(let devices, let name, let expected): try checkLockedOut(devices, name, expected, step)
    case .sheetHistory(let device, let name, let counts): try checkSheetHistory(device, name, counts, step)
    case .settingsRefused(let device, let refused): try checkSettingsRefused(device, refused, step)
    case .seesCount(let devices, let spec, let expected): try checkSeesCount(devices, spec, expected, step)
    case .seesCorrelations(let devices, let spec, let expected, let objectsEach):
      try checkSeesCorrelations(devices, spec, expected, objectsEach: objectsEach, step)
    case .seesTotal(let devices, let name, let type, let value, let unit, let day):
      try checkSeesTotal(devices, name, type, value, unit, day: day, step)
    case .seesSamples(let device, let spec, let expected): try checkSeesSamples(device, spec, expected, step)
    case .sampleQuery(let device, let spec, let expected): try checkSampleQuery(device, spec, expected, step)
    case .changes(let device, let name, let type, let added, let deleted):
      try checkChanges(device, name, type, added: added, deleted: deleted, step)
    case .queriesFail(let device, let name, let type, let code): try checkQueriesFail(device, name, type, code, step)
    case .statistic(let device, let spec, let expected): try checkStatistic(device, spec, expected, step)
    case .collection(let device, let spec, let expected): try checkCollection(device, spec, expected, step)
    case .storeCount(let devices, let type, let expected): try checkStoreCount(devices, type, expected, step)
    case .storeHas(let devices, let sample, let expected): try checkStoreHas(devices, sample, expected, step)
    case .storeCountMatching(let devices, let type, let expected, let source, let metadata):
      try checkStoreCountMatching(devices, type, expected, source: source, metadata: metadata, step)
    case .earliestPermitted(let device, let time): try checkEarliestPermitted(device, time, step)
    case .lastImport(let device, let added, let alreadyPresent, let beforeRetention):
      try checkLastImport(device, added: added, alreadyPresent: alreadyPresent, beforeRetention: beforeRetention, step)
    case .converged: try checkConverged(step)
    case .diverged(let expected): try checkDiverged(expected, step)
    case .syncConflicts(let devices, let expected): try checkSyncConflicts(devices, expected, step)
    case .linkUp(let expected): try checkLinkUp(expected, step)
    case .clock(let device, let time): try checkClock(device, time, step)
    case .locked(let devices, let expected): try checkLocked(devices, expected, step)
    case .waitingForUnlock(let device, let expected): try checkWaitingForUnlock(device, expected, step)
    case .characteristic(let device, let name, let type, let expected):
      try checkCharacteristic(device, name, type, expected, step)
    case .preferredUnit(let device, let name, let type, let expected):
      try checkPreferredUnit(device, name, type, expected, step)
    case .preferredUnitsFail(let device, let name, let types, let code):
      try checkPreferredUnitsFail(device, name, types, code, step)
    case .backgroundState(let devices, let name, let type, let expected):
      try checkBackgroundState(devices, name, type, expected, step)
    case .backgroundCounts(let devices, let name, let type, let woken, let completed, let missed):
      try checkBackgroundCounts(devices, name, type, woken: woken, completed: completed, missed: missed, step)
    case .seesWorkouts(let devices, let spec, let expected): try checkSeesWorkouts(devices, spec, expected, step)
    case .seesHeartbeatSeries(let devices, let spec, let expected, let check):
      try checkSeesHeartbeatSeries(devices, spec, expected, check, step)
    case .seesElectrocardiograms(let devices, let spec, let expected, let check):
      try checkSeesElectrocardiograms(devices, spec, expected, check, step)
    case .seesAudiograms(let devices, let spec, let expected, let points):
      try checkSeesAudiograms(devices, spec, expected, points: points, step)
    case .seesPrescriptions(let devices, let spec, let expected):
      try checkSeesPrescriptions(devices, spec, expected, step)
    case .seesMedications(let devices, let name, let expected, let check):
      try checkSeesMedications(devices, name, expected, check, step)
    case .seesDoses(let devices, let spec, let expected, let check):
      try checkSeesDoses(devices, spec, expected, check, step)
    case .seesStatesOfMind(let devices, let spec, let expected, let check):
      try checkSeesStatesOfMind(devices, spec, expected, check, step)
    case .seesDocuments(let devices, let spec, let expected, let title):
      try checkSeesDocuments(devices, spec, expected, title: title, step)
    case .seesAssessments(let devices, let spec, let expected, let check):
      try checkSeesAssessments(devices, spec, expected, check, step)
    case .seesClinicalRecords(let devices, let spec, let expected, let resourceType):
      try checkSeesClinicalRecords(devices, spec, expected, resourceType: resourceType, step)
    case .seesRoutes(let devices, let spec, let expected, let locations):
      try checkSeesRoutes(devices, spec, expected, locations: locations, step)
    case .workout(let device, let name, let workout, let check): try checkWorkout(device, name, workout, check, step)
    case .activitySummary(let devices, let name, let day, let expected):
      try checkActivitySummary(devices, name, day, expected, step)
    case .activitySummaryQuery(let device, let name, let day, let outcome):
      try checkActivitySummaryQuery(device, name, day, outcome, step)
    case .session(let device, let name, let session, let check): try checkSession(device, name, session, check, step)
    case .recovers(let device, let name, let session): try checkRecovers(device, name, session, step)
    case .onBoth(let phone, let watch): try checkOnBoth(phone, watch, step)
    }
  }

  /// `expect both:` with an expectation about one device: checked on the phone, then the watch; a failure says
  /// which device.
  private mutating func checkOnBoth(_ phone: Expectation, _ watch: Expectation, _ step: Step) throws {
    for (device, expectation) in [(DeviceKind.phone, phone), (.watch, watch)] {
      do { try check(expectation, step) } catch let failure as StepFailure {
        throw failure.on(device)
      }
    }
  }
}
