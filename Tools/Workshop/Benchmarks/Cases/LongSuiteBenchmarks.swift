import Foundation
import _ReactiveDiagnosticsBenchmarkHarness

/// A long suite of correct code: a generated package of 2,000 XCTest tests, each making and
/// dropping a view model with a diagnosed scheduler, OpenCombine subscriptions (a diagnosed
/// stage, global instrumentation on), a diagnosed `AsyncStream` and a diagnosed task. Run with
/// diagnostics on and off, alternately, in the same run, as the `suites` rows do.
///
/// What it answers: does a long suite pay memory per test (a checker that keeps something of
/// every scheduler, subscription, stream or task that lived and ended grows with the suite),
/// and what does it cost in wall time. Memory per test is the growth of the heap in use at the
/// end of the run (`mallinfo2`, printed by the generated suite when its bundle finishes) from the
/// first class's 100 tests to all 2,000, per test added, diagnosed minus plain: XCTest on Linux
/// keeps every test case instance to the end, which the plain run pays as much as the diagnosed
/// one, so only what diagnostics keep per test remains. Not peaks: the diagnosed run peaks on a
/// transient of about 10 MB that a single test already reaches (symbol and line tables read),
/// and growth under it read as negative (−1.6 to −2.0 KB a test).
///
/// The package is generated under `.build/benchmarks/long-suite` (its sources are rewritten
/// only when they change) and built there once; later runs reuse the build (an incremental
/// `swift build`, a few seconds when nothing changed).
enum LongSuiteBenchmarks {
    static let classCount = 20
    static let testsPerClass = 100
    static var testCount: Int { classCount * testsPerClass }

    /// Target of the memory per test (bytes). What diagnostics keep per test by design: the
    /// test's name, interned for the report (an intern table's dictionary entry and array slot,
    /// about 150 bytes for names of this length), and the probe of its diagnosed scheduler
    /// (under 100 bytes while probes are kept); measured as heap in use (`mallinfo2`) at exit,
    /// 100 tests against 2,000, that is about 700 bytes a test. 1.5 KiB a test (3 MB over 2,000
    /// tests) holds that and is broken by anything more per test: a scheduler's statistics kept
    /// per instance (23 KB, issue 30), a subscription's or a task's record kept after it ended.
    /// A leak in the suite's code itself fails its tests (`longSuite.failedRuns`).
    static let memoryPerTestTarget = 1_536.0

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        guard let binary = prepare() else { return [] }
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("rd-long-suite-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: reports) }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REACTIVE_DIAGNOSTICS_") }
        environment["REACTIVE_DIAGNOSTICS_REPORT"] = reports + "/report-%n-%p.json"
        environment["REACTIVE_DIAGNOSTICS_SUMMARY"] = "0"
        let firstClass = "LongSuiteTests.\(className(0))"

        let output = reports + "/xctest-output.txt"
        func once(
            diagnosed: Bool, filter: String?
        ) -> (seconds: Double, peak: Int, heap: Int?, cpu: Double, status: Int32, stalls: XCTestStalls) {
            var environment = environment
            if !diagnosed {
                environment["REACTIVE_DIAGNOSTICS_ENABLED"] = "0"
                environment["REACTIVE_DIAGNOSTICS_WRITE_REPORT"] = "0"
            }
            let started = now()
            let result = ChildProcess.run(
                binary, arguments: filter.map { [$0] } ?? [], environment: environment, timeout: 600,
                measuresPeakMemory: true, standardOutput: output)
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return (
                Double(now() - started) / 1e9, result.peakResidentBytes, heapInUse(output: text), result.cpuSeconds,
                result.status, XCTestStalls(output: text)
            )
        }

        _ = once(diagnosed: true, filter: nil)  // warm the page cache and the symbolizer
        var plain: [Double] = []
        var diagnosed: [Double] = []
        var plainPeak: [Double] = []
        var diagnosedPeak: [Double] = []
        var perTest: [Double] = []
        var cpuRatios: [Double] = []
        var beyondStalls: [Double] = []
        var stallCounts = (plain: [Double](), diagnosed: [Double]())
        var failures: [String] = []
        let added = Double(testCount - testsPerClass)
        _ = Measure.rounds(
            minimum: context.repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance
        ) { repetition in
            var seconds = (plain: 0.0, diagnosed: 0.0)
            var cpu = (plain: 0.0, diagnosed: 0.0)
            var growth = (plain: 0.0, diagnosed: 0.0)
            var stalled = (plain: 0.0, diagnosed: 0.0)
            for diagnose in repetition % 2 == 0 ? [false, true] : [true, false] {
                let all = once(diagnosed: diagnose, filter: nil)
                let first = once(diagnosed: diagnose, filter: firstClass)
                for (run, status) in [("all tests", all.status), ("the first class", first.status)] where status != 0 {
                    failures.append("\(run), diagnostics \(diagnose ? "on" : "off"): exit \(status)")
                }
                var perAddedTest = Double.nan
                if let allHeap = all.heap, let firstHeap = first.heap {
                    perAddedTest = Double(allHeap - firstHeap) / added
                } else {
                    failures.append(
                        "diagnostics \(diagnose ? "on" : "off"): no heap in use printed at the end of a run")
                }
                if diagnose {
                    seconds.diagnosed = all.seconds
                    cpu.diagnosed = all.cpu
                    growth.diagnosed = perAddedTest
                    stalled.diagnosed = all.stalls.seconds
                    stallCounts.diagnosed.append(Double(all.stalls.count))
                    diagnosedPeak.append(Double(all.peak) / 1_048_576)
                } else {
                    seconds.plain = all.seconds
                    cpu.plain = all.cpu
                    growth.plain = perAddedTest
                    stalled.plain = all.stalls.seconds
                    stallCounts.plain.append(Double(all.stalls.count))
                    plainPeak.append(Double(all.peak) / 1_048_576)
                }
            }
            plain.append(seconds.plain)
            diagnosed.append(seconds.diagnosed)
            if !(growth.diagnosed - growth.plain).isNaN {
                perTest.append(growth.diagnosed - growth.plain)
            }
            if seconds.plain > stalled.plain {
                beyondStalls.append((seconds.diagnosed - stalled.diagnosed) / (seconds.plain - stalled.plain))
            }
            if cpu.plain > 0 {
                cpuRatios.append(cpu.diagnosed / cpu.plain)
            }
            return seconds.diagnosed / seconds.plain
        }
        var results = [
            BenchmarkResult(
                name: "longSuite.plain", unit: "s/run", statistics: Statistics(plain),
                notes: [
                    "what":
                        "\(testCount) generated XCTest tests (view model, diagnosed scheduler, subscriptions, stream, task), without diagnostics"
                ]),
            BenchmarkResult(name: "longSuite.diagnosed", unit: "s/run", statistics: Statistics(diagnosed)),
            BenchmarkResult(
                name: "longSuite.wallRatio", unit: "×", statistics: Statistics(zip(diagnosed, plain).map { $0 / $1 }),
                target: .atMost(1.25),
                notes: [
                    "why it can be under 1":
                        "the plain run pays swift-corelibs-xctest's lost wake-ups (an async test that waits out 100 ms), which the diagnosed run is spared (AsyncTestWake)"
                ]),
            BenchmarkResult(
                name: "longSuite.failedRuns", unit: "runs", statistics: Statistics([Double(failures.count)]),
                target: .atMost(0), notes: failures.isEmpty ? [:] : ["failed": failures.joined(separator: "; ")]),
        ]
        results += [
            BenchmarkResult(
                name: "longSuite.stalledTests.plain", unit: "tests/run", statistics: Statistics(stallCounts.plain),
                notes: [
                    "what":
                        "tests that XCTest timed at \(XCTestStalls.threshold) s or more: an async test whose end the main run loop missed, waiting out XCTWaiter's 100 ms"
                ]),
            BenchmarkResult(
                name: "longSuite.stalledTests.diagnosed", unit: "tests/run",
                statistics: Statistics(stallCounts.diagnosed)),
        ]
        if !beyondStalls.isEmpty {
            results.append(
                BenchmarkResult(
                    name: "longSuite.wallRatioBeyondStalls", unit: "×", statistics: Statistics(beyondStalls),
                    notes: [
                        "what":
                            "the wall ratio with each run's stalled tests' time taken out: what diagnostics cost where XCTest does not stall"
                    ]))
        }
        if !cpuRatios.isEmpty {
            results.append(
                BenchmarkResult(
                    name: "longSuite.cpuRatio", unit: "×", statistics: Statistics(cpuRatios),
                    notes: [
                        "what":
                            "CPU time (user + system) of the test process, diagnosed over plain: the work, apart from waits"
                    ]))
        }
        for failure in failures { warn(failure) }
        if (plainPeak + diagnosedPeak).contains(0) {
            warn("no peak memory rows: the test processes' peaks could not be read")
        } else {
            results += [
                BenchmarkResult(name: "longSuite.peakMemoryPlain", unit: "MiB", statistics: Statistics(plainPeak)),
                BenchmarkResult(
                    name: "longSuite.peakMemoryDiagnosed", unit: "MiB", statistics: Statistics(diagnosedPeak)),
            ]
        }
        guard !perTest.isEmpty else {
            warn("no memory per test: the generated suite printed no heap in use")
            return results
        }
        results += [
            BenchmarkResult(
                name: "longSuite.memoryPerTest", unit: "bytes/test", statistics: Statistics(perTest),
                target: .atMost(memoryPerTestTarget),
                notes: [
                    "what":
                        "growth of the heap in use at the end of a run (mallinfo2) from \(testsPerClass) to \(testCount) tests, per test added, diagnosed minus plain"
                ])
        ]
        return results
    }

    /// The line the generated suite prints when its bundle finishes.
    static let heapLinePrefix = "long-suite heap in use: "

    /// The heap in use (bytes) that the generated suite printed at the end of its run.
    static func heapInUse(output: String) -> Int? {
        output.split(separator: "\n").lazy.compactMap { line -> Int? in
            line.hasPrefix(heapLinePrefix) ? Int(line.dropFirst(heapLinePrefix.count)) : nil
        }.last
    }

    // MARK: The generated package

    static func className(_ index: Int) -> String {
        "Generated\(index < 10 ? "0" : "")\(index)Tests"
    }

    /// Writes the package (files that changed only), builds its tests, and returns the test
    /// binary; `nil`, with a warning, where it cannot.
    static func prepare() -> String? {
        let root = FileManager.default.currentDirectoryPath
        guard FileManager.default.fileExists(atPath: root + "/Sources/ReactiveDiagnostics") else {
            warn("run the benchmark from the package's root for the long suite rows")
            return nil
        }
        let directory = root + "/.build/benchmarks/long-suite"
        do {
            for (path, contents) in files(root: root) {
                let url = URL(fileURLWithPath: directory + "/" + path)
                if (try? String(contentsOf: url, encoding: .utf8)) == contents { continue }
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try contents.write(to: url, atomically: true, encoding: .utf8)
            }
        } catch {
            warn("could not write the generated package: \(error)")
            return nil
        }
        let binary = directory + "/.build/debug/LongSuitePackageTests.xctest"
        warn("building the generated suite of \(testCount) tests (minutes the first time, seconds after)…")
        let build = ChildProcess.run(
            "/usr/bin/env", arguments: ["swift", "build", "--package-path", directory, "--build-tests"],
            timeout: 3_600)
        guard build.status == 0, FileManager.default.isExecutableFile(atPath: binary) else {
            warn("the generated suite did not build (swift build --package-path \(directory) --build-tests); no rows")
            return nil
        }
        return binary
    }

    /// The package's files, by path relative to its directory.
    static func files(root: String) -> [String: String] {
        var files = [
            "Package.swift": manifest(root: root),
            "Sources/LongSuiteApp/ScreenModel.swift": screenModel,
            "Sources/HeapInUse/heap_in_use.c": heapInUseSource,
            "Sources/HeapInUse/include/HeapInUse.h": heapInUseHeader,
            "Tests/LongSuiteTests/LongSuiteTestCase.swift": testCase,
        ]
        for index in 0..<classCount {
            let name = className(index)
            var text = "import XCTest\n\nfinal class \(name): LongSuiteTestCase {\n"
            for test in 0..<testsPerClass {
                let seed = index * testsPerClass + test
                text += "    func testScreen\(seed)() async { await exercise(\(seed)) }\n"
            }
            text += "}\n"
            files["Tests/LongSuiteTests/\(name).swift"] = text
        }
        return files
    }

    static func manifest(root: String) -> String {
        """
        // swift-tools-version: 6.1
        // Generated by reactive-diag-benchmark (Tools/Workshop/Benchmarks/Cases/LongSuiteBenchmarks.swift).
        import PackageDescription

        let package = Package(
            name: "LongSuite",
            platforms: [.macOS(.v15)],
            dependencies: [
                .package(name: "ReactiveDiagnostics", path: "\(root)"),
                .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
            ],
            targets: [
                .target(name: "LongSuiteApp", dependencies: [.product(name: "OpenCombineShim", package: "OpenCombine")]),
                .target(name: "HeapInUse"),
                .testTarget(
                    name: "LongSuiteTests",
                    dependencies: [
                        "HeapInUse",
                        "LongSuiteApp",
                        .product(name: "CombineDiagnostics", package: "ReactiveDiagnostics"),
                        .product(name: "ConcurrencyDiagnostics", package: "ReactiveDiagnostics"),
                        .product(name: "ReactiveDiagnosticsXCTest", package: "ReactiveDiagnostics"),
                    ]
                ),
            ],
            swiftLanguageModes: [.v5]
        )

        """
    }

    /// Bytes in use on the heap, for the memory row (glibc's `mallinfo2`, which Swift's Glibc
    /// module does not declare; 0 elsewhere).
    static let heapInUseSource = """
        #include "HeapInUse.h"
        #include <stdlib.h>  // defines __GLIBC__ where it is glibc
        #if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
        #include <malloc.h>
        unsigned long long long_suite_heap_in_use(void) {
            struct mallinfo2 info = mallinfo2();
            return (unsigned long long)(info.uordblks + info.hblkhd);
        }
        #else
        unsigned long long long_suite_heap_in_use(void) { return 0; }
        #endif

        """

    static let heapInUseHeader = """
        /// Bytes in use on the heap (glibc's `mallinfo2`: small blocks and mapped ones); 0 elsewhere.
        unsigned long long long_suite_heap_in_use(void);

        """

    /// The app: a view model as the guides write one, its scheduler injected.
    static let screenModel = """
        import Dispatch
        import Foundation
        import OpenCombineShim

        /// A screen's model: doubles what it is sent and delivers it on its scheduler.
        public final class ScreenModel<S: Scheduler> {
            public let input = PassthroughSubject<Int, Never>()
            private let lock = NSLock()
            private var sum = 0
            private var cancellables: Set<AnyCancellable> = []

            public init(scheduler: S) {
                input.map { $0 * 2 }
                    .receive(on: scheduler)
                    .sink { [weak self] value in self?.add(value) }
                    .store(in: &cancellables)
            }

            public var total: Int { lock.lock(); defer { lock.unlock() }; return sum }

            private func add(_ value: Int) { lock.lock(); sum += value; lock.unlock() }

            public func close() { cancellables.removeAll() }
        }

        """

    /// What every test does, with its number as the seed.
    static let testCase = """
        import CombineDiagnostics
        import ConcurrencyDiagnostics
        import Dispatch
        import Foundation
        import LongSuiteApp
        import OpenCombineShim
        import HeapInUse
        import ReactiveDiagnosticsXCTest
        import XCTest

        /// Global Combine instrumentation, started once for the process (it stays off when
        /// REACTIVE_DIAGNOSTICS_ENABLED=0 switches the engine off).
        let instrumentation: Void = {
            if DiagnosticsEngine.shared.isEnabled { CombineInstrumentation.start() }
        }()

        /// Prints the heap in use when the run ends: what the benchmark's memory row reads.
        final class HeapReporter: NSObject, XCTestObservation {
            static let registered: Void = { XCTestObservationCenter.shared.addTestObserver(HeapReporter()) }()

            func testBundleDidFinish(_ testBundle: Bundle) {
                let bytes = long_suite_heap_in_use()
                if bytes > 0 { print("\(heapLinePrefix)\\(bytes)") }
            }
        }

        class LongSuiteTestCase: DiagnosedTestCase {
            override class func setUp() {
                super.setUp()
                _ = instrumentation
                _ = HeapReporter.registered
            }

            /// Makes and drops a view model with a diagnosed scheduler, a diagnosed stage, a
            /// diagnosed stream read by a diagnosed task: correct code, nothing left alive.
            func exercise(_ seed: Int) async {
                let label = "screen-\\(seed % 10)"
                let queue = DispatchQueue(label: label)
                let model = ScreenModel(scheduler: queue.diagnosed(label))
                let extra = model.input.diagnosed("\\(label).input").sink { _ in }
                let count = seed % 5 + 3
                for value in 0..<count { model.input.send(value) }
                queue.sync {}
                XCTAssertEqual(model.total, count * (count - 1))
                extra.cancel()
                model.close()

                let (stream, continuation) = AsyncStream.makeDiagnosedStream("\\(label).events", of: Int.self)
                let reader = Task.diagnosed("\\(label).reader") {
                    var sum = 0
                    for await value in stream { sum += value }
                    return sum
                }
                for value in 0..<count { continuation.yield(value) }
                continuation.finish()
                let sum = await reader.value
                XCTAssertEqual(sum, count * (count - 1) / 2)
            }
        }

        """

    private static func warn(_ text: String) {
        FileHandle.standardError.write(Data("longSuite: \(text)\n".utf8))
    }
}
