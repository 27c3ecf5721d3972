// swift-tools-version: 6.1
import PackageDescription

/// The tests, benchmark and guide snippets of the RxSwift adapter. The adapter itself is the root
/// package's product `RxDiagnostics`, built with the root's trait `RxSwift` (its sources are in
/// `Sources/RxDiagnostics` here). They stay in a package of their own so that the root package's
/// tests build where RxSwift is not reachable: `Integrations/RxSwift/test.sh` skips this package
/// (with one line saying why) where RxSwift cannot be resolved.
///
/// Same strictness as the root package: Swift 6 language mode plus upcoming features.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "RxDiagnostics",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "rx-diag-benchmark", targets: ["rx-diag-benchmark"])
    ],
    dependencies: [
        // The adapter: the root package with its trait RxSwift, as users add it.
        .package(name: "ReactiveDiagnostics", path: "../../..", traits: ["RxSwift"]),
        // The benchmark harness lives in the repository's workshop package (not shipped).
        .package(name: "ReactiveDiagnosticsWorkshop", path: "../../../Tools/Workshop"),
        .package(url: "https://github.com/ReactiveX/RxSwift", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` (Tools/docs.sh). A command plugin: nothing of it
        // is linked into any product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // What the hooks cost against RxSwift with the hooks off (Docs/Performance.md), on the
        // root package's benchmark harness.
        .executableTarget(
            name: "rx-diag-benchmark",
            dependencies: [
                .product(name: "RxDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "_ReactiveDiagnosticsBenchmarkHarness", package: "ReactiveDiagnosticsWorkshop"),
                .product(name: "RxSwift", package: "RxSwift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks",
            swiftSettings: swiftSettings
        ),
        // The blocks of Docs/RxSwift.md, compiled (not a product; nothing runs it).
        .target(
            name: "RxDiagnosticsDocSnippets",
            dependencies: [
                .product(name: "RxDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagnosticsTesting", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagnosticsXCTest", package: "ReactiveDiagnostics"),
                .product(name: "RxSwift", package: "RxSwift"),
                .product(name: "RxRelay", package: "RxSwift"),
            ],
            path: "Tests/RxDiagnosticsDocSnippets",
            swiftSettings: swiftSettings
        ),
        // The two-thread serial-delivery stress the root package's Combine tests use too: the
        // same sources (Tests/SerialDeliveryStressHarness, through a symbolic link), compiled
        // here because the root package ships no test helpers.
        .target(
            name: "_SerialDeliveryStressHarness",
            dependencies: [.product(name: "ReactiveDiagnostics", package: "ReactiveDiagnostics")],
            path: "Tests/SerialDeliveryStressHarness",
            swiftSettings: swiftSettings
        ),
        // Also runs its own XCTest and Swift Testing fixtures in child processes, to check the
        // documented one-line setups (DiagnosedTestCase, the .diagnosed trait) end to end.
        .testTarget(
            name: "RxDiagnosticsTests",
            dependencies: [
                .product(name: "RxDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagnosticsXCTest", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagnosticsTesting", package: "ReactiveDiagnostics"),
                "_SerialDeliveryStressHarness",
                .product(name: "RxSwift", package: "RxSwift"),
                .product(name: "RxRelay", package: "RxSwift"),
                .product(name: "RxTest", package: "RxSwift"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
