extension XMLScanner {
  /// The deepest nesting of elements accepted: Apple's exports nest four deep (`HealthData`, `Record`,
  /// `HeartRateVariabilityMetadataList`, `InstantaneousBeatsPerMinute`), so a deeper document is refused with a
  /// located error instead of growing the open-element stack without bound.
  package static let maxDepth = 256

  /// The most attributes one tag may have (Apple's `Record` has nine): a tag with more is refused with a located
  /// error, which keeps the duplicate-attribute check cheap.
  package static let maxAttributes = 256
}
