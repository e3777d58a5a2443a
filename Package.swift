// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
  name: "HealthPair",
  products: [
    .executable(name: "healthpair", targets: ["healthpair"]),
    .executable(name: "healthpaird", targets: ["healthpaird"]),
    .executable(name: "healthpair-bench", targets: ["healthpair-bench"]),
    .library(name: "HealthKitSim", targets: ["HealthKitSim"]),
    // Linux only: depend on it with `condition: .when(platforms: [.linux])` so Apple builds keep the real framework.
    .library(name: "HealthKit", targets: ["HealthKit"]),
    .library(name: "HealthPairTesting", targets: ["HealthPairTesting"]),
  ],
  targets: [
    .target(name: "HealthModel", swiftSettings: strict),
    .target(name: "HealthEngine", dependencies: ["HealthModel"], swiftSettings: strict),
    .target(name: "HealthCodec", dependencies: ["HealthModel", "HealthEngine"], swiftSettings: strict),
    .target(name: "HealthExport", dependencies: ["HealthModel"], swiftSettings: strict),
    // The command model every executable shares: configuration, argument parser, help and dispatch (pure).
    .target(name: "CommandLineKit", dependencies: ["HealthModel"], swiftSettings: strict),
    .target(name: "CPosix"),
    .target(name: "Posix", dependencies: ["CPosix"], swiftSettings: strict),
    .target(
      name: "Journal", dependencies: ["Posix", "HealthCodec", "HealthEngine", "HealthModel"], swiftSettings: strict),
    .target(name: "Wire", dependencies: ["HealthCodec", "HealthEngine", "HealthModel"], swiftSettings: strict),
    .target(name: "Sync", dependencies: ["Wire", "HealthEngine", "HealthModel"], swiftSettings: strict),
    // The device's pure core: request handling and the daemon's policies and commit plan, no I/O.
    .target(
      name: "DeviceCore", dependencies: ["Sync", "Wire", "HealthCodec", "HealthEngine", "HealthModel"],
      swiftSettings: strict),
    .target(
      name: "Daemon",
      dependencies: [
        "CommandLineKit", "DeviceCore", "Journal", "Wire", "Sync", "Posix", "HealthCodec", "HealthEngine", "HealthModel",
      ],
      swiftSettings: strict),
    .executableTarget(name: "healthpaird", dependencies: ["Daemon", "Posix"], swiftSettings: strict),
    // The deterministic pair simulator: the daemons' pure cores, journals as bytes, a seeded network.
    .target(
      name: "Simulation",
      dependencies: ["DeviceCore", "Sync", "Journal", "Wire", "HealthCodec", "HealthEngine", "HealthModel"],
      swiftSettings: strict),
    .target(name: "HealthPairClient", dependencies: ["Render", "Wire", "Posix", "HealthCodec", "HealthEngine", "HealthExport", "HealthModel"], swiftSettings: strict),
    // Daemon processes: locating, launching (zygote or spawn), stopping and restarting them; pairs, prepared pairs,
    // their directories and interruption.
    .target(
      name: "PairProcesses",
      dependencies: ["HealthPairClient", "Wire", "Posix", "HealthEngine", "HealthModel"],
      swiftSettings: strict),
    .target(name: "Render", dependencies: ["Posix"], swiftSettings: strict),
    // The scenario language: lexer, parser, AST and located diagnostics — pure (what the fuzzer needs); it reads
    // files only to follow `include`.
    .target(name: "ScenarioLanguage", dependencies: ["HealthEngine", "HealthModel", "Posix"], swiftSettings: strict),
    // The scenario runner: fresh pairs, steps played through the client, checks, reports.
    .target(
      name: "Scenario",
      dependencies: [
        "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Journal", "Render", "Wire", "HealthEngine", "HealthExport",
        "HealthModel", "Posix",
      ],
      swiftSettings: strict),
    // The HealthKit-shaped public API, the test harness, and the article's apps built on it.
    .target(name: "HealthKitSim", dependencies: ["HealthPairClient", "Wire", "HealthEngine", "HealthModel", "Posix"]),
    // `import HealthKit` on Linux: re-exports HealthKitSim, so published HealthKit code builds unchanged.
    .target(name: "HealthKit", dependencies: ["HealthKitSim"]),
    .target(
      name: "HealthPairTesting",
      dependencies: [
        "HealthKitSim", "HealthPairClient", "PairProcesses", "Daemon", "Render", "Wire", "HealthEngine", "HealthExport", "HealthModel",
        "Posix",
      ]),
    .target(name: "WaterApp", dependencies: ["HealthKitSim"], path: "Sources/Examples/WaterApp"),
    .target(name: "ReturnApp", dependencies: ["HealthKitSim"], path: "Sources/Examples/ReturnApp"),
    .target(name: "PublishedStyles", dependencies: ["HealthKit"], path: "Sources/Examples/PublishedStyles"),
    .target(
      name: "Chaos",
      dependencies: [
        "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Journal", "Wire", "HealthEngine", "HealthModel", "Posix",
      ],
      swiftSettings: strict),
    .target(
      name: "FuzzTargets",
      dependencies: [
        "CommandLineKit", "ScenarioLanguage", "DeviceCore", "Journal", "Wire", "HealthCodec", "HealthEngine", "HealthExport",
        "HealthModel", "Posix",
      ],
      swiftSettings: strict),
    .executableTarget(name: "healthpair-fuzz", dependencies: ["CommandLineKit", "FuzzTargets", "HealthModel", "Posix"]),
    .target(
      name: "Bench",
      dependencies: [
        "CommandLineKit", "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Journal", "Render", "Wire", "HealthCodec",
        "HealthEngine", "HealthExport", "HealthModel", "Posix", "HealthKitSim", "HealthPairTesting",
      ],
      swiftSettings: strict),
    .executableTarget(name: "healthpair-bench", dependencies: ["Bench", "Posix"], swiftSettings: strict),
    .target(name: "HealthPairCLI", dependencies: ["CommandLineKit", "Chaos", "Simulation", "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Render", "Wire", "Journal", "HealthEngine", "HealthExport", "HealthModel", "Posix"], swiftSettings: strict),
    .executableTarget(name: "healthpair", dependencies: ["HealthPairCLI", "Posix"], swiftSettings: strict),
    // A test helper (not a product): holds a pair until it is killed, for the cleanup tests.
    .executableTarget(
      name: "healthpair-pair-holder", dependencies: ["HealthPairTesting", "Posix"], path: "Tests/PairHolder"),
    // What several test targets share: the repository's files and hex bytes (not a product).
    .target(name: "TestSupport", dependencies: ["Posix"], path: "Tests/TestSupport"),
    .testTarget(name: "HealthModelTests", dependencies: ["TestSupport", "HealthModel", "Posix"], exclude: ["Fixtures"]),
    .testTarget(name: "HealthEngineTests", dependencies: ["HealthEngine", "HealthModel", "HealthCodec"]),
    .testTarget(name: "HealthExportTests", dependencies: ["TestSupport", "HealthExport", "HealthModel", "Posix"]),
    .testTarget(name: "PosixTests", dependencies: ["Posix"]),
    .testTarget(
      name: "DaemonTests",
      dependencies: ["TestSupport", "HealthPairClient", "PairProcesses", "Daemon", "DeviceCore", "Sync", "Wire", "Journal", "HealthCodec", "HealthEngine", "HealthExport", "HealthModel", "Posix"]),
    .testTarget(name: "DeviceCoreTests", dependencies: ["DeviceCore", "Sync", "Wire", "HealthEngine", "HealthModel"]),
    .testTarget(name: "SyncTests", dependencies: ["Sync", "Simulation", "Wire", "HealthEngine", "HealthModel"]),
    .testTarget(
      name: "WireTests", dependencies: ["TestSupport", "Wire", "HealthCodec", "HealthEngine", "HealthModel"], exclude: ["Fixtures"]),
    .testTarget(
      name: "CLITests", dependencies: ["TestSupport", "CommandLineKit", "HealthPairClient", "PairProcesses", "HealthModel", "Posix"], exclude: ["Golden"]),
    .testTarget(
      name: "HealthKitSimTests",
      dependencies: [
        "TestSupport", "HealthKitSim", "HealthPairTesting", "WaterApp", "ReturnApp", "PublishedStyles", "HealthPairClient", "PairProcesses",
        "HealthModel",
        "Posix",
      ]),
    .testTarget(
      name: "ScenarioTests",
      dependencies: [
        "TestSupport", "Scenario", "ScenarioLanguage", "HealthPairClient", "PairProcesses", "Render", "Wire", "HealthEngine", "HealthModel", "Posix",
      ]),
    .testTarget(
      name: "ChaosTests",
      dependencies: ["Chaos", "HealthPairClient", "PairProcesses", "Scenario", "ScenarioLanguage", "HealthEngine", "HealthModel", "Posix"]),
    .testTarget(name: "BenchTests", dependencies: ["Bench", "Render", "HealthModel", "Posix"]),
    .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets", "HealthCodec", "Posix"]),
    .testTarget(
      name: "JournalTests", dependencies: ["TestSupport", "Journal", "HealthCodec", "HealthEngine", "HealthModel", "Posix"],
      exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)
