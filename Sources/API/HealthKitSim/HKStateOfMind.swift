import Foundation
import HealthEngine
import HealthModel

/// A feeling at a moment or the day's mood, logged at one instant (iOS 18 / watchOS 11): valence from −1 (very
/// unpleasant) to +1 (very pleasant), labels and what it is associated with (behavior.md M1–M3).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKStateOfMind: HKSample, @unchecked Sendable {
  /// Momentary emotion or daily mood (Apple's raw values).
  public enum Kind: Int, Sendable {
    /// A feeling at a moment.
    case momentaryEmotion = 1
    /// The mood of a day.
    case dailyMood = 2
  }

  /// The seven bands of valence (Apple's raw values 1–7).
  public enum ValenceClassification: Int, Sendable {
    /// Below −5/7.
    case veryUnpleasant = 1
    /// −5/7 to −3/7.
    case unpleasant = 2
    /// −3/7 to −1/7.
    case slightlyUnpleasant = 3
    /// −1/7 to 1/7, both included.
    case neutral = 4
    /// Above 1/7 to 3/7.
    case slightlyPleasant = 5
    /// Above 3/7 to 5/7.
    case pleasant = 6
    /// Above 5/7.
    case veryPleasant = 7

    /// The class of `valence`; nil outside −1…1.
    public init?(valence: Double) {
      guard let model = HealthModel.ValenceClassification(valence: valence) else { return nil }
      self.init(rawValue: model.rawValue)
    }
  }

  /// A feeling's label (Apple's raw values 1–38).
  public enum Label: Int, Sendable {
    case amazed = 1
    case amused, angry, anxious, ashamed, brave, calm, content, disappointed, discouraged, disgusted
    case embarrassed, excited, frustrated, grateful, guilty, happy, hopeless, irritated, jealous, joyful, lonely
    case passionate, peaceful, proud, relieved, sad, scared, stressed, surprised, worried, annoyed, confident
    case drained, hopeful, indifferent, overwhelmed, satisfied
  }

  /// What the feeling is about (Apple's raw values 1–18).
  public enum Association: Int, Sendable {
    case community = 1
    case currentEvents, dating, education, family, fitness, friends, health, hobbies, identity
    case money, partner, selfCare, spirituality, tasks, travel, work, weather
  }

  /// Momentary emotion or daily mood.
  public let kind: Kind
  /// The valence, −1…1.
  public let valence: Double
  /// The labels.
  public let labels: [Label]
  /// The associations.
  public let associations: [Association]

  /// The valence's class.
  public var valenceClassification: ValenceClassification { ValenceClassification(valence: valence) ?? .neutral }

  /// A State of Mind logged at `date` (start and end). A valence outside −1…1 is refused when it is saved, where a
  /// device would have raised already.
  public init(
    date: Date, kind: Kind, valence: Double, labels: [Label], associations: [Association],
    metadata: [String: Any]? = [:]
  ) {
    self.kind = kind
    self.valence = valence
    self.labels = labels
    self.associations = associations
    super.init(
      uuid: .fresh(), start: date, end: date, metadata: MetadataPayload(metadata),
      origin: HKSample.unsavedOrigin(HKObjectType.stateOfMindType()))
  }

  /// The object for a stored State of Mind.
  package init(_ state: StateOfMind) {
    kind = Kind(rawValue: state.kind.rawValue) ?? .momentaryEmotion
    valence = state.valence
    labels = state.labels.compactMap(Label.init(rawValue:))
    associations = state.associations.compactMap(Association.init(rawValue:))
    super.init(
      uuid: state.uuid, start: state.date, end: state.date, metadata: .valid(state.metadata),
      origin: SampleOrigin(type: HKObjectType.stateOfMindType(), unit: nil, source: HKSourceRevision(state.source)))
  }

  override var valueDescription: String? { "\(kind) \(formatNumber(valence))" }

  /// The sample as the daemon's save takes it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses.
  func stateOfMindInput(api: String) throws -> StateOfMindInput {
    StateOfMindInput(
      uuid: uuid, date: startDate, kind: kind.rawValue, valence: valence, labels: labels.map(\.rawValue),
      associations: associations.map(\.rawValue), metadata: try metadataPayload.checked(api: api))
  }
}

extension HKQuery {
  /// States of Mind whose valence compares with `valence` by `operatorType`.
  public static func predicateForStatesOfMind(withValence valence: Double, operatorType: HKComparisonOperator)
    -> NSPredicate
  {
    guard let op = ComparisonOperator(appleRawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return HealthKitSimPredicate(.stateOfMindValence(op, valence))
  }

  /// The valence predicate, for an operator typed with Foundation's deprecated type.
  @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux: write .greaterThan …")
  @_disfavoredOverload
  public static func predicateForStatesOfMind(
    withValence valence: Double, operatorType: NSComparisonPredicate.Operator
  ) -> NSPredicate {
    guard let op = HKComparisonOperator(rawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return predicateForStatesOfMind(withValence: valence, operatorType: op)
  }

  /// States of Mind of `kind`.
  public static func predicateForStatesOfMind(with kind: HKStateOfMind.Kind) -> NSPredicate {
    HealthKitSimPredicate(.stateOfMind(.kind, kind.rawValue))
  }

  /// States of Mind with `label` among their labels.
  public static func predicateForStatesOfMind(with label: HKStateOfMind.Label) -> NSPredicate {
    HealthKitSimPredicate(.stateOfMind(.label, label.rawValue))
  }

  /// States of Mind with `association` among their associations.
  public static func predicateForStatesOfMind(with association: HKStateOfMind.Association) -> NSPredicate {
    HealthKitSimPredicate(.stateOfMind(.association, association.rawValue))
  }
}

extension HKSamplePredicate where Sample == HKStateOfMind {
  /// States of Mind matching `predicate` (nil: all; iOS 18).
  public static func stateOfMind(_ predicate: NSPredicate? = nil) -> Self {
    Self(HKObjectType.stateOfMindType(), predicate)
  }
}
