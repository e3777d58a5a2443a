import FoundationEssentials

/// `HKStateOfMind.Kind`: a feeling at a moment or the day's mood (Apple's raw values).
package enum StateOfMindKind: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `momentaryEmotion` (1).
  case momentaryEmotion = 1
  /// `dailyMood` (2).
  case dailyMood = 2

  /// The Swift case name.
  package var description: String { self == .momentaryEmotion ? "momentaryEmotion" : "dailyMood" }
}

/// `HKStateOfMind.ValenceClassification`: the seven bands of valence the Health app's slider shows (raw 1–7).
package enum ValenceClassification: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `veryUnpleasant` (1): below −5/7.
  case veryUnpleasant = 1
  /// `unpleasant` (2): −5/7 to −3/7.
  case unpleasant
  /// `slightlyUnpleasant` (3): −3/7 to −1/7.
  case slightlyUnpleasant
  /// `neutral` (4): −1/7 to 1/7, both included.
  case neutral
  /// `slightlyPleasant` (5): above 1/7 to 3/7.
  case slightlyPleasant
  /// `pleasant` (6): above 3/7 to 5/7.
  case pleasant
  /// `veryPleasant` (7): above 5/7.
  case veryPleasant

  /// The class of `valence`, or nil outside −1…1 (`init?(valence:)`): bands of 2/7, the neutral band closed.
  package init?(valence: Double) {
    guard valence.isFinite, (-1...1).contains(valence) else { return nil }
    let step = 1.0 / 7
    switch valence {
    case ..<(-5 * step): self = .veryUnpleasant
    case ..<(-3 * step): self = .unpleasant
    case ..<(-step): self = .slightlyUnpleasant
    case ...step: self = .neutral
    case ...(3 * step): self = .slightlyPleasant
    case ...(5 * step): self = .pleasant
    default: self = .veryPleasant
    }
  }

  /// The Swift case name.
  package var description: String {
    ["veryUnpleasant", "unpleasant", "slightlyUnpleasant", "neutral", "slightlyPleasant", "pleasant", "veryPleasant"][
      rawValue - 1]
  }
}

/// `HKStateOfMind.Label`'s Swift case names, in raw-value order (1–38; not alphabetical past 31).
package let stateOfMindLabels = [
  "amazed", "amused", "angry", "anxious", "ashamed", "brave", "calm", "content", "disappointed", "discouraged",
  "disgusted", "embarrassed", "excited", "frustrated", "grateful", "guilty", "happy", "hopeless", "irritated",
  "jealous", "joyful", "lonely", "passionate", "peaceful", "proud", "relieved", "sad", "scared", "stressed",
  "surprised", "worried", "annoyed", "confident", "drained", "hopeful", "indifferent", "overwhelmed", "satisfied",
]

/// `HKStateOfMind.Association`'s Swift case names, in raw-value order (1–18).
package let stateOfMindAssociations = [
  "community", "currentEvents", "dating", "education", "family", "fitness", "friends", "health", "hobbies",
  "identity", "money", "partner", "selfCare", "spirituality", "tasks", "travel", "work", "weather",
]

/// A State of Mind sample (`HKStateOfMind`, iOS 18): a feeling or mood logged at one instant, with its valence
/// (−1 very unpleasant … +1 very pleasant), labels and what it is associated with.
package struct StateOfMind: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// When it was logged (start and end).
  package var date: Date
  /// Momentary emotion or daily mood.
  package var kind: StateOfMindKind
  /// The valence, −1…1.
  package var valence: Double
  /// `HKStateOfMind.Label` raw values, as given.
  package var labels: [Int]
  /// `HKStateOfMind.Association` raw values, as given.
  package var associations: [Int]
  /// The sample's metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates a sample.
  package init(
    uuid: UUID, date: Date, kind: StateOfMindKind, valence: Double, labels: [Int], associations: [Int],
    metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.date = date
    self.kind = kind
    self.valence = valence
    self.labels = labels
    self.associations = associations
    self.metadata = metadata
    self.source = source
  }

  /// The end of the sample: its date.
  package var end: Date { date }

  /// The valence's class.
  package var classification: ValenceClassification { ValenceClassification(valence: valence) ?? .neutral }
}

/// A State of Mind as an app saves it: everything but the source; the kind as a raw value, so a bad one reaches
/// the device's check.
package struct StateOfMindInput: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// When it was logged.
  package var date: Date
  /// `HKStateOfMind.Kind`'s raw value.
  package var kind: Int
  /// The valence.
  package var valence: Double
  /// Label raw values.
  package var labels: [Int]
  /// Association raw values.
  package var associations: [Int]
  /// The metadata.
  package var metadata: Metadata

  /// Creates an input.
  package init(
    uuid: UUID, date: Date, kind: Int, valence: Double, labels: [Int] = [], associations: [Int] = [],
    metadata: Metadata = [:]
  ) {
    self.uuid = uuid
    self.date = date
    self.kind = kind
    self.valence = valence
    self.labels = labels
    self.associations = associations
    self.metadata = metadata
  }

  /// The stored sample of `source`, checked as HealthKit validates one: the date as a sample's, kind 1 or 2,
  /// valence in −1…1, labels 1–38, associations 1–18, metadata values a sample may carry.
  /// - Throws: `wouldTerminate` with Apple's message (a device raises when the object is made; its
  ///   `valenceClassification` asserts a validated valence).
  package func validated(source: SampleSource) throws(HealthError) -> StateOfMind {
    try checkObjectDates(date, date, "HKStateOfMind")
    guard let kind = StateOfMindKind(rawValue: kind) else {
      throw .invalidArgumentException("Only momentary emotion and daily mood are supported.")
    }
    guard valence.isFinite, (-1...1).contains(valence) else {
      throw .invalidArgumentException("Only valence values in the range [-1, +1] are supported.")
    }
    guard labels.allSatisfy({ (1...stateOfMindLabels.count).contains($0) }) else {
      throw .invalidArgumentException("One or more HKStateOfMind labels are not supported")
    }
    guard associations.allSatisfy({ (1...stateOfMindAssociations.count).contains($0) }) else {
      throw .invalidArgumentException("One or more HKStateOfMind associations are not supported")
    }
    try metadata.checkValues()
    return StateOfMind(
      uuid: uuid, date: date, kind: kind, valence: valence, labels: labels, associations: associations,
      metadata: metadata, source: source)
  }
}

extension StateOfMind {
  /// The sample as an app would save it again (import checks, decoding).
  package var input: StateOfMindInput {
    StateOfMindInput(
      uuid: uuid, date: date, kind: kind.rawValue, valence: valence, labels: labels, associations: associations,
      metadata: metadata)
  }
}
