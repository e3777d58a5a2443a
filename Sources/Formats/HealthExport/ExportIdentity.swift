import FoundationEssentials
import HealthModel

/// How an imported object's identifier derives from its content (docs/behavior.md I5): the reader derives it from
/// what a record says, and the writer asks whether a stored object's identifier is the one its written record would
/// derive — if not (an app saved it, or it came from a HealthPair export that carried it), the record carries it as
/// `_HealthPair.uuid`, so every import of every export keeps it (I10).
package enum ExportIdentity {
  /// The hash of a source as an export names it: name, version and the hardware fields, not the bundle identifier
  /// a mapping gives it.
  package static func sourceHash(name: String, version: String?, hardware: HardwareDetails?) -> UInt64 {
    var hash = Hash128()
    hash.add(name)
    hash.add(version ?? "")
    for field in hardware?.fields ?? [] {
      hash.add(field.key)
      hash.add(field.value)
    }
    return withUnsafeBytes(of: hash.uuid.uuid) { $0.loadUnaligned(as: UInt64.self) }
  }

  /// A sample's identifier from its type, value, dates (seconds since the reference date), source hash and
  /// metadata.
  package static func sample(
    type: SampleType, value: SampleValue, start: Double, end: Double, source: UInt64, metadata: Metadata
  ) -> UUID {
    var hash = Hash128()
    hash.add(UInt64(type.code))
    switch value {
    case .quantity(let v): hash.add(v.bitPattern)
    case .category(let c): hash.add(UInt64(bitPattern: Int64(c)) ^ 0x8000_0000_0000_0000)
    }
    hash.add(start.bitPattern)
    hash.add(end.bitPattern)
    hash.add(source)
    if !metadata.isEmpty { hashMetadata(metadata, into: &hash) }
    return hash.uuid
  }

  /// A correlation's identifier from its type, dates, source hash, metadata and its members' identifiers.
  package static func correlation(
    type: SampleType, start: Double, end: Double, source: UInt64, metadata: Metadata, members: [UUID]
  ) -> UUID {
    var hash = Hash128()
    hash.add(UInt64(type.code) | 0x1_0000)
    hash.add(start.bitPattern)
    hash.add(end.bitPattern)
    hash.add(source)
    if !metadata.isEmpty { hashMetadata(metadata, into: &hash) }
    for uuid in members.map(\.uuidString).sorted() { hash.add(uuid) }
    return hash.uuid
  }

  /// Metadata in a fixed order (sorted keys) and with typed values, so the hash does not depend on the order of
  /// `MetadataEntry` elements.
  static func hashMetadata(_ metadata: Metadata, into hash: inout Hash128) {
    func add(_ key: String, _ value: MetadataValue) {
      hash.add(key)
      switch value {
      case .string(let s):
        hash.add(1)
        hash.add(s)
      case .bool(let b): hash.add(b ? 2 : 3)
      case .int(let i):
        hash.add(4)
        hash.add(UInt64(bitPattern: i))
      case .double(let d):
        hash.add(5)
        hash.add(d.bitPattern)
      case .date(let d):
        hash.add(6)
        hash.add(d.timeIntervalSinceReferenceDate.bitPattern)
      case .quantity(let v, let unit):
        hash.add(7)
        hash.add(v.bitPattern)
        hash.add(unit)
      }
    }
    if metadata.count == 1, let (key, value) = metadata.first {
      add(key, value)
      return
    }
    for key in metadata.keys.sorted() { add(key, metadata[key]!) }
  }
}

extension ExportIdentity {
  /// The hardware a record's `device` attribute reads as: the description's fields, or, for a description that has
  /// none, the whole text as one `description` field; nil for no attribute or an empty one.
  package static func hardware(readFrom description: String?) -> HardwareDetails? {
    guard let description else { return nil }
    if let hardware = HardwareDetails(exportDescription: description) { return hardware }
    return description.isEmpty ? nil : HardwareDetails(fields: [HardwareDetails.Field("description", description)])
  }

  /// The source hash the record ``ExportWriter`` writes for an object of `source` reads back with (the name, the
  /// version and the device it writes, as the reader parses them).
  static func writtenSourceHash(_ source: SampleSource, device: HardwareDetails?) -> UInt64 {
    let details = source.details
    return sourceHash(
      name: details?.name ?? source.bundleID, version: details?.version,
      hardware: hardware(readFrom: device?.exportDescription))
  }

  /// The metadata a written record reads back as: the keys ``ExportWriter`` writes, their values typed again from
  /// the text it writes.
  static func writtenMetadata(_ metadata: Metadata) -> Metadata {
    var read: Metadata = [:]
    for (key, value) in metadata where !key.hasPrefix(ExportWriter.devicePrefix) {
      read[key] = MetadataText.value(key: key, text: MetadataText.text(value))
    }
    return read
  }

  /// Whether the record written for `sample` derives its identifier on import (so it need not carry it);
  /// `sourceHash` is ``writtenSourceHash(_:device:)`` of its source and device.
  static func derivesIdentifier(of sample: Sample, sourceHash: UInt64) -> Bool {
    let derived = Self.sample(
      type: sample.type, value: sample.value, start: sample.start.timeIntervalSinceReferenceDate,
      end: sample.end.timeIntervalSinceReferenceDate, source: sourceHash, metadata: writtenMetadata(sample.metadata))
    return derived == sample.uuid
  }

  /// Whether the `Correlation` written for `correlation` derives its identifier on import.
  static func derivesIdentifier(of correlation: Correlation) -> Bool {
    let derived = Self.correlation(
      type: correlation.type, start: correlation.start.timeIntervalSinceReferenceDate,
      end: correlation.end.timeIntervalSinceReferenceDate,
      source: writtenSourceHash(correlation.source, device: correlation.source.details?.hardware),
      metadata: writtenMetadata(correlation.metadata), members: correlation.members)
    return derived == correlation.uuid
  }
}

/// Workouts, their activities and routes (docs/behavior.md I5 and I10 applied to workouts; HealthPair model: Apple's
/// exports carry no identifier for a workout or a route, only for an activity).
extension ExportIdentity {
  /// A workout's identifier from its activity type, dates, duration (seconds), source hash and metadata (the
  /// fields of the `Workout` element itself, so it does not depend on the order or the reading of its children).
  package static func workout(
    activityType: WorkoutActivityType, start: Double, end: Double, duration: Double, source: UInt64,
    metadata: Metadata
  ) -> UUID {
    var hash = Hash128()
    hash.add(0x2_0000 | UInt64(activityType.rawValue & 0xFFFF))
    hash.add(UInt64(activityType.rawValue))
    hash.add(start.bitPattern)
    hash.add(end.bitPattern)
    hash.add(duration.bitPattern)
    hash.add(source)
    if !metadata.isEmpty { hashMetadata(metadata, into: &hash) }
    return hash.uuid
  }

  /// The identifier of the `index`th route (from 0) of the workout `workout`.
  package static func route(workout: UUID, index: Int) -> UUID {
    var hash = Hash128()
    hash.add(0x3_0000)
    hash.add(workout.uuidString)
    hash.add(UInt64(index))
    return hash.uuid
  }

  /// Whether the `Workout` written for `workout` derives its identifier on import.
  static func derivesIdentifier(of workout: Workout) -> Bool {
    let derived = Self.workout(
      activityType: workout.activityType, start: workout.start.timeIntervalSinceReferenceDate,
      end: workout.end.timeIntervalSinceReferenceDate, duration: workout.duration,
      source: writtenSourceHash(workout.source, device: workout.source.details?.hardware),
      metadata: writtenMetadata(workout.metadata))
    return derived == workout.uuid
  }
}

/// Electrocardiograms (HealthPair model: Apple's ECG CSV files carry no identifier).
extension ExportIdentity {
  /// A recording's identifier from what its CSV file says: its start (seconds since the reference date), its
  /// sampling frequency (hertz) and its voltages to 1/1000 µV (``Electrocardiogram/thousandths(_:)``, the file's
  /// three decimals), so a file read twice, or written and read again, gives the same identifier.
  package static func electrocardiogram(start: Double, samplingFrequency: Double, voltages: [Float]) -> UUID {
    var hash = Hash128()
    hash.add(0x4_0000)
    hash.add(start.bitPattern)
    hash.add(samplingFrequency.bitPattern)
    hash.add(UInt64(voltages.count))
    for voltage in voltages { hash.add(UInt64(bitPattern: Electrocardiogram.thousandths(voltage))) }
    return hash.uuid
  }
}

/// Audiograms (HealthPair model: Apple's exports carry no identifier for an audiogram).
extension ExportIdentity {
  /// An audiogram's identifier from its dates (seconds since the reference date), source hash, metadata and points:
  /// each point's frequency and its tests (ear, hearing level, masked, clamping bounds), in ear order, so it does not
  /// depend on the order the tests were given in.
  package static func audiogram(
    start: Double, end: Double, source: UInt64, metadata: Metadata, points: [AudiogramPoint]
  ) -> UUID {
    var hash = Hash128()
    hash.add(0x5_0000)
    hash.add(start.bitPattern)
    hash.add(end.bitPattern)
    hash.add(source)
    if !metadata.isEmpty { hashMetadata(metadata, into: &hash) }
    hash.add(UInt64(points.count))
    for point in points {
      hash.add(point.frequency.bitPattern)
      let tests = point.tests.sorted { $0.side.rawValue < $1.side.rawValue }
      hash.add(UInt64(tests.count))
      for test in tests {
        hash.add(UInt64(test.side.rawValue) | (test.masked ? 0x10 : 0))
        hash.add(test.sensitivity.bitPattern)
        // A bound that is absent hashes apart from every value a bound can have (NaN's bits are never written).
        hash.add(test.clampLower?.bitPattern ?? Double.nan.bitPattern)
        hash.add(test.clampUpper?.bitPattern ?? Double.nan.bitPattern)
      }
    }
    return hash.uuid
  }

  /// Whether the `Audiogram` written for `audiogram` derives its identifier on import; `device` is the one it is
  /// written with.
  static func derivesIdentifier(of audiogram: Audiogram, device: HardwareDetails?) -> Bool {
    let derived = Self.audiogram(
      start: audiogram.start.timeIntervalSinceReferenceDate, end: audiogram.end.timeIntervalSinceReferenceDate,
      source: writtenSourceHash(audiogram.source, device: device), metadata: writtenMetadata(audiogram.metadata),
      points: audiogram.points)
    return derived == audiogram.uuid
  }
}

/// Vision prescriptions (HealthPair model: Apple's exports carry no identifier and no source for a prescription).
extension ExportIdentity {
  /// A prescription's identifier from what its element says: kind, dates (seconds since the reference date), brand,
  /// metadata and each eye's lens values (a prism by its polar amount and angle).
  package static func prescription(_ p: VisionPrescription) -> UUID {
    var hash = Hash128()
    hash.add(0x6_0000 | UInt64(p.kind.rawValue))
    hash.add(p.dateIssued.timeIntervalSinceReferenceDate.bitPattern)
    // An absent value hashes apart from every value it can have (NaN's bits are never written).
    hash.add(p.expirationDate?.timeIntervalSinceReferenceDate.bitPattern ?? Double.nan.bitPattern)
    hash.add(p.brand ?? "")
    if !p.metadata.isEmpty { hashMetadata(p.metadata, into: &hash) }
    for lens in [p.rightEye, p.leftEye] {
      guard let lens else {
        hash.add(0)
        continue
      }
      hash.add(1)
      hash.add(lens.sphere.bitPattern)
      for value in lens.optionals { hash.add(value?.bitPattern ?? Double.nan.bitPattern) }
      hash.add(lens.prism?.amount.bitPattern ?? Double.nan.bitPattern)
      hash.add(lens.prism?.angle.bitPattern ?? Double.nan.bitPattern)
    }
    return hash.uuid
  }
}

/// Clinical records (HealthPair model: the element carries no identifier; a file named for a UUID gives it).
extension ExportIdentity {
  /// A record's identifier from its type, provider, identifier, version, date and resource bytes.
  package static func clinicalRecord(_ r: ClinicalRecord) -> UUID {
    var hash = Hash128()
    hash.add(0x7_0000 | UInt64(r.type.code))
    hash.add(r.source.details?.name ?? r.source.bundleID)
    hash.add(r.identifier)
    hash.add(r.fhirVersion)
    hash.add(r.date.timeIntervalSinceReferenceDate.bitPattern)
    r.data.withUnsafeBufferPointer { hash.add($0) }
    return hash.uuid
  }
}
