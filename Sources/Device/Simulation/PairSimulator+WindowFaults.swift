import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// The watch's retention window and clock as faults: the window narrowed (6 h) and widened back (7 days), the clock
/// moved forward (6½ days: all but the last half day falls out) and back to the real time. Samples that fall out are
/// pruned; when they fall back inside, the store check finds them missing and the re-sent store brings them back
/// (behavior.md W9), so the pair converges and the final check compares the watch with the phone's samples inside
/// the watch's window.
extension PairSimulator {
  /// One window fault, on 8 steps in 100 of the fault stream's choosing.
  mutating func windowFault() {
    guard windowFaults.next() % 100 < 8 else { return }
    let policy = watch.state.policy
    let change = windowFaults.next() % 4
    // What prunes waits for a synced pair: a sample the watch saved and pruned before the phone had it would be
    // gone from both (the watch re-sends only what it holds).
    if change == 0 || change == 2, !isSynced { return }
    switch change {
    case 0, 1:
      var narrowed = policy
      narrowed.retention = change == 0 ? 6 * 3_600 : 7 * 86_400
      guard narrowed != policy else { return }
      _ = request(watch, .setPolicy(narrowed))
    case 2: _ = request(watch, .setClock(wall.addingTimeInterval(6.5 * 86_400)))
    default:
      guard watch.state.virtualNow != nil else { return }
      _ = request(watch, .setClock(nil))
    }
    report.windowChanges += 1
  }
}
