/// `DeviceState`: change numbers that survive a lost journal tail.
///
/// Every insert and deletion gets the next change number, and anchored queries hand those numbers to apps as
/// anchors. Replay rebuilds the counter from the journal, so a journal that lost its last records (a cut, a torn tail,
/// `--repair`, a restored older copy) would number the next change with a number an app's anchor already covers, and
/// the app's next anchored query would never return it. The journal's shell keeps the highest number ever handed out
/// outside the journal (docs/journal.md, "Change numbers") and, at open, moves the counter past it durably.
extension DeviceState {
  /// The highest change number handed out so far (what a fresh anchored query's anchor covers).
  package var lastChangeNumber: UInt64 { store.changeCounter }

  /// Moves the change counter up to `mark` when it is behind it (numbers up to `mark` were handed out by records the
  /// journal no longer holds), as one event to journal; nothing when it is not behind.
  package mutating func keepChangeNumbers(above mark: UInt64) -> [DeviceEvent] {
    guard mark > store.changeCounter else { return [] }
    return commit([.changeNumbersAdvanced(to: mark)])
  }
}
