import HealthModel
import HealthPairClient
import PairProcesses
import Render
import Wire

/// Row 2: samples saved per second in 1,000-sample batches, eight batches in flight on one connection.
func throughputMetric(daemon: String, samples: Int) throws -> Metric {
  let pair = try preparedPair(daemon: daemon)
  defer { pair.shutdown() }
  let client = try DirectClient(pair.layout.socket(.phone))
  let batch = 1000
  let batches = max(1, samples / batch)
  let frames: [[UInt8]] = (0..<batches).map { b in
    let samples: [SampleInput] = (0..<batch).map { sample(b * batch + $0) }
    return DeviceOperation.save(benchApp.bundleID, samples).frame(id: UInt32(b + 100))
  }
  let inFlight = 8
  let t0 = now()
  var sent = 0
  var received = 0
  while received < batches {
    while sent < batches && sent - received < inFlight {
      try client.send(frames[sent])
      sent += 1
    }
    if case .response(_, let result) = try client.receive() {
      _ = try result.get()
      received += 1
    }
  }
  let seconds = Double(now() - t0) / 1e9
  let rate = Double(batches * batch) / seconds
  return Metric(
    name: "2. Batched save throughput (1,000-sample batches, 8 in flight)", baseline: "—",
    value: "\(formatNumber(rate.rounded())) samples/s", ratio: "—", target: "≥ 200,000/s", met: rate >= 200_000,
    numbers: [("samplesPerSecond", rate), ("samples", Double(batches * batch))])
}
