// swift-tools-version: 6.1
import PackageDescription

/// The workshop: what this repository builds to measure and check itself, kept out of the
/// package users add (as swift-nio keeps its benchmarks). It depends on the root package by
/// path, through its products and the `@_spi(Integration)` door for the engine's internals.
///
///   swift run --package-path Tools/Workshop -c release reactive-diag-benchmark
///   swift test --package-path Tools/Workshop
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let openCombine: [Target.Dependency] = [
    .product(name: "OpenCombineShim", package: "OpenCombine")
]

let package = Package(
    name: "ReactiveDiagnosticsWorkshop",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reactive-diag-benchmark", targets: ["reactive-diag-benchmark"]),
        .executable(name: "doc-coverage", targets: ["doc-coverage"]),
        .executable(name: "peak-rss", targets: ["peak-rss"]),
        // The benchmarks' shared harness, for the RxSwift integration's benchmark.
        .library(name: "_ReactiveDiagnosticsBenchmarkHarness", targets: ["_ReactiveDiagnosticsBenchmarkHarness"]),
    ],
    dependencies: [
        .package(name: "ReactiveDiagnostics", path: "../.."),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Measuring, statistics, the table and the JSON of every benchmark executable.
        .target(
            name: "_ReactiveDiagnosticsBenchmarkHarness",
            dependencies: [.product(name: "ReactiveDiagnosticsReport", package: "ReactiveDiagnostics")],
            path: "BenchmarkHarness",
            swiftSettings: swiftSettings
        ),
        // A child's own peak resident memory: runs a command and prints wait4's ru_maxrss of it.
        // Being small itself, what the kernel folds into the child at exec is its own few pages,
        // not the benchmark's hundreds of megabytes.
        .executableTarget(name: "peak-rss", path: "PeakRSS"),
        // Declarations of the capture layer's C functions the benchmarks measure.
        .target(name: "CCapture", path: "CCapture"),
        .executableTarget(
            name: "reactive-diag-benchmark",
            dependencies: [
                "_ReactiveDiagnosticsBenchmarkHarness", "CCapture", "peak-rss",
                .product(name: "ReactiveDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "CombineDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "ConcurrencyDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "EffectDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagTool", package: "ReactiveDiagnostics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + openCombine,
            path: "Benchmarks",
            swiftSettings: swiftSettings
        ),
        // Fails when a public symbol has no documentation comment (Tools/docs.sh runs it on the
        // symbol graphs the documentation build extracted).
        .target(name: "DocCoverage", path: "DocCoverage/DocCoverage", swiftSettings: swiftSettings),
        .executableTarget(
            name: "doc-coverage",
            dependencies: ["DocCoverage"],
            path: "DocCoverage/Main",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DocCoverageTests",
            dependencies: ["DocCoverage"],
            path: "Tests/DocCoverageTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BenchmarkHarnessTests",
            dependencies: ["_ReactiveDiagnosticsBenchmarkHarness"],
            path: "Tests/BenchmarkHarnessTests",
            swiftSettings: swiftSettings
        ),
    ]
)
