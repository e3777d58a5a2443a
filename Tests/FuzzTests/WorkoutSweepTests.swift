import FoundationEssentials
import HealthCodec
import Posix
import Testing

@testable import FuzzTargets

/// Every byte of valid workout-family bytes changed, and every prefix: the journal, message and snapshot targets
/// keep their properties and do not crash, whatever count, date, raw value or order the change makes.
@Suite("Workout bytes swept byte by byte (journal tags 80–85, sync payloads 80–84, snapshot workouts)")
struct WorkoutSweepTests {
  @Test func everyByteAndEveryPrefix() async throws {
    let findings = try await Posix.onOwnThread {
      var findings: [String] = []
      for (target, bytes) in FuzzTargets.workoutSweepInputs() where findings.count < 3 {
        var variants: [[UInt8]] = (0..<bytes.count).map { Array(bytes[..<$0]) }
        for at in 1..<bytes.count {
          for value: UInt8 in [0x00, 0xFF, bytes[at] ^ 0x80] where value != bytes[at] {
            var changed = bytes
            changed[at] = value
            variants.append(changed)
          }
        }
        for input in variants where findings.count < 3 {
          if let finding = FuzzProperties.finding(target, input) {
            findings.append("\(target): \(finding)\n  input (base64): \(Data(input).base64EncodedString())")
          } else {
            FuzzTargets.run(target, input)
          }
        }
      }
      return findings
    }
    #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
  }
}
