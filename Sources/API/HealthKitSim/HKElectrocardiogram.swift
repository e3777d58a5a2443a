import Foundation
import HealthEngine
import HealthModel

/// A single-lead electrocardiogram recorded by the ECG app on Apple Watch (iOS 14 / watchOS 7). Apps only read
/// them: there is no public initializer, and the type is read-only (behavior.md G1–G3). The voltages are read with
/// ``HKElectrocardiogramQuery``.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKElectrocardiogram: HKSample, @unchecked Sendable {
  /// What the ECG app concluded (Apple's raw values).
  public enum Classification: Int, Sendable {
    /// No classification.
    case notSet = 0
    /// Sinus rhythm.
    case sinusRhythm = 1
    /// Signs of atrial fibrillation.
    case atrialFibrillation = 2
    /// Inconclusive: heart rate under 50 BPM.
    case inconclusiveLowHeartRate = 3
    /// Inconclusive: high heart rate.
    case inconclusiveHighHeartRate = 4
    /// Inconclusive: the signal did not allow a classification.
    case inconclusivePoorReading = 5
    /// Inconclusive for another reason.
    case inconclusiveOther = 6
    /// A classification this device does not recognize (a newer algorithm's).
    case unrecognized = 100
  }

  /// Whether the user logged symptoms with the recording (Apple's raw values).
  public enum SymptomsStatus: Int, Sendable {
    /// Not set.
    case notSet = 0
    /// The user had none.
    case none = 1
    /// The user logged symptoms (read them with a category sample query).
    case present = 2
  }

  /// The lead a voltage was measured on: Apple Watch measures one, similar to lead I.
  public enum Lead: Int, Sendable {
    /// Apple Watch's lead, similar to lead I.
    case appleWatchSimilarToLeadI = 1
  }

  /// One voltage measurement: its time since the recording started and its voltage on each lead.
  ///
  /// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
  public final class VoltageMeasurement: NSObject, @unchecked Sendable {
    /// Seconds since the recording's start.
    public let timeSinceSampleStart: TimeInterval
    private let microvolts: Float

    init(time: TimeInterval, microvolts: Float) {
      self.timeSinceSampleStart = time
      self.microvolts = microvolts
    }

    /// The voltage on `lead`, in a unit compatible with volts (microvolts, as the ECG app records them).
    public func quantity(for lead: HKElectrocardiogram.Lead) -> HKQuantity? {
      switch lead {
      case .appleWatchSimilarToLeadI: HKQuantity(unit: .voltUnit(with: .micro), doubleValue: Double(microvolts))
      }
    }

    /// `<time> s: <µV> µV`.
    public override var description: String { "\(timeSinceSampleStart) s: \(microvolts) µV" }
  }

  /// How many voltage measurements the recording holds.
  public let numberOfVoltageMeasurements: Int
  /// Measurements per second, in hertz.
  public let samplingFrequency: HKQuantity?
  /// The ECG app's conclusion.
  public let classification: Classification
  /// The average heart rate over the recording (nil: none computed, as for a poor reading).
  public let averageHeartRate: HKQuantity?
  /// Whether the user logged symptoms.
  public let symptomsStatus: SymptomsStatus

  /// The object for a stored recording (its header: the voltages stay on the device until a query reads them).
  package init(_ ecg: Electrocardiogram) {
    numberOfVoltageMeasurements = ecg.measurementCount
    samplingFrequency = HKQuantity(unit: .hertz(), doubleValue: ecg.samplingFrequency)
    classification = Classification(rawValue: ecg.classification.rawValue) ?? .unrecognized
    averageHeartRate = ecg.averageHeartRate.map {
      HKQuantity(unit: HKUnit.count().unitDivided(by: .minute()), doubleValue: $0)
    }
    symptomsStatus = SymptomsStatus(rawValue: ecg.symptomsStatus.rawValue) ?? .notSet
    super.init(
      uuid: ecg.uuid, start: ecg.start, end: ecg.end, metadata: .valid(ecg.metadata),
      origin: SampleOrigin(
        type: HKObjectType.electrocardiogramType(), unit: nil, source: HKSourceRevision(ecg.source)))
  }

  override var valueDescription: String? { "\(numberOfVoltageMeasurements) measurements" }

  /// The measurements of `voltages` (microvolts) at `frequency`.
  static func measurements(_ voltages: [Float], frequency: Double) -> [VoltageMeasurement] {
    voltages.enumerated().map { VoltageMeasurement(time: Double($0.offset) / frequency, microvolts: $0.element) }
  }

  /// The recording's measurements, read from the device.
  /// - Throws: what the query's handler would receive (code 5 for a read never decided).
  func measurements(_ session: Session, api: String) throws -> [VoltageMeasurement] {
    guard numberOfVoltageMeasurements > 0 else { return [] }
    let voltages = try session.perform(.electrocardiogramVoltages(session.bundleID, uuid), api: api)
    return Self.measurements(voltages, frequency: samplingFrequency?.doubleValue(for: .hertz()) ?? 512)
  }
}

/// Reads an electrocardiogram's voltage measurements (iOS 14 / watchOS 7): the handler gets one `.measurement`
/// per measurement in time order, then `.done` — or `.error` instead of `.done`. A recording the app may no longer
/// read, or no longer stored, gives `.done` at once (behavior.md G4).
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives.
public final class HKElectrocardiogramQuery: HKQuery, @unchecked Sendable {
  /// What the handler receives.
  public enum Result: @unchecked Sendable {
    /// One measurement.
    case measurement(HKElectrocardiogram.VoltageMeasurement)
    /// Every measurement was delivered.
    case done
    /// The query failed; nothing more follows.
    case error(any Error)
  }

  private let electrocardiogram: HKElectrocardiogram
  private let dataHandler: (HKElectrocardiogramQuery, Result) -> Void

  /// A query of `electrocardiogram`'s voltage measurements. The handler is called on the query's own serial queue,
  /// one call at a time (not `@Sendable`, as in Apple's overlay: handlers may collect into captured variables).
  public init(
    _ electrocardiogram: HKElectrocardiogram, dataHandler: @escaping (HKElectrocardiogramQuery, Result) -> Void
  ) {
    self.electrocardiogram = electrocardiogram
    self.dataHandler = dataHandler
    super.init(objectType: HKObjectType.electrocardiogramType(), predicate: nil)
  }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      do {
        for measurement in try electrocardiogram.measurements(session, api: "HKElectrocardiogramQuery") {
          run.deliver { dataHandler(self, .measurement(measurement)) }
        }
        run.deliver { dataHandler(self, .done) }
      } catch {
        run.deliver { dataHandler(self, .error(error)) }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { dataHandler(self, .error(error)) }
  }
}

/// An electrocardiogram's voltage measurements as an asynchronous sequence (iOS 15.4):
/// `for try await measurement in descriptor.results(for: store)`.
public struct HKElectrocardiogramQueryDescriptor: Sendable {
  /// The measurements, in time order, then the end of the sequence (or its error).
  public typealias Results = AsyncThrowingStream<HKElectrocardiogram.VoltageMeasurement, any Error>

  /// The recording whose measurements are read.
  public var electrocardiogram: HKElectrocardiogram

  /// A descriptor of `electrocardiogram`'s measurements.
  public init(_ electrocardiogram: HKElectrocardiogram) { self.electrocardiogram = electrocardiogram }

  /// The measurements, read from the current device.
  public func results(for healthStore: HKHealthStore) -> Results {
    let ecg = electrocardiogram
    let target = HealthKitSim.currentTarget
    return AsyncThrowingStream { continuation in
      deliver({ () throws -> [HKElectrocardiogram.VoltageMeasurement] in
        let api = "HKElectrocardiogramQueryDescriptor"
        let session =
          try target.map { target in try HealthKitSim.withTarget(target) { try Session.current(api: api) } }
          ?? Session.current(api: api)
        return try ecg.measurements(session, api: api)
      }) { result in
        switch result {
        case .success(let measurements):
          for measurement in measurements { continuation.yield(measurement) }
          continuation.finish()
        case .failure(let error): continuation.finish(throwing: error)
        }
      }
    }
  }
}

extension HKQuery {
  /// Electrocardiograms with `classification`.
  public static func predicateForElectrocardiograms(classification: HKElectrocardiogram.Classification)
    -> NSPredicate
  {
    HealthKitSimPredicate(.electrocardiogram(.classification, [classification.rawValue]))
  }

  /// Electrocardiograms with `symptomsStatus`.
  public static func predicateForElectrocardiograms(symptomsStatus: HKElectrocardiogram.SymptomsStatus)
    -> NSPredicate
  {
    HealthKitSimPredicate(.electrocardiogram(.symptomsStatus, [symptomsStatus.rawValue]))
  }

  /// The symptom samples the user logged with `electrocardiogram` (category samples the ECG app saved with it;
  /// behavior.md G6).
  public static func predicateForObjectsAssociated(electrocardiogram: HKElectrocardiogram) -> NSPredicate {
    HealthKitSimPredicate(
      .metadata(key: ECGRecording.associationKey, .oneOf([.string(electrocardiogram.uuid.uuidString)])))
  }
}

extension HKSamplePredicate where Sample == HKElectrocardiogram {
  /// Electrocardiograms matching `predicate` (nil: all; iOS 15.4).
  public static func electrocardiogram(_ predicate: NSPredicate? = nil) -> Self {
    Self(HKObjectType.electrocardiogramType(), predicate)
  }
}

/// The key path of an electrocardiogram's average heart rate in predicates.
public let HKPredicateKeyPathAverageHeartRate = "ecg_average_heart_rate"
/// The key path of an electrocardiogram's classification in predicates.
public let HKPredicateKeyPathECGClassification = "ecg_public_classification"
/// The key path of an electrocardiogram's symptoms status in predicates.
public let HKPredicateKeyPathECGSymptomsStatus = "ecg_symptoms_status"

/// The version of the ECG app's classification algorithm (`HKMetadataKeyAppleECGAlgorithmVersion`).
public enum HKAppleECGAlgorithmVersion: Int, Sendable {
  /// Version 1.
  case version1 = 1
  /// Version 2 (iOS 14.3 / watchOS 7.2).
  case version2 = 2
}
