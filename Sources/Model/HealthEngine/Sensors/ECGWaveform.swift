import FoundationEssentials
import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

extension ECGRecording {
  /// The recording the ECG app on a watch stores: source the ECG app ("ECG") on `device`, 512 Hz, the algorithm
  /// version and the watch as its `HKDevice` in the metadata, and the given or synthesized voltages.
  /// - Throws: ``HealthError`` when the length is not positive, the recording is too long or a value is invalid.
  package func recorded(on device: DeviceKind) throws(HealthError) -> Electrocardiogram {
    let frequency = Self.samplingFrequency
    guard duration.isFinite, duration > 0, duration * frequency <= Double(Electrocardiogram.maxMeasurements) else {
      throw .invalidArgumentException(
        "Electrocardiogram \(uuid): a recording lasts more than 0 and at most "
          + "\(Electrocardiogram.maxMeasurements / Int(frequency)) seconds, not \(duration)")
    }
    let rate = averageHeartRate ?? Self.typicalHeartRate(classification)
    let values =
      voltages
      ?? ECGWaveform.synthesize(
        classification: classification, heartRate: rate ?? 70,
        count: Int((duration * frequency).rounded()), frequency: frequency, seed: ECGWaveform.seed(uuid))
    var tags = metadata
    if tags[Self.algorithmVersionKey] == nil { tags[Self.algorithmVersionKey] = .int(2) }
    // The recording's `HKDevice`: the watch (HealthKitSim reads these reserved keys back as `device`).
    let watch: [(DeviceProperty, String)] = [(.name, "Apple Watch"), (.manufacturer, "Apple Inc."), (.model, "Watch")]
    for (property, value) in watch where tags[property.metadataKey] == nil {
      tags[property.metadataKey] = .string(value)
    }
    let ecg = Electrocardiogram(
      uuid: uuid, start: start, end: start.addingTimeInterval(Double(values.count) / frequency),
      classification: classification, symptomsStatus: symptomsStatus, averageHeartRate: rate,
      samplingFrequency: frequency, voltages: values, metadata: tags,
      source: SampleSource(
        bundleID: Electrocardiogram.recorderBundleID, device: device, details: SourceDetails(name: "ECG")))
    try ecg.validate()
    return ecg
  }
}

/// A deterministic single-lead waveform: P, QRS and T waves as Gaussian bumps on each beat, with the rhythm and
/// noise the classification implies (irregular beats and no P wave for atrial fibrillation, heavy noise for a poor
/// reading). The same seed always gives the same voltages.
package enum ECGWaveform {
  /// A seed drawn from an identifier's bytes.
  package static func seed(_ uuid: UUID) -> UInt64 {
    withUnsafeBytes(of: uuid.uuid) { raw in
      raw.load(fromByteOffset: 0, as: UInt64.self) ^ raw.load(fromByteOffset: 8, as: UInt64.self)
    }
  }

  /// `count` voltages in microvolts at `frequency` hertz for a rhythm of `heartRate` beats per minute.
  package static func synthesize(
    classification: ECGClassification, heartRate: Double, count: Int, frequency: Double, seed: UInt64
  ) -> [Float] {
    var random = SeededGenerator(seed: seed)
    let irregular = classification == .atrialFibrillation
    let noise = classification == .inconclusivePoorReading ? 180.0 : 12.0
    let meanPeriod = 60 / max(20, min(heartRate, 250))
    // Beat times: regular with a little variability, or irregularly irregular for atrial fibrillation.
    var beats: [Double] = []
    var t = Double.random(in: 0..<meanPeriod, using: &random)
    let length = Double(count) / frequency
    while t < length + meanPeriod {
      beats.append(t)
      let spread = irregular ? 0.35 : 0.04
      t += meanPeriod * (1 + Double.random(in: -spread...spread, using: &random))
    }
    var values = [Float](repeating: 0, count: count)
    var beat = 0
    for i in 0..<count {
      let time = Double(i) / frequency
      while beat + 1 < beats.count && beats[beat + 1] - 0.3 <= time { beat += 1 }
      var v = 0.0
      for b in max(0, beat - 1)...min(beats.count - 1, beat + 1) {
        let d = time - beats[b]
        if !irregular { v += bump(d, at: -0.16, width: 0.025, height: 110) }  // P
        v += bump(d, at: -0.025, width: 0.008, height: -90)  // Q
        v += bump(d, at: 0, width: 0.011, height: 820)  // R
        v += bump(d, at: 0.03, width: 0.01, height: -170)  // S
        v += bump(d, at: 0.25, width: 0.045, height: 210)  // T
      }
      if irregular { v += 35 * sin(2 * .pi * 6.3 * time + Double(beat)) }  // fibrillatory waves
      v += Double.random(in: -noise...noise, using: &random)
      values[i] = Float((v * 1000).rounded() / 1000)
    }
    return values
  }

  private static func bump(_ d: Double, at center: Double, width: Double, height: Double) -> Double {
    let x = (d - center) / width
    return x * x > 40 ? 0 : height * exp(-0.5 * x * x)
  }
}
