import HealthModel
import Posix

/// The CPU time one request costs, in microseconds per call: the daemon's (its process CPU clock, every thread) and
/// the client's (the calling thread's: sending, waiting, reading and decoding the reply). Nanosecond clocks, unlike
/// `/proc/<pid>/stat`'s 10 ms ticks, so each call is measured on its own and the medians taken.
struct QueryCPU {
  /// The daemon's CPU per call, microseconds.
  var daemon: [Double] = []
  /// The client thread's CPU per call, microseconds.
  var client: [Double] = []
}

/// Clock readings taken just before a call; ``record(into:)`` after it adds the call's cost.
struct QueryCost {
  let pid: Int32
  let daemon0: UInt64
  let client0: UInt64

  /// Reads both clocks now.
  init(daemon pid: Int32) {
    self.pid = pid
    daemon0 = Posix.cpuNanoseconds(ofProcess: pid) ?? 0
    client0 = Posix.threadCPUNanoseconds()
  }

  /// Adds the CPU used since ``init(daemon:)`` to `cpu`.
  func record(into cpu: inout QueryCPU) {
    let client1 = Posix.threadCPUNanoseconds()
    let daemon1 = Posix.cpuNanoseconds(ofProcess: pid) ?? daemon0
    cpu.daemon.append(Double(daemon1 &- daemon0) / 1000)
    cpu.client.append(Double(client1 &- client0) / 1000)
  }
}

/// CPU time spent over a series of calls (warm-up calls included, a tenth more than timed): the calling process's
/// (every thread: the caller, the connection's reader thread, Dispatch) and each daemon's, nanoseconds.
struct CallCPU {
  var calls = 0
  var caller: UInt64 = 0
  var phone: UInt64 = 0
  var watch: UInt64 = 0

  mutating func add(calls n: Int, caller c: UInt64, phone p: UInt64, watch w: UInt64) {
    calls += n + max(1, n / 10)
    caller += c
    phone += p
    watch += w
  }

  /// Microseconds per call.
  func perCall(_ nanoseconds: UInt64) -> Double { calls > 0 ? Double(nanoseconds) / Double(calls) / 1000 : 0 }
}
