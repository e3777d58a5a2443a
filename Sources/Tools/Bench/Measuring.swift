// Timing, statistics and the table's number formats, shared by every benchmark family.
import Dispatch
import HealthModel
import Posix
import Render
import Synchronization

/// The median of `values` (the mean of the middle two for an even count); 0 when empty.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The `p` quantile of `values` (0…1, nearest rank below); 0 when empty.
func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// The monotonic clock, nanoseconds.
func now() -> UInt64 { Posix.monotonicNanoseconds() }

/// Nanoseconds as microseconds.
func micros(_ ns: UInt64) -> Double { Double(ns) / 1000 }
/// Microseconds as the table shows them (one decimal, `µs`).
func us(_ v: Double) -> String { "\(formatNumber((v * 10).rounded() / 10)) µs" }
/// Milliseconds as the table shows them (two decimals, `ms`).
func ms(_ v: Double) -> String { "\(formatNumber((v * 100).rounded() / 100)) ms" }

/// `v / base` as the table's ratio column shows it (two decimals, `×`); `—` when `base` is 0.
func ratioText(_ v: Double, _ base: Double) -> String {
  base > 0 ? formatNumber((v / base * 100).rounded() / 100) + "×" : "—"
}

/// Times `count` calls of `body` after a tenth as many warm-up calls; each call gets a fresh index from
/// `counter`. Returns microseconds per call.
func timed(_ count: Int, _ counter: inout Int, _ body: (Int) throws -> Void) rethrows -> [Double] {
  for _ in 0..<max(1, count / 10) {
    counter += 1
    try body(counter)
  }
  var times: [Double] = []
  times.reserveCapacity(count)
  for _ in 0..<count {
    counter += 1
    let index = counter
    let t0 = now()
    try body(index)
    times.append(micros(now() - t0))
  }
  return times
}

/// Times `count` calls of `body` (after a tenth as many warm-up calls) inside one task; microseconds per call.
func timedAsync(_ count: Int, _ body: @Sendable (Int) async throws -> Void) async rethrows -> [Double] {
  for i in 0..<max(1, count / 10) { try await body(-1 - i) }
  var times: [Double] = []
  times.reserveCapacity(count)
  for i in 0..<count {
    let t0 = now()
    try await body(i)
    times.append(micros(now() - t0))
  }
  return times
}

/// Runs `body` on Swift's cooperative pool (where a Swift Testing test body runs) and blocks until it finishes.
func onPool<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let done = DispatchSemaphore(value: 0)
  let result = Mutex<Result<T, any Error>?>(nil)
  Task.detached {
    let outcome: Result<T, any Error>
    do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
    result.withLock { $0 = outcome }
    done.signal()
  }
  done.wait()
  return try result.withLock { $0! }.get()
}

/// Times `client` and `sim` one right after the other, `client` first when `clientFirst`; microseconds each.
func inTurn(
  clientFirst: Bool, _ client: () throws -> Void, _ sim: () async throws -> Void
) async throws -> (client: Double, sim: Double) {
  let t0 = now()
  if clientFirst { try client() } else { try await sim() }
  let t1 = now()
  if clientFirst { try await sim() } else { try client() }
  let t2 = now()
  return clientFirst ? (micros(t1 - t0), micros(t2 - t1)) : (micros(t2 - t1), micros(t1 - t0))
}
