import HealthPairClient

// The ctl operation table: one row per operation name, each running one function of its family.
//
//   CtlAuthorizationOperations.swift  install, uninstall, request, answer, status, request-status, settings
//   CtlSampleOperations.swift         save, delete, query, anchored, samples, earliest
//   CtlStatisticsOperations.swift     stats, collection
//   CtlDeviceOperations.swift         clock, policy, lock, unlock, link, dump, events
//   CtlUserOperations.swift           characteristic, set-characteristic, units, prefer-unit, source-order
//   CtlBackgroundOperations.swift     background
//   CtlArgumentParsing.swift          what the families share: types, dates, durations, ranges, units
//
// How to add an operation: write a `func` in its family's file (a new family is a new `Ctl<Family>Operations.swift`)
// that takes `(_ args: inout Arguments, _ client: DeviceClient)`, parses the rest of the arguments (ending with
// `args.finish()`), makes its calls and prints what they returned; add its row below, and its line in the help
// (`CtlCommand.configuration`). A misspelt operation is suggested the nearest name in the table, the first row
// winning a tie.

/// One `ctl` operation: the name it is called by and the function that runs it.
struct CtlOperation: Sendable {
  /// The operation's name on the command line.
  let name: String
  /// Parses the rest of the arguments and runs the operation on the connected device; a usage error exits 64, an
  /// error the device returned or a ``CtlFailure`` exits 1.
  let run: @Sendable (CtlCommand, inout Arguments, DeviceClient) throws -> Void
}

extension CtlCommand {
  /// Every operation, in the order a misspelt name's suggestion prefers them.
  static let operations: [CtlOperation] = [
    CtlOperation(name: "install") { try $0.install(&$1, $2) },
    CtlOperation(name: "uninstall") { try $0.uninstall(&$1, $2) },
    CtlOperation(name: "request") { try $0.request(&$1, $2) },
    CtlOperation(name: "answer") { try $0.answer(&$1, $2) },
    CtlOperation(name: "status") { try $0.status(&$1, $2) },
    CtlOperation(name: "request-status") { try $0.requestStatus(&$1, $2) },
    CtlOperation(name: "save") { try $0.save(&$1, $2) },
    CtlOperation(name: "delete") { try $0.delete(&$1, $2) },
    CtlOperation(name: "query") { try $0.query(&$1, $2) },
    CtlOperation(name: "stats") { try $0.statistics(&$1, $2) },
    CtlOperation(name: "collection") { try $0.statistics(&$1, $2) },
    CtlOperation(name: "anchored") { try $0.anchored(&$1, $2) },
    CtlOperation(name: "settings") { try $0.changeSettings(&$1, $2) },
    CtlOperation(name: "watch-settings") { try $0.changeSettings(&$1, $2) },
    CtlOperation(name: "clock") { try $0.clock(&$1, $2) },
    CtlOperation(name: "policy") { try $0.policy(&$1, $2) },
    CtlOperation(name: "samples") { try $0.samples(&$1, $2) },
    CtlOperation(name: "earliest") { try $0.earliest(&$1, $2) },
    CtlOperation(name: "link") { try $0.link(&$1, $2) },
    CtlOperation(name: "dump") { try $0.dump(&$1, $2) },
    CtlOperation(name: "events") { try $0.events(&$1, $2) },
    CtlOperation(name: "lock") { try $0.lock(&$1, $2) },
    CtlOperation(name: "unlock") { try $0.lock(&$1, $2) },
    CtlOperation(name: "characteristic") { try $0.characteristic(&$1, $2) },
    CtlOperation(name: "set-characteristic") { try $0.setCharacteristic(&$1, $2) },
    CtlOperation(name: "units") { try $0.units(&$1, $2) },
    CtlOperation(name: "prefer-unit") { try $0.preferUnit(&$1, $2) },
    CtlOperation(name: "source-order") { try $0.sourceOrder(&$1, $2) },
    CtlOperation(name: "background") { try $0.background(&$1, $2) },
  ]
}
