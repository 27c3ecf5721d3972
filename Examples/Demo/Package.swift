// swift-tools-version: 6.1
import PackageDescription

// The demo: a small news reader whose tests pass while it hides the classic bugs of reactive
// code. `Tools/demo.sh` runs its tests under ReactiveDiagnostics, shows the report, writes the
// HTML page, asks the CI gate for a verdict, then runs the fixed variant (DEMO_FIXED=1).
let package = Package(
    name: "ReactiveDiagnosticsDemo",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "ReactiveDiagnostics", path: "../.."),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    ],
    targets: [
        // The app: plain Combine and Swift Concurrency code, no diagnostics.
        .target(
            name: "NewsApp",
            dependencies: [.product(name: "OpenCombineShim", package: "OpenCombine")]
        ),
        // Its tests: XCTest and Swift Testing, with diagnostics turned on.
        .testTarget(
            name: "NewsAppTests",
            dependencies: [
                "NewsApp",
                .product(name: "CombineDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "EffectDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "ConcurrencyDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagnosticsXCTest", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagnosticsTesting", package: "ReactiveDiagnostics"),
            ]
        ),
    ]
)
