import Foundation
import HealthModel
import HealthPairClient

extension HKHealthStore {
  // MARK: - Characteristics (docs/behavior.md C1–C5)

  /// The user's date of birth, as they entered it in the Health app: Gregorian year, month and day.
  ///
  /// Request read permission for `HKCharacteristicType(.dateOfBirth)` first. A read never decided throws
  /// `HKError(.errorAuthorizationNotDetermined)`; a locked device throws `HKError(.errorDatabaseInaccessible)`.
  /// When no date is set — or the user denied the read, which the app cannot tell apart — HealthKit returns nil
  /// without an error, which Swift turns into a thrown error: ``HKNilResultError`` here.
  /// - Throws: ``HKError``; ``HKNilResultError``; ``HealthKitSimError``.
  public func dateOfBirthComponents() throws -> DateComponents {
    let api = "HKHealthStore.dateOfBirthComponents()"
    guard case .dateOfBirth(let year, let month, let day)? = try characteristic(.dateOfBirth, api: api) else {
      throw HKNilResultError(api: api)
    }
    var components = DateComponents()
    components.calendar = Calendar(identifier: .gregorian)
    components.year = year
    components.month = month
    components.day = day
    return components
  }

  /// The user's biological sex; `.notSet` when not set or when the user denied the read (the app cannot tell).
  /// - Throws: ``HKError`` (`errorAuthorizationNotDetermined` before asking, `errorDatabaseInaccessible` while the
  ///   device is locked); ``HealthKitSimError``.
  public func biologicalSex() throws -> HKBiologicalSexObject {
    HKBiologicalSexObject(
      HKBiologicalSex(rawValue: try raw(.biologicalSex, api: "HKHealthStore.biologicalSex()")) ?? .notSet)
  }

  /// The user's blood type; `.notSet` when not set or when the user denied the read.
  /// - Throws: as ``biologicalSex()``.
  public func bloodType() throws -> HKBloodTypeObject {
    HKBloodTypeObject(HKBloodType(rawValue: try raw(.bloodType, api: "HKHealthStore.bloodType()")) ?? .notSet)
  }

  /// The user's Fitzpatrick skin type; `.notSet` when not set or when the user denied the read.
  /// - Throws: as ``biologicalSex()``.
  public func fitzpatrickSkinType() throws -> HKFitzpatrickSkinTypeObject {
    HKFitzpatrickSkinTypeObject(
      HKFitzpatrickSkinType(rawValue: try raw(.fitzpatrickSkinType, api: "HKHealthStore.fitzpatrickSkinType()"))
        ?? .notSet)
  }

  /// Whether the user uses a wheelchair; `.notSet` when not set or when the user denied the read.
  /// - Throws: as ``biologicalSex()``.
  public func wheelchairUse() throws -> HKWheelchairUseObject {
    HKWheelchairUseObject(
      HKWheelchairUse(rawValue: try raw(.wheelchairUse, api: "HKHealthStore.wheelchairUse()")) ?? .notSet)
  }

  /// What the user's move ring counts; `.activeEnergy` (the default move mode) when not set or not readable, since
  /// the enumeration has no "not set" case (HealthPair model, docs/behavior.md C5).
  /// - Throws: as ``biologicalSex()``.
  public func activityMoveMode() throws -> HKActivityMoveModeObject {
    HKActivityMoveModeObject(
      HKActivityMoveMode(rawValue: try raw(.activityMoveMode, api: "HKHealthStore.activityMoveMode()"))
        ?? .activeEnergy)
  }

  private func raw(_ identifier: HKCharacteristicTypeIdentifier, api: String) throws -> Int {
    guard case .value(let raw)? = try characteristic(identifier, api: api) else { return 0 }
    return raw
  }

  /// The daemon's answer for one characteristic (nil: not set, or not readable).
  private func characteristic(_ identifier: HKCharacteristicTypeIdentifier, api: String) throws
    -> CharacteristicValue?
  {
    let session = try Session.current(api: api)
    let type = try HKCharacteristicType(identifier).simulatedType()
    return try session.perform(.readCharacteristic(session.bundleID, type), api: api)
  }

  // MARK: - Preferred units (docs/behavior.md R6)

  /// The units the user prefers for `quantityTypes`: the unit chosen in the Health app, else the default of the
  /// device's locale (for example pounds for body mass in the US); the default only, whatever the user chose, for a
  /// type the app was granted neither read nor share permission for.
  ///
  /// - Throws: `HKError(.errorAuthorizationNotDetermined)` when the app never asked the user about one of the types
  ///   (in either direction), `HKError(.errorDatabaseInaccessible)` while the device is locked;
  ///   ``HealthKitSimError``.
  public func preferredUnits(for quantityTypes: Set<HKQuantityType>) async throws -> [HKQuantityType: HKUnit] {
    let api = "HKHealthStore.preferredUnits(for:)"
    let session = try await Session.connected(api: api)
    let operation = try HKHealthStore.unitsOperation(session, quantityTypes)
    return try HKHealthStore.units(session, try await session.performAsync(operation, api: api), api: api)
  }

  /// Completion-handler form of ``preferredUnits(for:)``: `completion` receives the units (empty on error) and the
  /// error, on a background queue.
  public func preferredUnits(
    for quantityTypes: Set<HKQuantityType>,
    completion: @escaping @Sendable ([HKQuantityType: HKUnit], (any Error)?) -> Void
  ) {
    let api = "HKHealthStore.preferredUnits(for:completion:)"
    let started = Result { () throws -> (Session, PendingOperation<[SampleType: String]>) in
      let session = try Session.current(api: api)
      return (session, try session.start(try HKHealthStore.unitsOperation(session, quantityTypes), api: api))
    }
    deliver({
      let (session, pending) = try started.get()
      return try HKHealthStore.units(session, try await session.value(of: pending, api: api), api: api)
    }) { result in
      switch result {
      case .success(let units): completion(units, nil)
      case .failure(let error): completion([:], error)
      }
    }
  }

  private static func unitsOperation(_ session: Session, _ types: Set<HKQuantityType>) throws(HealthKitSimError)
    -> DeviceOperation<[SampleType: String]>
  {
    var simulated: [SampleType] = []
    for type in types { simulated.append(try type.simulatedType()) }
    return .preferredUnits(session.bundleID, simulated.sorted())
  }

  private static func units(_ session: Session, _ units: [SampleType: String], api: String) throws
    -> [HKQuantityType: HKUnit]
  {
    var result: [HKQuantityType: HKUnit] = [:]
    for (type, unit) in units {
      guard let parsed = try? HealthUnit(parsing: unit) else {
        throw session.unexpected("the unit '\(unit)' for \(type.name)", api: api)
      }
      result[HKQuantityType(HKQuantityTypeIdentifier(type.identifier))] = HKUnit(parsed: parsed)
    }
    return result
  }
}
