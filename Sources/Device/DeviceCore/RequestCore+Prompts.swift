import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// The answers of the requests that may wait for the user: a sheet presented, or an app extension's request waiting
// for its app.

extension RequestCore {
  /// The answer to a request that may present a sheet: its completion, or pending on the sheet (announced and
  /// logged in `effects`, after the Health Records sheet `ahead` of it, if any).
  static func presented(
    _ outcome: DeviceState.RequestOutcome, _ effects: inout Effects, after ahead: Prompt? = nil
  ) -> Answer {
    switch outcome {
    case .completed(let result):
      return .reply(.success(.authorization(result)))
    case .prompt(let prompt):
      if let ahead { announce(ahead, &effects) }
      announce(prompt, &effects)
      return .pending(prompt)
    }
  }

  /// Announces a presented sheet to subscribers and the log.
  private static func announce(_ prompt: Prompt, _ effects: inout Effects) {
    effects.notices.append(.promptShown(prompt))
    let lists =
      prompt.objects.map { "\($0.count) objects" } ?? prompt.permissions.map(\.description).joined(separator: ",")
    var fields = [Field("app", prompt.bundleID), Field("prompt", "\(prompt.id)"), Field("lists", lists)]
    if prompt.isHealthRecordsSheet { fields.append(Field("sheet", "health records")) }
    effects.notes.append(Note(level: .info, message: "sheet presented", fields: fields))
  }

  /// The answer to an app extension's request: its completion, or pending until its app handles it — announced as
  /// waiting, not as a sheet, since nothing is shown (behavior.md A23).
  static func waiting(_ outcome: DeviceState.RequestOutcome, _ effects: inout Effects) -> Answer {
    switch outcome {
    case .completed(let result):
      return .reply(.success(.authorization(result)))
    case .prompt(let prompt):
      effects.notes.append(
        Note(
          level: .info, message: "extension request waits for its app",
          fields: [Field("app", prompt.bundleID), Field("prompt", "\(prompt.id)")]))
      effects.notices.append(.extensionRequestWaiting(prompt))
      return .pending(prompt)
    }
  }
}
