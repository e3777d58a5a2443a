import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// Medications: the user adds them and logs doses (the user's world), an app asks to read them object by object,
/// and its medication and dose queries (behavior.md section Z).
extension RunContext {
  /// `user on <device>: adds medication "<text>" …`: the Health app stores it (the iPhone only, Z1).
  mutating func addMedication(_ device: DeviceKind, _ spec: MedicationSpec, _ step: Step) throws {
    let medication = Medication(
      conceptID: spec.conceptID, displayText: spec.displayText, generalForm: spec.form ?? "tablet",
      nickname: spec.nickname, isArchived: spec.isArchived, hasSchedule: spec.hasSchedule, added: now,
      source: SampleSource(bundleID: DeviceState.medicationsAppBundleID, device: device))
    if let name = spec.name { names[name] = medication.uuid }
    let c = client(device)
    try expectOutcome(
      attempt { () throws(ClientError) in try c.addMedications([medication]) }, spec.failure, step,
      subject: "the addition", success: "the \(device)'s Health app to add \"\(spec.displayText)\"")
  }

  /// `user on <device>: logs a dose of <name> …`: the Health (or Medications) app logs it (Z3).
  mutating func logDose(_ device: DeviceKind, _ spec: DoseSpec, _ step: Step) throws {
    let dose = MedicationDoseEvent(
      uuid: rng.uuid(), conceptID: spec.conceptID, date: spec.at.map { resolve($0, on: device) } ?? now,
      status: spec.status, scheduledDate: spec.scheduled.map { resolve($0, on: device) }, dose: spec.amount,
      source: SampleSource(bundleID: DeviceState.medicationsAppBundleID, device: device))
    let c = client(device)
    try expectOutcome(
      attempt { () throws(ClientError) in try c.logMedicationDoses([dose]) }, spec.failure, step,
      subject: "the dose", success: "the \(device) to log a dose of \(spec.medication)")
  }

  /// `<device>: <App> asks to read medications`: pending while its per-object sheet is up (Z2).
  mutating func requestMedications(_ device: DeviceKind, _ name: String) throws {
    let query = SampleQuery(
      type: SpecialObjectStore.medicationType, range: nil, sources: nil, limit: 0, sort: [], filter: nil)
    let request = try client(device).start(.requestPerObjectRead(declared(name, on: device).bundleID, query))
    try awaitSheet(device, name, request, api: "requestPerObjectReadAuthorization")
  }

  /// `<App> sees <n> medications …`: the app's `HKUserAnnotatedMedicationQuery`, filtered as asked.
  func checkSeesMedications(
    _ devices: Devices, _ name: String, _ expected: Int, _ check: MedicationCheck, _ step: Step
  ) throws {
    var conditions: [MedicationCondition] = []
    if let archived = check.archived { conditions.append(.archived(archived)) }
    if let scheduled = check.scheduled { conditions.append(.hasSchedule(scheduled)) }
    let filter = conditions.isEmpty ? nil : SampleFilter.and(conditions.map { .medication($0) })
    for device in devices.list {
      let query = SampleQuery(
        type: SpecialObjectStore.medicationType, range: nil, sources: nil, limit: 0, sort: [], filter: filter)
      let found = try queried(step, "\(name)'s medication query", on: device, expecting: expected) {
        () throws(ClientError) in try client(device).medicationQuery(app(name).bundleID, query)
      }
      if found.count != expected {
        throw fail(
          step, "\(name) sees \(expected) medication\(expected == 1 ? "" : "s") on the \(device)",
          "\(found.count)" + (found.isEmpty ? "" : ": " + found.map { "\"\($0.displayText)\"" }.joined(separator: ", "))
        )
      }
    }
  }

  /// `<App> sees <n> dose events [of <name>] [<status>] [query]`: the app's sample query of the dose type.
  func checkSeesDoses(
    _ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, _ check: MedicationCheck, _ step: Step
  ) throws {
    var conditions: [SampleFilter] = []
    if let concept = check.medication { conditions.append(.medication(.concepts([concept]))) }
    if let status = check.status { conditions.append(.medication(.statuses([status.rawValue]))) }
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort,
        filter: conditions.isEmpty ? nil : conditions.count == 1 ? conditions[0] : .and(conditions))
      let found = try queried(step, "\(spec.app)'s dose query", on: device, expecting: expected) {
        () throws(ClientError) in try client(device).medicationDoseQuery(app(spec.app).bundleID, query)
      }
      if found.count != expected {
        throw fail(
          step, "\(spec.app) sees \(expected) dose event\(expected == 1 ? "" : "s") on the \(device)",
          "\(found.count)"
            + (found.isEmpty ? "" : ": " + found.map { "\($0.status) \(formatDate($0.date))" }.joined(separator: ", ")))
      }
    }
  }
}
