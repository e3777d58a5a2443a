// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

/// A module in its layer folder, `Sources/<layer>/<name>` (docs/architecture.md lists the layers).
func module(
  _ name: String, _ layer: String, _ dependencies: [Target.Dependency] = [], strictSwift: Bool = true
) -> Target {
  .target(
    name: name, dependencies: dependencies, path: "Sources/\(layer)/\(name)",
    swiftSettings: strictSwift ? strict : nil)
}

/// An executable in its layer folder: a short `main` over the module it is named for.
func executable(_ name: String, _ layer: String, _ dependencies: [Target.Dependency], strictSwift: Bool = true)
  -> Target
{
  .executableTarget(
    name: name, dependencies: dependencies, path: "Sources/\(layer)/\(name)",
    swiftSettings: strictSwift ? strict : nil)
}

let package = Package(
  name: "HealthPair",
  products: [
    .executable(name: "healthpair", targets: ["healthpair"]),
    .executable(name: "healthpaird", targets: ["healthpaird"]),
    .executable(name: "healthpair-bench", targets: ["healthpair-bench"]),
    .library(name: "HealthKitSim", targets: ["HealthKitSim"]),
    // Linux only: depend on it with `condition: .when(platforms: [.linux])` so Apple builds keep the real framework.
    .library(name: "HealthKit", targets: ["HealthKit"]),
    // Linux only, as HealthKit: what workout routes need of Core Location (CLLocation and its coordinate).
    .library(name: "CoreLocation", targets: ["CoreLocation"]),
    .library(name: "HealthPairTesting", targets: ["HealthPairTesting"]),
  ],
  targets: [
    // Model: HealthKit's vocabulary and one device's HealthKit, as pure values.
    module("HealthModel", "Model"),
    module("HealthEngine", "Model", ["HealthModel"]),

    // Formats: the journal's and the wire's bytes, the peer link's logic, exports, reports, command lines.
    module("HealthCodec", "Formats", ["HealthModel", "HealthEngine"]),
    module("Wire", "Formats", ["HealthCodec", "HealthEngine", "HealthModel"]),
    module("Sync", "Formats", ["Wire", "HealthEngine", "HealthModel"]),
    module("Journal", "Formats", ["Posix", "HealthCodec", "HealthEngine", "HealthModel"]),
    module("HealthExport", "Formats", ["HealthModel"]),
    module("Render", "Formats", ["Posix"]),
    module("CommandLineKit", "Formats", ["HealthModel"]),

    // Device: a device's daemon without I/O (request handling, policies, commit plan), and the deterministic pair.
    module("DeviceCore", "Device", ["Sync", "Wire", "HealthCodec", "HealthEngine", "HealthModel"]),
    module(
      "Simulation", "Device", ["DeviceCore", "Sync", "Journal", "Wire", "HealthCodec", "HealthEngine", "HealthModel"]),

    // Processes: the syscall seam, the daemon process, the socket client, launching pairs.
    .target(name: "CPosix", path: "Sources/Processes/CPosix"),
    module("Posix", "Processes", ["CPosix"]),
    module(
      "Daemon", "Processes",
      [
        "CommandLineKit", "DeviceCore", "Journal", "Wire", "Sync", "Posix", "HealthCodec", "HealthEngine",
        "HealthModel",
      ]),
    executable("healthpaird", "Processes", ["Daemon", "Posix"]),
    module(
      "HealthPairClient", "Processes",
      ["Render", "Wire", "Posix", "HealthCodec", "HealthEngine", "HealthExport", "HealthModel"]),
    module(
      "PairProcesses", "Processes", ["HealthPairClient", "Wire", "Posix", "HealthEngine", "HealthModel"]),

    // API: what users' code imports. `HealthKit` re-exports HealthKitSim, so published HealthKit code builds
    // unchanged.
    module("CoreLocation", "API"),
    module(
      "HealthKitSim", "API",
      ["CoreLocation", "HealthPairClient", "Wire", "HealthEngine", "HealthExport", "HealthModel", "Posix"],
      strictSwift: false),
    module("HealthKit", "API", ["HealthKitSim"], strictSwift: false),
    module(
      "HealthPairTesting", "API",
      [
        "HealthKitSim", "HealthPairClient", "PairProcesses", "Daemon", "Render", "Wire", "HealthEngine", "HealthExport",
        "HealthModel", "Posix",
      ],
      strictSwift: false),

    // Tools: the scenario language and runner, chaos, fuzzing, benchmarks and the CLI.
    module("ScenarioLanguage", "Tools", ["HealthEngine", "HealthModel", "Posix"]),
    module(
      "Scenario", "Tools",
      [
        "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Journal", "Render", "Wire", "HealthEngine",
        "HealthExport", "HealthModel", "Posix",
      ]),
    module(
      "Chaos", "Tools",
      [
        "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Journal", "Wire", "HealthEngine",
        "HealthModel", "Posix",
      ]),
    module(
      "FuzzTargets", "Tools",
      [
        "CommandLineKit", "ScenarioLanguage", "DeviceCore", "Journal", "Wire", "HealthCodec", "HealthEngine",
        "HealthExport", "HealthModel", "Posix",
      ]),
    executable(
      "healthpair-fuzz", "Tools", ["CommandLineKit", "FuzzTargets", "HealthModel", "Posix"], strictSwift: false),
    module(
      "Bench", "Tools",
      [
        "CommandLineKit", "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Journal", "Render",
        "Wire", "HealthCodec", "HealthEngine", "HealthExport", "HealthModel", "Posix", "HealthKitSim",
        "HealthPairTesting",
      ]),
    executable("healthpair-bench", "Tools", ["Bench", "Posix"]),
    module(
      "HealthPairCLI", "Tools",
      [
        "CommandLineKit", "Chaos", "Simulation", "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses",
        "Render", "Wire", "Journal", "HealthEngine", "HealthExport", "HealthModel", "Posix",
      ]),
    executable("healthpair", "Tools", ["HealthPairCLI", "Posix"]),

    // Examples: client code compiled unchanged against the API.
    module("WaterApp", "Examples", ["HealthKitSim"], strictSwift: false),
    module("ReturnApp", "Examples", ["HealthKitSim"], strictSwift: false),
    module("PublishedStyles", "Examples", ["HealthKit", "CoreLocation"], strictSwift: false),

    // Tests. A test helper (not a product) that holds a pair until it is killed, for the cleanup tests; and what
    // several test targets share: the repository's files and hex bytes.
    .executableTarget(
      name: "healthpair-pair-holder", dependencies: ["HealthPairTesting", "Posix"], path: "Tests/PairHolder"),
    .target(name: "TestSupport", dependencies: ["Posix"], path: "Tests/TestSupport"),
    .testTarget(
      name: "HealthModelTests", dependencies: ["TestSupport", "HealthModel", "Posix"], exclude: ["Fixtures"]),
    .testTarget(name: "HealthEngineTests", dependencies: ["HealthEngine", "HealthModel", "HealthCodec"]),
    .testTarget(name: "HealthExportTests", dependencies: ["TestSupport", "HealthExport", "HealthModel", "Posix"]),
    .testTarget(name: "PosixTests", dependencies: ["Posix"]),
    .testTarget(
      name: "DaemonTests",
      dependencies: [
        "TestSupport", "HealthPairClient", "PairProcesses", "Daemon", "DeviceCore", "Sync", "Wire", "Journal",
        "HealthCodec", "HealthEngine", "HealthExport", "HealthModel", "Posix",
      ]),
    .testTarget(name: "DeviceCoreTests", dependencies: ["DeviceCore", "Sync", "Wire", "HealthEngine", "HealthModel"]),
    .testTarget(name: "SyncTests", dependencies: ["Sync", "Simulation", "Wire", "HealthEngine", "HealthModel"]),
    .testTarget(
      name: "WireTests", dependencies: ["TestSupport", "Wire", "HealthCodec", "HealthEngine", "HealthModel"],
      exclude: ["Fixtures"]),
    .testTarget(
      name: "CLITests",
      dependencies: ["TestSupport", "CommandLineKit", "HealthPairClient", "PairProcesses", "HealthModel", "Posix"],
      exclude: ["Golden"]),
    .testTarget(
      name: "HealthKitSimTests",
      dependencies: [
        "TestSupport", "CoreLocation", "HealthKitSim", "HealthPairTesting", "WaterApp", "ReturnApp", "PublishedStyles",
        "HealthPairClient", "PairProcesses", "HealthModel", "Posix",
      ]),
    .testTarget(
      name: "ScenarioTests",
      dependencies: [
        "TestSupport", "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Render", "Wire",
        "HealthEngine", "HealthModel", "Posix",
      ]),
    .testTarget(
      name: "ChaosTests",
      dependencies: [
        "Chaos", "HealthPairClient", "PairProcesses", "Scenario", "ScenarioLanguage", "HealthEngine", "HealthModel",
        "Posix",
      ]),
    .testTarget(name: "BenchTests", dependencies: ["Bench", "Render", "HealthModel", "Posix"]),
    .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets", "HealthCodec", "Posix"]),
    .testTarget(
      name: "JournalTests",
      dependencies: ["TestSupport", "Journal", "HealthCodec", "HealthEngine", "HealthModel", "Posix"],
      exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)
