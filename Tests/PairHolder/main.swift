// healthpair-pair-holder: a test helper. Launches a pair with HealthPairTesting's withHealthPair, prints the
// pair's directory on standard output, then holds the pair until its standard input closes (at most 60 s) — so a
// test can kill it (SIGKILL) or interrupt it (SIGINT, SIGTERM) in the middle of a "test" and check what is left
// behind (CleanupTests).
import HealthPairTesting
import Posix

do {
  try withHealthPair { pair in
    Posix.writeStandardOutput(pair.directory + "\n")
    _ = Posix.waitReadable(0, timeoutMilliseconds: 60_000)
  }
} catch {
  Posix.writeStandardError("healthpair-pair-holder: \(error)\n")
  Posix.exitImmediately(1)
}
