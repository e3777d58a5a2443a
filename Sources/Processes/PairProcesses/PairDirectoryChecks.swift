import HealthModel
import Posix

extension PairLayout {
  /// Checks that the pair's directory is ours before anything in it is used, so that nobody — root included —
  /// adopts a directory another user made or can change: the root and each device directory that exists must be
  /// real directories (not links) of this user that nobody else may write, and the pairing key and launch options,
  /// when present, regular files of this user that nobody else may write (``Posix/ownPathRefusal(_:_:expected:)``).
  /// The root's parent may be anything, a sticky world-writable `/tmp` included.
  /// - Throws: the refusal, naming the path; `ENOENT` when the root does not exist.
  package func checkOwned() throws(SystemError) {
    try Posix.checkOwnDirectory(root)
    for device in DeviceKind.allCases where Posix.exists(directory(device)) {
      try Posix.checkOwnDirectory(directory(device))
    }
    try Posix.checkOwnPathIfPresent(pairingKey)
    try Posix.checkOwnPathIfPresent(launchOptions)
  }
}
