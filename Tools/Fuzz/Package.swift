// swift-tools-version: 6.1
import PackageDescription

// A coverage-guided fuzzer (libFuzzer) for the report and crash-journal readers and for the
// tool's views of whatever they accept. Its executable has no `main` (libFuzzer brings one),
// so it lives in a package of its own: build it only with `--sanitize=fuzzer`, through
// `Tools/Fuzz/fuzz.sh`.
let package = Package(
    name: "ReactiveDiagnosticsFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ReactiveDiagnostics", path: "../..")],
    targets: [
        .executableTarget(
            name: "report-fuzzer",
            dependencies: [
                .product(name: "ReactiveDiagnosticsReport", package: "ReactiveDiagnostics"),
                .product(name: "ReactiveDiagTool", package: "ReactiveDiagnostics"),
            ],
            path: "Sources/ReportFuzzer"
        )
    ]
)
