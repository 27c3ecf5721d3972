// swift-tools-version: 6.1
import PackageDescription

/// Every Swift target gets the same strictness: Swift 6 language mode (the tools-version
/// default) plus upcoming features that keep the API honest. With `InternalImportsByDefault` an
/// import is internal unless written `public import` (a public signature uses the module's types)
/// or `package import` (only package declarations do): what a module exposes is written down.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Apple's Combine where it exists, OpenCombine elsewhere (what OpenCombineShim does).
let openCombine: [Target.Dependency] = [
    .product(name: "OpenCombineShim", package: "OpenCombine")
]

let package = Package(
    name: "ReactiveDiagnostics",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "ReactiveDiagnostics", targets: ["ReactiveDiagnostics"]),
        .library(name: "ReactiveDiagnosticsReport", targets: ["ReactiveDiagnosticsReport"]),
        .library(name: "CombineDiagnostics", targets: ["CombineDiagnostics"]),
        .library(name: "EffectDiagnostics", targets: ["EffectDiagnostics"]),
        .library(name: "ConcurrencyDiagnostics", targets: ["ConcurrencyDiagnostics"]),
        .library(name: "ReactiveDiagnosticsXCTest", targets: ["ReactiveDiagnosticsXCTest"]),
        .library(name: "ReactiveDiagnosticsTesting", targets: ["ReactiveDiagnosticsTesting"]),
        .library(name: "ReactiveDiagTool", targets: ["ReactiveDiagTool"]),
        .executable(name: "reactive-diag", targets: ["reactive-diag"]),
        // Empty unless the trait RxSwift is enabled (Docs/RxSwift.md).
        .library(name: "RxDiagnostics", targets: ["RxDiagnostics"]),
    ],
    // Off by default: without it RxSwift is not resolved at all (SwiftPM leaves a dependency that
    // only a disabled trait uses out of resolution), so the package builds where RxSwift cannot
    // be fetched. `.package(url: …, from: …, traits: ["RxSwift"])` turns it on.
    traits: [
        .trait(name: "RxSwift", description: "The RxSwift 6 integration: the RxDiagnostics product.")
    ],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/pointfreeco/combine-schedulers", from: "1.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` (Tools/docs.sh, the Swift Package Index). A
        // command plugin: nothing of it is linked into any product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Only with the trait RxSwift (the RxDiagnostics target's condition).
        .package(url: "https://github.com/ReactiveX/RxSwift", from: "6.0.0"),
        // `reactive-diag fix` only (the ReactiveDiagFix target): no library a test target links
        // depends on it.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // MARK: Capture layer: raw return addresses through libunwind, symbols on demand.
        .systemLibrary(
            name: "CLibunwind",
            pkgConfig: "libunwind",
            providers: [.apt(["libunwind-dev"])]
        ),
        .target(
            name: "CReactiveDiagnostics",
            dependencies: [.target(name: "CLibunwind", condition: .when(platforms: [.linux, .android]))],
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("unwind", .when(platforms: [.linux, .android]))]
        ),

        // MARK: Child processes (llvm-symbolizer, test children), shared by the engine, the tool
        // and the tests. Not API: the underscore says so.
        .target(name: "_ReactiveDiagnosticsProcess", swiftSettings: swiftSettings),

        // MARK: A lock for every module of this package (pthread, so sanitizers see it). Not API.
        .target(name: "_ReactiveDiagnosticsSupport", swiftSettings: swiftSettings),

        // MARK: Report schema, shared by the engine and the tool.
        .target(name: "ReactiveDiagnosticsReport", swiftSettings: swiftSettings),

        // MARK: Source lines: address → function, file, line through llvm-symbolizer, for the
        // engine (when it writes a report or fails a test) and the tool (offline). Not API.
        .target(
            name: "ReactiveDiagnosticsSymbolication",
            dependencies: [
                "CReactiveDiagnostics", "ReactiveDiagnosticsReport", "_ReactiveDiagnosticsProcess",
                "_ReactiveDiagnosticsSupport",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Retain paths: why a leaked resource is alive (heap walk, type reading, cycle
        // search), behind one door the engine calls at checkpoints (RetainPathExplainer). Not API.
        .target(
            name: "ReactiveDiagnosticsRetainPaths",
            dependencies: [
                "CReactiveDiagnostics", "ReactiveDiagnosticsReport", "ReactiveDiagnosticsSymbolication",
                "_ReactiveDiagnosticsSupport",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Engine: ledger, grammar, findings, report. Foundation and the standard library only.
        .target(
            name: "ReactiveDiagnostics",
            dependencies: [
                "CReactiveDiagnostics", "ReactiveDiagnosticsReport", "ReactiveDiagnosticsSymbolication",
                "ReactiveDiagnosticsRetainPaths", "_ReactiveDiagnosticsProcess", "_ReactiveDiagnosticsSupport",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Adapters
        .target(
            name: "CombineDiagnostics",
            dependencies: [
                "ReactiveDiagnostics", "CReactiveDiagnostics", "ReactiveDiagnosticsRetainPaths",
                "_ReactiveDiagnosticsSupport",
            ] + openCombine,
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EffectDiagnostics",
            dependencies: ["ReactiveDiagnostics", "_ReactiveDiagnosticsSupport"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ConcurrencyDiagnostics",
            dependencies: ["ReactiveDiagnostics", "CReactiveDiagnostics", "_ReactiveDiagnosticsSupport"],
            swiftSettings: swiftSettings
        ),

        // MARK: The RxSwift adapter, with the trait RxSwift (every file is `#if RxSwift`). Its
        // sources stay beside its tests, benchmark and guide snippets, in the nested package
        // Integrations/RxSwift/RxDiagnostics, which depends on this one with the trait on.
        .target(
            name: "RxDiagnostics",
            dependencies: [
                "ReactiveDiagnostics", "ReactiveDiagnosticsReport",
                .product(name: "RxSwift", package: "RxSwift", condition: .when(traits: ["RxSwift"])),
            ],
            path: "Integrations/RxSwift/RxDiagnostics/Sources/RxDiagnostics",
            swiftSettings: swiftSettings
        ),

        // MARK: Test glue
        .target(
            name: "ReactiveDiagnosticsXCTest",
            dependencies: ["ReactiveDiagnostics", "_ReactiveDiagnosticsSupport"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ReactiveDiagnosticsTesting",
            dependencies: ["ReactiveDiagnostics", "_ReactiveDiagnosticsSupport"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tools
        .target(
            name: "ReactiveDiagTool",
            dependencies: [
                "ReactiveDiagnosticsReport",
                "ReactiveDiagnosticsSymbolication",
                "_ReactiveDiagnosticsProcess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/reactive-diag/ReactiveDiagTool",
            swiftSettings: swiftSettings
        ),
        // `reactive-diag fix`: source edits for the mechanical fixes, on swift-syntax. A target of
        // its own so that ReactiveDiagTool (which DocSnippets links) stays free of swift-syntax;
        // the executable registers its command and its fixer with ReactiveDiagTool.
        .target(
            name: "ReactiveDiagFix",
            dependencies: [
                "ReactiveDiagTool", "ReactiveDiagnosticsReport", "_ReactiveDiagnosticsProcess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ],
            path: "Tools/reactive-diag/ReactiveDiagFix",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "reactive-diag",
            dependencies: ["ReactiveDiagTool", "ReactiveDiagFix"],
            path: "Tools/reactive-diag/Main",
            swiftSettings: swiftSettings
        ),
        // MARK: Tests

        // Every Swift block of README.md and Docs/, compiled (not a product; nothing runs it).
        // DocumentationSnippetTests checks the guides against these files.
        .target(
            name: "DocSnippets",
            dependencies: [
                "ReactiveDiagnostics", "ReactiveDiagnosticsReport", "CombineDiagnostics", "EffectDiagnostics",
                "ConcurrencyDiagnostics", "ReactiveDiagnosticsXCTest", "ReactiveDiagnosticsTesting", "ReactiveDiagTool",
                .product(name: "CombineSchedulers", package: "combine-schedulers"),
            ] + openCombine,
            path: "Tests/DocSnippets",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),

        // Closures capturing every kind of value, for the retain-path walker: run by the engine's
        // tests (debug) and by retain-path-fuzz (release, in Tools/test.sh).
        .target(
            name: "RetainPathFuzzCases",
            dependencies: ["ReactiveDiagnostics", "ReactiveDiagnosticsRetainPaths"],
            path: "Tests/RetainPathFuzzCases",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "retain-path-fuzz",
            dependencies: ["RetainPathFuzzCases"],
            path: "Tools/RetainPathFuzz",
            swiftSettings: swiftSettings
        ),

        // Helpers shared by the test targets (child processes, temporary directories).
        .target(
            name: "ReactiveDiagnosticsTestSupport",
            dependencies: ["ReactiveDiagnostics", "_ReactiveDiagnosticsProcess", "_ReactiveDiagnosticsSupport"],
            path: "Tests/ReactiveDiagnosticsTestSupport",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "_SerialDeliveryStressHarness",
            dependencies: ["ReactiveDiagnostics"],
            path: "Tests/SerialDeliveryStressHarness",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReactiveDiagnosticsReportTests",
            dependencies: ["ReactiveDiagnosticsReport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReactiveDiagnosticsTests",
            dependencies: [
                "ReactiveDiagnosticsTestSupport", "ReactiveDiagnostics", "RetainPathFuzzCases",
                "ReactiveDiagnosticsRetainPaths", "ReactiveDiagnosticsSymbolication", "_ReactiveDiagnosticsSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CombineDiagnosticsTests",
            dependencies: [
                "ReactiveDiagnosticsTestSupport",
                "_SerialDeliveryStressHarness",
                "CombineDiagnostics",
                // FixedShapeTests: `reactive-diag fix` on real leaks, the fixed code run again.
                "ReactiveDiagFix",
                .product(name: "CombineSchedulers", package: "combine-schedulers"),
            ] + openCombine,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EffectDiagnosticsTests",
            dependencies: [
                "ReactiveDiagnosticsTestSupport", "EffectDiagnostics", "_ReactiveDiagnosticsSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConcurrencyDiagnosticsTests",
            dependencies: [
                "ReactiveDiagnosticsTestSupport", "ConcurrencyDiagnostics", "ReactiveDiagnosticsTesting",
                "ReactiveDiagnosticsXCTest", "ReactiveDiagnosticsSymbolication",
            ] + openCombine,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReactiveDiagnosticsXCTestTests",
            dependencies: [
                "ReactiveDiagnosticsTestSupport", "ReactiveDiagnosticsXCTest", "ReactiveDiagnosticsSymbolication",
                "CombineDiagnostics", "_ReactiveDiagnosticsSupport",
            ] + openCombine,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReactiveDiagnosticsTestingTests",
            dependencies: [
                "ReactiveDiagnosticsTestSupport", "ReactiveDiagnosticsTesting", "_ReactiveDiagnosticsSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DemoSuiteTests",
            dependencies: ["ReactiveDiagnosticsTestSupport", "ReactiveDiagFix", "ReactiveDiagTool"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReactiveDiagToolTests",
            dependencies: [
                "ReactiveDiagnosticsTestSupport", "ReactiveDiagTool", "ReactiveDiagFix",
                "ReactiveDiagnosticsSymbolication", "reactive-diag",
            ],
            exclude: ["Golden"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
    ]
)
