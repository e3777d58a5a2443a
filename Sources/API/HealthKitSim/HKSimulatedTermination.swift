import Foundation

/// A condition under which HealthKit on a device would raise an uncatchable Objective-C exception and terminate the
/// app, reported instead as a catchable error so a test can fail clearly.
///
/// Throwing, async and completion-handler APIs fail with this error: both authorization sets empty, a missing
/// usage description, sharing a read-only type, saving an invalid object. Object construction cannot throw in
/// HealthKit's signatures, so an invalid object (an incompatible unit, a category value out of range, an end before
/// the start) surfaces here from the `save` that uses it. Non-throwing APIs (`HKUnit(from:)`, executing a query
/// twice) hand the same value to ``HealthKitSim/terminationHandler`` instead.
public struct HKSimulatedTermination: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
  /// The exception a device would raise (`NSInvalidArgumentException`, `_HKObjectValidationFailureException`).
  public let exceptionName: String
  /// Apple's reason text, with the types or values involved.
  public let reason: String
  /// The API that would have raised it (`HKHealthStore.save(_:)`).
  public let api: String
  /// Where the app called that API, when the API records it (`HKUnit(from:)`): a harness reports the failure there.
  public var callSite: HKCallSite?

  /// Creates a termination report.
  public init(exceptionName: String, reason: String, api: String) {
    self.exceptionName = exceptionName
    self.reason = reason
    self.api = api
  }

  /// `this would terminate the app on a device: *** Terminating app due to uncaught exception '…', reason: '…'`,
  /// followed by the API.
  public var description: String {
    "this would terminate the app on a device: *** Terminating app due to uncaught exception '\(exceptionName)', "
      + "reason: '\(reason)' (in \(api))"
  }

  /// The description, for `localizedDescription`.
  public var errorDescription: String? { description }

  /// An `NSInvalidArgumentException` raised by `api`.
  package static func invalidArgument(_ reason: String, api: String) -> HKSimulatedTermination {
    HKSimulatedTermination(exceptionName: "NSInvalidArgumentException", reason: reason, api: api)
  }
}

/// A place in the caller's source (`#fileID`, `#filePath`, `#line`, `#column` of a call).
public struct HKCallSite: Hashable, Sendable, CustomStringConvertible {
  /// `Module/File.swift`.
  public var fileID: String
  /// The file's full path.
  public var filePath: String
  /// 1-based line.
  public var line: Int
  /// 1-based column.
  public var column: Int

  /// Creates a call site.
  public init(fileID: String, filePath: String, line: Int, column: Int) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// `fileID:line:column`.
  public var description: String { "\(fileID):\(line):\(column)" }
}
