/// The key path of an object's identifier in a predicate format (`UUID`).
public let HKPredicateKeyPathUUID = "UUID"
/// The key path of a sample's source (`source`), compared with an `HKSource`.
public let HKPredicateKeyPathSource = "source"
/// The key path of a sample's source revision (`sourceRevision`), compared with an `HKSourceRevision`.
public let HKPredicateKeyPathSourceRevision = "sourceRevision"
/// The key path of a sample's device (`device`); `device.<property>` compares one of its properties.
public let HKPredicateKeyPathDevice = "device"
/// The key path of an object's metadata (`metadata`): `metadata.<key>` compares one value.
public let HKPredicateKeyPathMetadata = "metadata"
/// The key path of the correlation holding a sample (`correlation`); only `correlation == nil` is understood.
public let HKPredicateKeyPathCorrelation = "correlation"
/// The key path of the workout holding a sample (`workout`): `workout == %@` with an `HKWorkout` or its UUID.
public let HKPredicateKeyPathWorkout = "workout"
/// The key path of a sample's start date (`startDate`).
public let HKPredicateKeyPathStartDate = "startDate"
/// The key path of a sample's end date (`endDate`).
public let HKPredicateKeyPathEndDate = "endDate"
/// The key path of a category sample's value (`value`).
public let HKPredicateKeyPathCategoryValue = "value"
/// The key path of a quantity sample's quantity (`quantity`), compared with an `HKQuantity`.
public let HKPredicateKeyPathQuantity = "quantity"

// The quantity sample key paths (HKCumulativeQuantitySample.h, iOS 12; HKDiscreteQuantitySample.h and
// HKQuantitySample.h, iOS 13). Apple does not publish their string values; these are HealthPair's. A HealthPair
// sample holds one quantity, so `NSPredicate(format:)` reads the statistics as its quantity and the most recent
// dates as its own (docs/healthkit-api.md, "Format predicates").
/// The key path of a cumulative sample's sum (`sum`), compared with an `HKQuantity`.
public let HKPredicateKeyPathSum = "sum"
/// The key path of a discrete sample's minimum (`min`), compared with an `HKQuantity`.
public let HKPredicateKeyPathMin = "min"
/// The key path of a discrete sample's maximum (`max`), compared with an `HKQuantity`.
public let HKPredicateKeyPathMax = "max"
/// The key path of a discrete sample's average (`average`), compared with an `HKQuantity`.
public let HKPredicateKeyPathAverage = "average"
/// The key path of a discrete sample's most recent quantity (`mostRecent`), compared with an `HKQuantity`.
public let HKPredicateKeyPathMostRecent = "mostRecent"
/// The key path of the start date of a discrete sample's most recent quantity (`mostRecentStartDate`).
public let HKPredicateKeyPathMostRecentStartDate = "mostRecentStartDate"
/// The key path of the end date of a discrete sample's most recent quantity (`mostRecentEndDate`).
public let HKPredicateKeyPathMostRecentEndDate = "mostRecentEndDate"
/// The key path of a quantity sample's number of quantities (`count`), compared with a number; always 1 here.
public let HKPredicateKeyPathCount = "count"
/// The key path of the duration of a discrete sample's most recent quantity (`mostRecentDuration`); declared,
/// not read by `NSPredicate(format:)`.
public let HKPredicateKeyPathMostRecentDuration = "mostRecentDuration"
