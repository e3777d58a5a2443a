import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// Electrocardiograms: the wearer recording one with the watch's ECG app, and what an app's queries of them see
/// (behavior.md section G).
extension RunContext {
  /// `<device>: the wearer records an ECG …`: by default the recording ends now (it starts 30 seconds before);
  /// the step fails when the outcome is not the one written (success, or `fails [with "<text>"]`).
  mutating func recordECG(_ device: DeviceKind, _ spec: ECGSpec, _ step: Step) throws {
    let duration = spec.duration ?? ECGRecording.standardDuration
    let recording = ECGRecording(
      uuid: rng.uuid(), start: spec.start.map { resolve($0, on: device) } ?? now.addingTimeInterval(-duration),
      classification: spec.classification, symptomsStatus: spec.symptoms, averageHeartRate: spec.heartRate,
      duration: duration, symptoms: spec.symptomTypes)
    let c = client(device)
    try expectOutcome(
      attempt { () throws(ClientError) in try c.recordElectrocardiogram(recording) }, spec.failure, step,
      subject: "the recording", success: "the \(device)'s ECG app to record")
  }

  /// `<App> sees <n> electrocardiograms [of <classification>…] [with symptoms] [with <m> voltages each] [query]`: a
  /// sample query of the type with the classification and symptoms predicates, then an `HKElectrocardiogramQuery`
  /// of each recording returned when voltages are checked (the daemon applies the app's authorization, G3–G4).
  func checkSeesElectrocardiograms(
    _ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, _ check: ECGCheck, _ step: Step
  ) throws {
    var conditions: [SampleFilter] = []
    if !check.classifications.isEmpty {
      conditions.append(.electrocardiogram(.classification, Set(check.classifications.map(\.rawValue))))
    }
    if let symptoms = check.symptoms { conditions.append(.electrocardiogram(.symptomsStatus, [symptoms.rawValue])) }
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort,
        filter: conditions.isEmpty ? nil : conditions.count == 1 ? conditions[0] : .and(conditions))
      let c = client(device)
      let bundle = app(spec.app).bundleID
      var voltages: [Int] = []
      let found = try queried(step, "\(spec.app)'s electrocardiogram query", on: device, expecting: expected) {
        () throws(ClientError) -> [Electrocardiogram] in
        let ecgs = try c.electrocardiogramQuery(bundle, query)
        if check.voltages != nil {
          for ecg in ecgs { voltages.append(try c.electrocardiogramVoltages(bundle, ecg.uuid).count) }
        }
        return ecgs
      }
      let wrong = found.count != expected || check.voltages.map { n in voltages.contains { $0 != n } } == true
      if wrong {
        let expectation =
          "\(spec.app) sees \(expected) electrocardiograms on the \(device)"
          + (check.voltages.map { " with \($0) voltages each" } ?? "")
        let actual =
          "\(found.count) recording\(found.count == 1 ? "" : "s")"
          + (found.isEmpty
            ? ""
            : ": "
              + found.enumerated().map { i, e in
                "\(e.classification)" + (voltages.indices.contains(i) ? ", \(voltages[i]) voltages" : "")
              }.joined(separator: "; "))
        throw fail(step, expectation, actual)
      }
    }
  }
}
