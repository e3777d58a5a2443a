import Foundation
import HealthEngine
import HealthModel

/// Fetches the correlations of one type (blood pressure, food) that match a predicate and, per member type, a
/// sample predicate (`samplePredicates`: a correlation matches when it holds a member of that type matching it);
/// the completion is called once (docs/behavior.md T11).
///
/// Read privacy is the member types': a correlation is returned when the app may read one of its members, with
/// those members as its ``HKCorrelation/objects``.
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives.
public final class HKCorrelationQuery: HKQuery, @unchecked Sendable {
  /// The type of correlation searched for.
  public let correlationType: HKCorrelationType
  /// The predicate per member type, as given.
  public let samplePredicates: [HKSampleType: NSPredicate]?
  private let completion: @Sendable (HKCorrelationQuery, [HKCorrelation]?, (any Error)?) -> Void

  /// Creates a query; `completion` receives the correlations, or nil and an error.
  public init(
    type correlationType: HKCorrelationType, predicate: NSPredicate?, samplePredicates: [HKSampleType: NSPredicate]?,
    completion: @escaping @Sendable (HKCorrelationQuery, [HKCorrelation]?, (any Error)?) -> Void
  ) {
    self.correlationType = correlationType
    self.samplePredicates = samplePredicates
    self.completion = completion
    super.init(objectType: correlationType, predicate: predicate)
  }

  /// Fetches the correlations on the calling thread (one round trip).
  /// - Throws: what the completion would receive.
  func fetch(_ session: Session) throws -> [HKCorrelation] {
    var members: [CorrelationQuery.MemberCondition] = []
    for (type, predicate) in (samplePredicates ?? [:]).sorted(by: { $0.key.identifier < $1.key.identifier }) {
      let filter = try QueryFilter.decompose(predicate).get()
      var extra = filter.extra
      if let sources = filter.sources {
        extra = extra.map { .and([$0, .sources(sources)]) } ?? .sources(sources)
      }
      members.append(
        CorrelationQuery.MemberCondition(type: try type.simulatedType(), range: filter.range, filter: extra))
    }
    return try HKCorrelation.fetch(
      session, type: correlationType, filter: try filter.get(), members: members, limit: 0, sort: [],
      api: "HKCorrelationQuery")
  }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      let result = Result { () throws -> [HKCorrelation] in try fetch(session) }
      run.deliver {
        switch result {
        case .success(let correlations): completion(self, correlations, nil)
        case .failure(let error): completion(self, nil, error)
        }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { completion(self, nil, error) }
  }
}

extension HKCorrelation {
  /// Runs a correlation query: one round trip to the daemon.
  static func fetch(
    _ session: Session, type: HKObjectType, filter: QueryFilter, members: [CorrelationQuery.MemberCondition],
    limit: Int, sort: [SampleSort], api: String
  ) throws -> [HKCorrelation] {
    let base = SampleQuery(
      type: try type.simulatedType(), range: filter.range, sources: filter.sources, limit: limit, sort: sort,
      filter: filter.extra)
    let query = CorrelationQuery(base: base, members: members)
    return try session.perform(.correlationQuery(session.bundleID, query), api: api).map(HKCorrelation.make)
  }
}
