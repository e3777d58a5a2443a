import Posix
import Synchronization

/// The pipe that tells this process's daemons it has exited: this process holds both ends for its whole life
/// (close-on-exec, so no other child inherits the write end); each daemon gets the read end as descriptor 3 and
/// `--lifeline 3`. When the process exits — returning, crashing or killed with SIGKILL — the kernel closes the
/// write end and every daemon reads end of file, stops, and (`--remove-when-orphaned`) removes the pair's
/// directory.
///
/// Unlike `--exit-with-parent` (`PR_SET_PDEATHSIG`), which fires when the spawning *thread* exits, this fires only
/// once the whole process is gone: with SIGKILL the threads die in any order, so a parent-death signal can come
/// while the launcher is still half alive, and the daemon could not tell it from the harness's own SIGTERM.
package enum Lifeline {
  /// The descriptor number the read end has in each daemon.
  package static let childDescriptor: Int32 = 3

  private static let pipe = Mutex<(read: Int32, write: Int32)?>(nil)

  /// The read end, creating the pipe on first use.
  /// - Throws: `SystemError` from `pipe2`.
  package static func readEnd() throws(SystemError) -> Int32 {
    try pipe.withLock { ends throws(SystemError) -> Int32 in
      if let ends { return ends.read }
      let created = try Posix.pipe()
      ends = created
      return created.read
    }
  }
}
