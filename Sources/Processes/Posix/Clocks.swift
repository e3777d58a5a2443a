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

  /// Fills `buffer` with random bytes (at most 4,096) from a per-process pool the kernel refills, so that making many
  /// identifiers costs one system call per 256 of them; the pool's bytes are handed out once, and a forked child
  /// starts a pool of its own. Falls back to ``randomBytes(_:)`` should the pool fail.
  /// C: `getrandom`, `pthread_atfork`.
  package static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    if buffer.count <= 4096, cposix_random_pooled(base, buffer.count) == 0 { return }
    let bytes = randomBytes(buffer.count)
    buffer.copyBytes(from: bytes)
  }

  /// For tests of ``fillRandom(_:)``'s pool, run in a forked single-threaded process (no other thread draws
  /// meanwhile): with a fresh pool, what that process draws next and what a child it forked just before draws first
  /// (`count` bytes each, at most 256); nil when forking or drawing failed. C: `fork`, `pipe2`, `waitpid`.
  package static func randomDrawsAcrossFork(_ count: Int) -> (parent: [UInt8], child: [UInt8])? {
    var parent = [UInt8](repeating: 0, count: count)
    var child = [UInt8](repeating: 0, count: count)
    let status = parent.withUnsafeMutableBytes { p in
      child.withUnsafeMutableBytes { c in cposix_random_pool_across_fork(p.baseAddress!, c.baseAddress!, count) }
    }
    return status == 0 ? (parent, child) : nil
  }
}

extension Posix {
  /// CPU time (user + system, every thread) a process has used so far, in nanoseconds; nil when the process is gone
  /// or its clock cannot be read. C: `clock_getcpuclockid`, `clock_gettime`. Finer than `/proc/<pid>/stat`'s clock
  /// ticks (10 ms), so a short operation's cost can be read from the difference of two calls.
  package static func cpuNanoseconds(ofProcess pid: Int32) -> UInt64? {
    var clock = clockid_t()
    guard clock_getcpuclockid(pid, &clock) == 0 else { return nil }
    var ts = timespec()
    guard clock_gettime(clock, &ts) == 0 else { return nil }
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  /// CPU time a process and the children it has reaped have used, in nanoseconds (`utime`, `stime`, `cutime` and
  /// `cstime` in `/proc/<pid>/stat`, clock ticks). For a zygote, this counts the daemons it forked once they ended.
  package static func cpuNanosecondsWithReapedChildren(ofProcess pid: Int32) -> UInt64? {
    guard let bytes = try? readFile("/proc/\(pid)/stat"), let close = bytes.lastIndex(of: UInt8(ascii: ")")) else {
      return nil
    }
    // After the command's closing parenthesis: state (index 0) ... utime is field 14 of the line, index 11 here.
    let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
    guard fields.count > 14 else { return nil }
    var ticks: UInt64 = 0
    for index in 11...14 {
      guard let value = UInt64(String(decoding: fields[index], as: UTF8.self)) else { return nil }
      ticks += value
    }
    let perSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    return ticks * (1_000_000_000 / perSecond)
  }

  /// CPU time the calling thread has used so far, in nanoseconds. C: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`.
  package static func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
