
/// One measured figure, beside its baseline and target.
package struct Metric: Sendable {
  /// What is measured.
  package var name: String
  /// The baseline measured in the same run, if the target is a ratio.
  package var baseline: String
  /// HealthPair's figure.
  package var value: String
  /// value / baseline, when meaningful.
  package var ratio: String
  /// The target.
  package var target: String
  /// Whether the target is met (nil: reported only).
  package var met: Bool?
  /// Raw numbers for the JSON report.
  package var numbers: [(String, Double)]
  /// Which of `numbers` is the row's own figure, the one the history's spread follows (nil: the first).
  package var headline: String? = nil
}

/// A row with no target: `value` against `baseline` (microseconds), its ratio reported.
func reportedRatio(
  _ name: String, _ baseline: Double, _ value: Double, numbers: [(String, Double)], headline: String
) -> Metric {
  Metric(
    name: name, baseline: us(baseline), value: us(value), ratio: ratioText(value, baseline), target: "reported",
    met: nil, numbers: numbers, headline: headline)
}
