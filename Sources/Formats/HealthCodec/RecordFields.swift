import FoundationEssentials
import HealthEngine
import HealthModel

/// The fields durable records are made of, each the ``BinaryWriter``/``BinaryReader`` pair of its value
/// (docs/protocol.md#value-encoding). An array field loops over its elements in its own body, so reading a record
/// of a million samples makes one call through the table, not one per sample.
enum Fields {
  /// A `u64`.
  static let u64 = RecordField<UInt64>(write: { $0.u64($1) }, read: { r throws(DecodeError) in try r.u64() })
  /// A `bool`.
  static let bool = RecordField<Bool>(write: { $0.bool($1) }, read: { r throws(DecodeError) in try r.bool() })
  /// A bundle identifier: a string of at most ``StoredLimits/identifier`` bytes.
  static let bundleID = RecordField<String>(
    write: { $0.string($1) }, read: { r throws(DecodeError) in try r.string(maxLength: StoredLimits.identifier) })
  /// A sync log identity (never 0).
  static let logIdentity = RecordField<UInt64>(
    write: { $0.u64($1) }, read: { r throws(DecodeError) in try r.logIdentity() })
  /// An import identity (never 0).
  static let importIdentity = RecordField<UInt64>(
    write: { $0.u64($1) }, read: { r throws(DecodeError) in try r.importIdentity() })
  /// A finite date; `what` names it in the error for a non-finite one.
  static func finiteDate(_ what: String) -> RecordField<Date> {
    RecordField(write: { $0.date($1) }, read: { r throws(DecodeError) in try r.finiteDate(what) })
  }
  /// An optional finite date; `what` as in ``finiteDate(_:)``.
  static func optionalFiniteDate(_ what: String) -> RecordField<Date?> {
    RecordField(
      write: { w, date in w.optional(date) { $0.date($1) } },
      read: { r throws(DecodeError) in try r.optional { r throws(DecodeError) in try r.finiteDate(what) } })
  }
  /// A type code known to the catalog.
  static let sampleType = RecordField<SampleType>(
    write: { $0.sampleType($1) }, read: { r throws(DecodeError) in try r.sampleType() })

  // MARK: Apps and authorization

  /// An app record (its entitlements are not part of it).
  static let app = RecordField<AppRecord>(write: { $0.app($1) }, read: { r throws(DecodeError) in try r.app() })
  /// An app's clinical-record Info.plist keys.
  static let healthRecordsInfo = RecordField<HealthRecordsInfo>(
    write: { $0.healthRecordsInfo($1) }, read: { r throws(DecodeError) in try r.healthRecordsInfo() })
  /// An app's entitlements.
  static let entitlements = RecordField<Set<Entitlement>>(
    write: { $0.entitlements($1) }, read: { r throws(DecodeError) in try r.entitlements() })
  /// `[change]`: the answers of a permission sheet.
  static let changes = RecordField<[AuthorizationChange]>(
    write: { w, changes in w.array(changes) { $0.change($1) } },
    read: { r throws(DecodeError) in try r.array(minElementSize: 4) { r throws(DecodeError) in try r.change() } })
  /// A settings change.
  static let settingsChange = RecordField<SettingsChange>(
    write: { $0.settingsChange($1) }, read: { r throws(DecodeError) in try r.settingsChange() })
  /// `[shared-decision]`: companion decisions.
  static let sharedDecisions = RecordField<[SharedDecision]>(
    write: { w, decisions in w.array(decisions) { $0.sharedDecision($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: 4) { r throws(DecodeError) in try r.sharedDecision() }
    })
  /// A background delivery change's target: an optional type and an optional frequency, which needs the type.
  static let backgroundTarget = RecordField<(type: SampleType?, frequency: UpdateFrequency?)>(
    write: { w, target in
      w.optional(target.type) { $0.sampleType($1) }
      w.optional(target.frequency) { $0.u8($1.rawValue) }
    },
    read: { r throws(DecodeError) in
      let type = try r.optional { r throws(DecodeError) in try r.sampleType() }
      let frequency = try r.optional { r throws(DecodeError) in try r.updateFrequency() }
      guard type != nil || frequency == nil else { throw r.error("a background delivery frequency needs a type") }
      return (type, frequency)
    })

  // MARK: Device, Health app and statistics settings

  /// A device policy.
  static let policy = RecordField<DevicePolicy>(
    write: { $0.policy($1) }, read: { r throws(DecodeError) in try r.policy() })
  /// A Health app value.
  static let userSetting = RecordField<UserSetting>(
    write: { $0.userSetting($1) }, read: { r throws(DecodeError) in try r.userSetting() })
  /// A data-source order.
  static let sourceOrder = RecordField<SourceOrder>(
    write: { $0.sourceOrder($1) }, read: { r throws(DecodeError) in try r.sourceOrder() })
  /// `[type | characteristic-value]`: characteristics an import sets.
  static let characteristics = RecordField<[SampleType: CharacteristicValue]>(
    write: { $0.characteristics($1) }, read: { r throws(DecodeError) in try r.characteristics() })

  // MARK: Samples, deletions, correlations, sync

  /// `[sample]`: stored samples.
  static let samples = RecordField<[Sample]>(
    write: { w, samples in w.array(samples) { $0.sample($1) } },
    read: { r throws(DecodeError) in try r.array(minElementSize: 50) { r throws(DecodeError) in try r.sample() } })
  /// Samples with their sources listed once (``BinaryWriter/importSamples(_:)``).
  static let importSamples = RecordField<[Sample]>(
    write: { $0.importSamples($1) }, read: { r throws(DecodeError) in try r.importSamples() })
  /// `[tombstone]`: deletions.
  static let tombstones = RecordField<[Tombstone]>(
    write: { w, tombstones in w.array(tombstones) { $0.tombstone($1) } },
    read: { r throws(DecodeError) in try r.array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() } })
  /// `[correlation]`.
  static let correlations = RecordField<[Correlation]>(
    write: { w, correlations in w.array(correlations) { $0.correlation($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: 47) { r throws(DecodeError) in try r.correlation() }
    })
  /// `[sync-entry]`: entries received from the peer.
  static let syncEntries = RecordField<[SyncEntry]>(
    write: { w, entries in w.array(entries) { $0.syncEntry($1) } },
    read: { r throws(DecodeError) in try r.array(minElementSize: 9) { r throws(DecodeError) in try r.syncEntry() } })
}
