import Dispatch
import FoundationEssentials
import Testing

@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses

@Suite("DeviceClient's reading roles: operations started to be waited for here (real processes)")
struct ReadingRoleTests {
  /// `startAwaitedHere` counts the caller as the answer's reader from the moment the request is sent. Every way of
  /// then awaiting it must still get the answer — waiting here, a callback, an `async` wait, or giving the place up
  /// first — and leave nobody counted as waiting (else the reader thread would never read for those requests).
  @Test func anOperationSentToBeWaitedHereIsAnsweredHoweverItIsAwaited() async throws {
    let pair = try Pair()
    defer { pair.shutdown() }
    try pair.phone.setClock(t0)
    try pair.phone.installApp(waterApp)
    try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
    let client = pair.phone
    func save(_ mL: Double) throws -> PendingOperation<Void> {
      try client.startAwaitedHere(.save(waterApp.bundleID, [waterSample(mL)]))
    }
    // Waited on this thread, as HealthKitSim's calls do.
    for i in 0..<20 { try save(Double(i + 1)).wait(timeout: 10) }
    #expect(client.waitedRequests == 0)

    // Handed to a callback: the place is given up, and the reader thread reads the answer.
    let called = DispatchSemaphore(value: 0)
    try save(21).ticket.whenDone { result in
      if case .success = result { called.signal() }
    }
    #expect(called.wait(timeout: .now() + 10) == .success, "the callback got the answer")

    // Awaited without blocking a thread.
    _ = try await save(22).ticket.value(timeout: 10)

    // Given up explicitly (a task cancelled between send and wait), then waited for after all.
    let released = try save(23)
    released.ticket.releaseClaim()
    released.ticket.releaseClaim()  // a second release changes nothing
    try released.wait(timeout: 10)

    #expect(client.waitedRequests == 0, "nobody is counted as waiting once every answer is in")
    #expect(try client.storedSamples().samples.count == 23)
  }
}
