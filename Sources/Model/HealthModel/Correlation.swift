import FoundationEssentials

/// A stored correlation (HealthKit's `HKCorrelation`): one blood-pressure reading or one food entry, grouping
/// member samples that are stored as samples of their own (docs/behavior.md T8–T13).
///
/// The correlation holds its members by identifier: the members are ordinary samples in the store (sample queries of
/// their types return them), and a member deleted on its own simply drops out of the correlation's objects.
package struct Correlation: Hashable, Sendable {
  /// The correlation's identifier.
  package var uuid: UUID
  /// The correlation type (`bloodPressure` or `food`).
  package var type: SampleType
  /// Start of the interval.
  package var start: Date
  /// End of the interval.
  package var end: Date
  /// Metadata of the correlation itself (the members keep theirs).
  package var metadata: Metadata
  /// The app and device that saved it (its members have the same source).
  package var source: SampleSource
  /// The members' identifiers, in the order they were saved.
  package var members: [UUID]

  /// Creates a correlation.
  package init(
    uuid: UUID, type: SampleType, start: Date, end: Date, metadata: Metadata = [:], source: SampleSource,
    members: [UUID]
  ) {
    self.uuid = uuid
    self.type = type
    self.start = start
    self.end = end
    self.metadata = metadata
    self.source = source
    self.members = members
  }
}

/// A correlation as an app hands it to `save`: its members still in the units the app chose.
package struct CorrelationInput: Hashable, Sendable {
  /// The identifier the app's object carries.
  package var uuid: UUID
  /// The correlation type.
  package var type: SampleType
  /// Start of the interval.
  package var start: Date
  /// End of the interval.
  package var end: Date
  /// Metadata of the correlation.
  package var metadata: Metadata
  /// The member samples (`objects`).
  package var members: [SampleInput]

  /// Creates an input correlation.
  package init(
    uuid: UUID, type: SampleType, start: Date, end: Date, metadata: Metadata = [:], members: [SampleInput]
  ) {
    self.uuid = uuid
    self.type = type
    self.start = start
    self.end = end
    self.metadata = metadata
    self.members = members
  }

  /// Checks the correlation as `HKCorrelation`'s initializer and `save` do and converts it and its members.
  ///
  /// Dates out of order raise an exception on a device (`wouldTerminate`, as for samples, D4); each member is
  /// checked as ``SampleInput/validated(source:)`` checks a sample. What a correlation may contain is
  /// ``checkMembers(of:_:)``'s rule (T9).
  /// - Throws: ``HealthError`` describing the first violation.
  package func validated(source: SampleSource) throws(HealthError) -> (correlation: Correlation, members: [Sample]) {
    guard type.descriptor.isCorrelation else {
      throw .invalidArgumentException("\(type.identifier) is not a correlation type")
    }
    guard start.timeIntervalSinceReferenceDate.isFinite, end.timeIntervalSinceReferenceDate.isFinite else {
      throw .invalidArgumentException("correlation dates must be finite")
    }
    guard start <= end else {
      throw .invalidArgumentException(
        "startDate (\(formatDate(start))) must be equal to or earlier than endDate (\(formatDate(end)))")
    }
    guard end < latestSampleDate, start >= earliestSampleDate else {
      throw .validationException("Type HKSample can not have endDate of NSDate.distantFuture")
    }
    var samples: [Sample] = []
    samples.reserveCapacity(members.count)
    for member in members { samples.append(try member.validated(source: source)) }
    try Self.checkMembers(of: type, samples.map(\.type))
    try metadata.checkValues()
    let correlation = Correlation(
      uuid: uuid, type: type, start: start, end: end, metadata: metadata, source: source,
      members: samples.map(\.uuid))
    return (correlation, samples)
  }

  /// What a correlation of `type` may contain (docs/behavior.md T9): at least one object, each of one of the type's
  /// component types (`bloodPressure`: `bloodPressureSystolic` and `bloodPressureDiastolic`; `food`: the dietary
  /// quantity types), and a blood pressure exactly one systolic and one diastolic sample.
  /// - Throws: `errorInvalidArgument` (3) naming the first object that does not fit.
  package static func checkMembers(of type: SampleType, _ memberTypes: [SampleType]) throws(HealthError) {
    guard !memberTypes.isEmpty else {
      throw .healthKit(.errorInvalidArgument, "A correlation of type \(type.identifier) must contain objects")
    }
    let allowed = Set(type.descriptor.correlationComponents)
    for member in memberTypes where !allowed.contains(member.name) {
      throw .healthKit(
        .errorInvalidArgument,
        "A correlation of type \(type.identifier) cannot contain an object of type \(member.identifier)")
    }
    if type.descriptor.correlationComponents.count == 2 {
      for name in type.descriptor.correlationComponents where memberTypes.filter({ $0.name == name }).count != 1 {
        throw .healthKit(
          .errorInvalidArgument,
          "A correlation of type \(type.identifier) must contain exactly one \(name) sample "
            + "(it contains \(memberTypes.filter { $0.name == name }.count))")
      }
    }
  }
}
