import Foundation

/// One line of Water's "today" history.
struct WaterEntry: Equatable, Sendable {
  /// The sample's UUID.
  var id: UUID
  /// The amount.
  var milliliters: Double
  /// When it was drunk.
  var date: Date
  /// The bundle identifier of the app that saved it.
  var source: String

  /// The calendar Water's days follow: UTC, the simulator's calendar.
  static let calendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()
}
