// swift-tools-version:6.0
// A package outside HealthPair, as a team's would be: its HealthKit code is unchanged published code, and on Linux
// HealthPair's `HealthKit` product stands in for the framework. check.sh builds and tests it against the checkout
// it lives in (linked as ../healthpair).
import PackageDescription

let package = Package(
  name: "StepsKit",
  platforms: [.iOS(.v17), .watchOS(.v10), .macOS(.v14)],
  products: [.library(name: "StepsKit", targets: ["StepsKit"])],
  dependencies: [
    .package(path: "../healthpair")
  ],
  targets: [
    .target(
      name: "StepsKit",
      dependencies: [
        .product(name: "HealthKit", package: "healthpair", condition: .when(platforms: [.linux])),
        .product(name: "CoreLocation", package: "healthpair", condition: .when(platforms: [.linux])),
      ]),
    .testTarget(
      name: "StepsKitTests",
      dependencies: [
        "StepsKit",
        .product(name: "HealthKit", package: "healthpair", condition: .when(platforms: [.linux])),
        .product(name: "CoreLocation", package: "healthpair", condition: .when(platforms: [.linux])),
        .product(name: "HealthPairTesting", package: "healthpair", condition: .when(platforms: [.linux])),
      ]),
  ]
)
