// swift-tools-version: 6.1
import PackageDescription

// An RxSwift app's package as Docs/RxSwift.md tells users to write it: ReactiveDiagnostics with
// its trait RxSwift, the product RxDiagnostics in the test target. By path here (users write
// `.package(url: "https://github.com/<owner>/ReactiveDiagnostics.git", from: "0.1.0",
// traits: ["RxSwift"])`). `Integrations/RxSwift/test.sh` runs its tests where RxSwift resolves.
let package = Package(
    name: "RxConsumer",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "ReactiveDiagnostics", path: "../..", traits: ["RxSwift"]),
        .package(url: "https://github.com/ReactiveX/RxSwift", from: "6.0.0"),
    ],
    targets: [
        // The app: plain RxSwift, no diagnostics.
        .target(name: "Headlines", dependencies: [.product(name: "RxSwift", package: "RxSwift")]),
        // Its tests: every closure-based subscription counted by RxDiagnosticsHooks.
        .testTarget(
            name: "HeadlinesTests",
            dependencies: [
                "Headlines",
                .product(name: "RxDiagnostics", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagnosticsTesting", package: "ReactiveDiagnostics"),
                .product(name: "RxSwift", package: "RxSwift"),
            ]
        ),
    ]
)
