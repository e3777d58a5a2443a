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
/// The key path of the workout holding a sample (`workout`); HealthPair stores no workouts.
public let HKPredicateKeyPathWorkout = "workout"
/// The key path of a sample's start date (`startDate`).
public let HKPredicateKeyPathStartDate = "startDate"
/// The key path of a sample's end date (`endDate`).
public let HKPredicateKeyPathEndDate = "endDate"
/// The key path of a category sample's value (`value`).
public let HKPredicateKeyPathCategoryValue = "value"
/// The key path of a quantity sample's quantity (`quantity`), compared with an `HKQuantity`.
public let HKPredicateKeyPathQuantity = "quantity"
