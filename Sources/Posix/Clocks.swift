// Time and randomness: the monotonic and wall clocks, the kernel's random bytes.
import CPosix

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// Monotonic nanoseconds. C: `clock_gettime(CLOCK_MONOTONIC)`.
  package static func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  /// Wall-clock seconds since 1970. C: `clock_gettime(CLOCK_REALTIME)`.
  package static func wallClockSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  /// Fills a buffer with random bytes from the kernel. C: `getrandom`.
  package static func randomBytes(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let n = bytes.withUnsafeMutableBytes { cposix_getrandom($0.baseAddress! + filled, count - filled) }
      if n > 0 { filled += n }
    }
    return bytes
  }
}
