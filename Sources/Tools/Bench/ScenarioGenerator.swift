import HealthModel
import ScenarioLanguage

/// Writes valid, varied scenarios for the suite-size benchmark (11b): each one passes against a correct pair, and
/// the mix — which device saves, how many samples, granted or denied, synced or not — follows a seeded
/// generator, so the same seed gives the same suite.
package struct ScenarioGenerator: Sendable {
  /// A type the generator saves: its name, unit and the range of values it draws.
  private struct Kind {
    var type: String
    var unit: String
    var values: ClosedRange<Int>
    /// Cumulative types are summed; discrete ones are checked by their maximum.
    var cumulative: Bool
  }

  private static let kinds = [
    Kind(type: "dietaryWater", unit: "mL", values: 100...500, cumulative: true),
    Kind(type: "stepCount", unit: "count", values: 100...2000, cumulative: true),
    Kind(type: "activeEnergyBurned", unit: "kcal", values: 10...300, cumulative: true),
    Kind(type: "heartRate", unit: "count/min", values: 50...150, cumulative: false),
  ]
  private static let apps = ["Water", "Walker", "Burn", "Pulse", "Coach", "Diary"]

  /// The seed of the first scenario; scenario `i` uses `seed + i`.
  package var seed: UInt64

  /// Creates a generator.
  package init(seed: UInt64) { self.seed = seed }

  /// The text of scenario `index`.
  package func text(_ index: Int) -> String {
    var rng = SeededGenerator(seed: seed &+ UInt64(index))
    let kind = Self.kinds[Int(rng.next() % UInt64(Self.kinds.count))]
    let app = Self.apps[Int(rng.next() % UInt64(Self.apps.count))]
    let shape = Int(rng.next() % 4)
    let count = 1 + Int(rng.next() % 6)
    let values = (0..<count).map { _ in
      kind.values.lowerBound + Int(rng.next() % UInt64(kind.values.count))
    }
    func saves(on device: String) -> [String] {
      values.enumerated().map { i, v in
        let minutes = 7 * 60 + i * 15
        let time = "\(minutes / 60 < 10 ? "0" : "")\(minutes / 60):\(minutes % 60 < 10 ? "0" : "")\(minutes % 60)"
        return "\(device): \(app) saves \(v) \(kind.unit) \(kind.type) at \(time)"
      }
    }
    let total = kind.cumulative ? values.reduce(0, +) : values.max()!
    let statistic = kind.cumulative ? "sum" : "max"
    let story = ["saves on the phone", "saves on the watch and syncs", "is denied", "saves and syncs to the watch"]
    var lines = ["scenario: Generated \(index + 1): \(app) \(story[shape]) (\(count) \(kind.type))"]
    switch shape {
    case 0:
      lines += [
        "install \(app) on phone share \(kind.type) read \(kind.type)", "phone: \(app) requests",
        "user on phone: allows all",
      ]
      lines += saves(on: "phone")
      lines += [
        "expect phone: \(app)'s last call succeeded",
        "expect phone: \(app) \(statistic) of \(kind.type) is \(total) \(kind.unit)",
        "expect phone: store has \(count) \(kind.type) samples",
      ]
    case 1:
      lines += [
        "install \(app) on phone and watch share \(kind.type) read \(kind.type)", "watch: \(app) requests",
        "user on watch: allows all",
      ]
      lines += saves(on: "watch")
      lines += [
        "expect watch: \(app) \(statistic) of \(kind.type) is \(total) \(kind.unit)", "wait until synced",
        "expect phone: store has \(count) \(kind.type) samples",
      ]
    case 2:
      lines += [
        "install \(app) on phone share \(kind.type) read \(kind.type)", "phone: \(app) requests",
        "user on phone: doesn't allow",
      ]
      lines += saves(on: "phone").prefix(1)
      lines += [
        "expect phone: \(app)'s last call failed with errorAuthorizationDenied",
        "expect phone: \(app) share \(kind.type) is sharingDenied",
        "expect phone: store has 0 \(kind.type) samples",
      ]
    default:
      lines += [
        "install \(app) on phone and watch share \(kind.type) read \(kind.type)", "phone: \(app) requests",
        "user on phone: allows all",
      ]
      lines += saves(on: "phone")
      lines += ["wait until synced", "expect watch: store has \(count) \(kind.type) samples"]
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `count` parsed scenarios (files named `generated/<n>.scenario`).
  /// - Throws: the parser's diagnostics, if the generator ever wrote an invalid scenario.
  package func scenarios(_ count: Int) throws -> [Scenario] {
    try (0..<count).map { i in
      try ScenarioParser.parse(text(i), file: "generated/\(i + 1).scenario").get()
    }
  }
}
