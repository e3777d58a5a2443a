import Foundation

#if os(Linux)
  extension NSPredicate {
    /// A predicate from a format string, as published HealthKit code writes them —
    /// `NSPredicate(format: "metadata.%K != YES", HKMetadataKeyWasUserEntered)`. swift-corelibs-foundation has no
    /// format parser, so HealthKitSim reads the subset that describes samples (docs/healthkit-api.md, "Format
    /// predicates"): comparisons of the HealthKit key paths with `%@`, `%K`, `%d`/`%f` arguments or literals, `IN`,
    /// `BETWEEN`, `AND`/`OR`/`NOT`. A query given a format HealthKitSim cannot read fails with
    /// ``HealthKitSimError/unsupported(_:)``, saying where; `evaluate(with:)` on it is false.
    public convenience init(format predicateFormat: String, _ args: Any...) {
      self.init(format: predicateFormat, argumentArray: args)
    }

    /// A predicate from a format string and its arguments in an array (see ``init(format:_:)``).
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
      let condition = PredicateFormat.parse(predicateFormat, arguments: arguments ?? [])
      self.init(block: { object, _ in
        guard case .success(let filter) = condition else { return false }
        if let workout = (object as? HKWorkout)?.engineWorkout { return filter.matches(workout) }
        guard let sample = (object as? HKSample)?.engineSample else { return false }
        return filter.matches(sample)
      })
      FormatPredicates.shared.register(self, condition)
    }
  }
#endif

#if os(Linux)
  /// `date as CVarArg`, as published code passes a date to `NSPredicate(format:)`: on Darwin a `Date` is a `CVarArg`
  /// through `NSDate`; swift-corelibs-foundation does not make it one. `NSPredicate(format:)` reads the date itself;
  /// a C-variadic call (`String(format: "%@", date as CVarArg)`) gets a retained `NSDate`, which it never releases.
  extension Date: @retroactive CVarArg {
    /// A retained `NSDate` of the same instant, as `%@` expects an object.
    public var _cVarArgEncoding: [Int] {
      let object = NSDate(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate)
      return [Int(bitPattern: Unmanaged.passRetained(object).toOpaque())]
    }
  }

  /// `uuid as CVarArg`, as for ``Foundation/Date``: a retained `NSUUID` for a C-variadic call.
  extension UUID: @retroactive CVarArg {
    /// A retained `NSUUID` of the same identifier.
    public var _cVarArgEncoding: [Int] {
      let object = NSUUID(uuidString: uuidString)!
      return [Int(bitPattern: Unmanaged.passRetained(object).toOpaque())]
    }
  }
#endif
