import FoundationEssentials
import HealthModel

// Per-day digests of the live samples: what a store check compares instead of the samples.
extension SampleStore {
  /// What the live samples ending on one UTC day add up to: the wrapping sum of their fingerprints and their count.
  /// Two devices holding the same samples for a day have equal digests; the sums are kept up to date on every
  /// insert, delete and prune, so comparing stores costs one entry per day, never a scan.
  package struct DayDigest: Hashable, Sendable {
    /// Days since the reference date (2001-01-01T00:00:00Z), UTC.
    package var day: Int64
    /// The wrapping sum of the fingerprints of the day's live samples.
    package var sum: UInt64
    /// How many live samples end on the day.
    package var count: UInt64

    /// Creates a day digest.
    package init(day: Int64, sum: UInt64, count: UInt64) {
      self.day = day
      self.sum = sum
      self.count = count
    }
  }

  /// The UTC day (since the reference date) that `seconds` (since the reference date) falls on.
  package static func day(of seconds: Double) -> Int64 {
    let days = (seconds / 86_400).rounded(.down)
    return days.isFinite ? Int64(max(-1e15, min(1e15, days))) : (days < 0 ? Int64(-1e15) : Int64(1e15))
  }

  /// The digests of every day from `first` on that has live samples, in day order.
  package func dayDigests(from first: Int64) -> [DayDigest] {
    days.values.filter { $0.day >= first && $0.count > 0 }.sorted { $0.day < $1.day }
  }

  /// A slot's fingerprint: its identifier, type, dates, value and source (metadata is not covered).
  private func fingerprint(of slot: Slot) -> UInt64 {
    var print = Fingerprint()
    withUnsafeBytes(of: slot.uuid.uuid) { bytes in
      print.add(bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
      print.add(bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }
    print.add(UInt64(slot.type))
    print.add(slot.start.bitPattern)
    print.add(slot.end.bitPattern)
    print.add(slot.value.bitPattern)
    print.add(sourceFingerprints[Int(slot.source)])
    return print.value
  }

  mutating func account(_ index: Int, sign: Int) {
    let slot = slots[index]
    let day = Self.day(of: slot.end)
    let print = fingerprint(of: slot)
    if sign > 0 {
      // In place through the dictionary's accessor: one lookup.
      Self.add(print, to: &days[day, default: DayDigest(day: day, sum: 0, count: 0)])
      return
    }
    var digest = days[day] ?? DayDigest(day: day, sum: 0, count: 0)
    digest.sum &-= print
    digest.count -= 1
    days[day] = digest.count == 0 ? nil : digest
  }

  /// Counts a live sample's fingerprint in its day's digest.
  private static func add(_ print: UInt64, to digest: inout DayDigest) {
    digest.sum &+= print
    digest.count += 1
  }
}

/// A deterministic 64-bit fingerprint (the same in every process, unlike `Hasher`): each word is mixed in with the
/// splitmix64 finalizer.
package struct Fingerprint: Sendable {
  /// The fingerprint so far.
  package private(set) var value: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// Starts an empty fingerprint.
  package init() {}

  /// Mixes in one word.
  package mutating func add(_ word: UInt64) {
    var z = (value ^ word) &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    value = z ^ (z >> 31)
  }
}
