// Characteristic values and their wrapper objects, with Apple's raw values (HKCharacteristicValues.h,
// HKCharacteristicObjects.h).

/// The user's biological sex.
public enum HKBiologicalSex: Int, Hashable, Sendable, CaseIterable {
  /// Not set, or the app may not read it (0).
  case notSet = 0
  /// Female (1).
  case female = 1
  /// Male (2).
  case male = 2
  /// Not categorized as female or male (3).
  case other = 3
}

/// The user's blood type.
public enum HKBloodType: Int, Hashable, Sendable, CaseIterable {
  /// Not set, or the app may not read it (0).
  case notSet = 0
  /// A+ (1).
  case aPositive = 1
  /// A− (2).
  case aNegative = 2
  /// B+ (3).
  case bPositive = 3
  /// B− (4).
  case bNegative = 4
  /// AB+ (5).
  case abPositive = 5
  /// AB− (6).
  case abNegative = 6
  /// O+ (7).
  case oPositive = 7
  /// O− (8).
  case oNegative = 8
}

/// The user's skin type on the Fitzpatrick scale.
public enum HKFitzpatrickSkinType: Int, Hashable, Sendable, CaseIterable {
  /// Not set, or the app may not read it (0).
  case notSet = 0
  /// Pale white skin that always burns and never tans (1).
  case I = 1
  /// White skin that burns easily and tans minimally (2).
  case II = 2
  /// White to light brown skin that burns moderately and tans uniformly (3).
  case III = 3
  /// Beige-olive skin that burns minimally and tans moderately (4).
  case IV = 4
  /// Brown skin that rarely burns and tans profusely (5).
  case V = 5
  /// Dark brown to black skin that never burns (6).
  case VI = 6
}

/// Whether the user uses a wheelchair.
public enum HKWheelchairUse: Int, Hashable, Sendable, CaseIterable {
  /// Not set, or the app may not read it (0).
  case notSet = 0
  /// The user does not use a wheelchair (1).
  case no = 1
  /// The user uses a wheelchair (2).
  case yes = 2
}

/// What the user's move ring counts.
public enum HKActivityMoveMode: Int, Hashable, Sendable, CaseIterable {
  /// Active energy burned (1): the default.
  case activeEnergy = 1
  /// Apple Move Time (2).
  case appleMoveTime = 2
}

/// Wraps an ``HKBiologicalSex`` (what ``HKHealthStore/biologicalSex()`` returns).
public final class HKBiologicalSexObject: Hashable, Sendable {
  /// The biological sex.
  public let biologicalSex: HKBiologicalSex
  init(_ value: HKBiologicalSex) { biologicalSex = value }
  /// Equal when the values are.
  public static func == (a: HKBiologicalSexObject, b: HKBiologicalSexObject) -> Bool {
    a.biologicalSex == b.biologicalSex
  }
  /// Hashes the value.
  public func hash(into hasher: inout Hasher) { hasher.combine(biologicalSex) }
}

/// Wraps an ``HKBloodType`` (what ``HKHealthStore/bloodType()`` returns).
public final class HKBloodTypeObject: Hashable, Sendable {
  /// The blood type.
  public let bloodType: HKBloodType
  init(_ value: HKBloodType) { bloodType = value }
  /// Equal when the values are.
  public static func == (a: HKBloodTypeObject, b: HKBloodTypeObject) -> Bool { a.bloodType == b.bloodType }
  /// Hashes the value.
  public func hash(into hasher: inout Hasher) { hasher.combine(bloodType) }
}

/// Wraps an ``HKFitzpatrickSkinType`` (what ``HKHealthStore/fitzpatrickSkinType()`` returns).
public final class HKFitzpatrickSkinTypeObject: Hashable, Sendable {
  /// The skin type.
  public let skinType: HKFitzpatrickSkinType
  init(_ value: HKFitzpatrickSkinType) { skinType = value }
  /// Equal when the values are.
  public static func == (a: HKFitzpatrickSkinTypeObject, b: HKFitzpatrickSkinTypeObject) -> Bool {
    a.skinType == b.skinType
  }
  /// Hashes the value.
  public func hash(into hasher: inout Hasher) { hasher.combine(skinType) }
}

/// Wraps an ``HKWheelchairUse`` (what ``HKHealthStore/wheelchairUse()`` returns).
public final class HKWheelchairUseObject: Hashable, Sendable {
  /// Whether the user uses a wheelchair.
  public let wheelchairUse: HKWheelchairUse
  init(_ value: HKWheelchairUse) { wheelchairUse = value }
  /// Equal when the values are.
  public static func == (a: HKWheelchairUseObject, b: HKWheelchairUseObject) -> Bool {
    a.wheelchairUse == b.wheelchairUse
  }
  /// Hashes the value.
  public func hash(into hasher: inout Hasher) { hasher.combine(wheelchairUse) }
}

/// Wraps an ``HKActivityMoveMode`` (what ``HKHealthStore/activityMoveMode()`` returns).
public final class HKActivityMoveModeObject: Hashable, Sendable {
  /// What the move ring counts.
  public let activityMoveMode: HKActivityMoveMode
  init(_ value: HKActivityMoveMode) { activityMoveMode = value }
  /// Equal when the values are.
  public static func == (a: HKActivityMoveModeObject, b: HKActivityMoveModeObject) -> Bool {
    a.activityMoveMode == b.activityMoveMode
  }
  /// Hashes the value.
  public func hash(into hasher: inout Hasher) { hasher.combine(activityMoveMode) }
}

/// What Swift throws when an Objective-C method that reports errors returns nil without one: on a device
/// `dateOfBirthComponents()` does that when the date of birth is not set or the app may not read it, and Swift's
/// bridge throws `Foundation._GenericObjCError.nilError` (observed: tryVital/vital-ios PR #19). HealthKitSim throws
/// this instead: not an `HKError`, as on a device.
public struct HKNilResultError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The call that returned nil.
  public let api: String
  /// A one-line description.
  public var description: String { "\(api) returned nil without an error (Foundation._GenericObjCError.nilError)" }
}
