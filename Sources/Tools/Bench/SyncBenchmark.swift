import Dispatch
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import Wire

/// Row 3: the time from the watch's first save of `samples` to all of them visible to a query on the phone.
func syncMetric(daemon: String, samples: Int) throws -> Metric {
  let pair = try preparedPair(daemon: daemon)
  defer { pair.shutdown() }
  let writer = try DirectClient(pair.layout.socket(.watch))
  let batch = 4096
  let batches = (samples + batch - 1) / batch
  let frames = (0..<batches).map { b in
    DeviceOperation.save(benchApp.bundleID, (b * batch..<min(samples, (b + 1) * batch)).map { sample($0) })
      .frame(id: UInt32(b + 100))
  }
  let gate = DispatchSemaphore(value: 0)
  let token = pair.phone.addListener { event in if case .syncApplied = event { gate.signal() } }
  defer { pair.phone.removeListener(token) }
  try pair.phone.subscribe(.sync)
  let query = SampleQuery(type: water, limit: 0)
  let t0 = now()
  var sent = 0
  var received = 0
  while received < batches {
    while sent < batches && sent - received < 4 {
      try writer.send(frames[sent])
      sent += 1
    }
    if case .response(_, let result) = try writer.receive() {
      _ = try result.get()
      received += 1
    }
  }
  // All visible to a query on the phone (counted by the daemon: the phone's raw store count, then one query).
  let deadline = DispatchTime.now() + 30
  while try pair.phone.dump().device.sampleCounts[water, default: 0] < samples {
    if gate.wait(timeout: deadline) == .timedOut { break }
  }
  let visible = try pair.phone.sampleQuery(benchApp.bundleID, query).count
  let seconds = Double(now() - t0) / 1e9
  return Metric(
    name: "3. Sync: \(samples) samples saved on the watch, all visible on the phone", baseline: "—",
    value: "\(ms(seconds * 1000)) (\(formatNumber((Double(samples) / seconds).rounded())) samples/s)", ratio: "—",
    target: "≤ 1 s", met: seconds <= 1 && visible == samples,
    numbers: [("seconds", seconds), ("samplesPerSecond", Double(samples) / seconds), ("visible", Double(visible))])
}
