import FoundationEssentials
import HealthModel

/// The order of data sources the user set for one type in the Health app (Data Sources & Access → Edit), highest
/// priority first (docs/behavior.md P2). Statistics de-duplicate overlapping samples by it.
///
/// Sources are an app on a device (`Walker` on the watch and `Walker` on the phone are two sources, as an
/// iPhone's and an Apple Watch's own step counts are on a device). Sources the list leaves out follow the listed
/// ones, in the default order. Orders travel between the devices like samples and are stamped with when and where
/// they were set: when the two devices' orders meet, the later one wins (at the same instant, the iPhone's).
package struct SourceOrder: Hashable, Sendable {
  /// The sources, highest priority first.
  package var sources: [SampleSource]
  /// When the user set the order (the clock of `device`).
  package var at: Date
  /// Where the user set it.
  package var device: DeviceKind

  /// Creates an order.
  package init(sources: [SampleSource], at: Date, device: DeviceKind) {
    self.sources = sources
    self.at = at
    self.device = device
  }

  /// The most sources one order lists.
  package static let maxSources = 64

  /// Whether this order, arriving after `other`, supersedes it: set later; at the same instant, set on the same
  /// device (it arrives in the order it was made) or on the iPhone.
  package func supersedes(_ other: SourceOrder) -> Bool {
    if at != other.at { return at > other.at }
    return device == other.device || device == .phone
  }

  /// The default order between two sources that no user order places (docs/behavior.md P3): by bundle
  /// identifier, and for the same app on both devices the watch's first.
  ///
  /// healthd ranks sources by class (the Health app's manual entries, gym equipment, Apple Watch, other Apple
  /// devices, apps) and breaks ties between sources of one class by bundle identifier (decompiled iOS 26.1
  /// `_HDDefaultSourceOrderCompare`). Every HealthPair source is an app, so the bundle identifier decides; the same
  /// bundle on both devices stands for a device's own sensors, and Apple Watch ranks above the iPhone.
  package static func defaultPrecedes(_ a: SampleSource, _ b: SampleSource) -> Bool {
    if a.bundleID != b.bundleID { return a.bundleID < b.bundleID }
    return a.device == .watch && b.device == .phone
  }

  /// `sources` (the store's source table entries that appear in a query) sorted from highest to lowest priority
  /// under `order` (nil: the default order).
  package static func ranked(_ sources: [SampleSource], by order: SourceOrder?) -> [SampleSource] {
    let listed = order?.sources ?? []
    var position: [SampleSource: Int] = [:]
    for (i, source) in listed.enumerated() where position[source] == nil { position[source] = i }
    return sources.sorted { a, b in
      switch (position[a], position[b]) {
      case (let x?, let y?): return x < y
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil): return defaultPrecedes(a, b)
      }
    }
  }
}
