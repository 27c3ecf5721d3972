import Foundation
import _ReactiveDiagnosticsBenchmarkHarness

/// What a user feels: whole test suites run without and with diagnostics, alternately, in the
/// same run; the wall time of a run and the test process's peak memory (its own high-water
/// mark: wait4's `ru_maxrss` of the process, read by the small `peak-rss` helper that starts it,
/// so that what Linux folds into a child at exec is the helper's few pages, not this
/// benchmark's memory).
///
/// The suites: the demo app's (Examples/Demo, XCTest and Swift Testing: the fixed app, whose
/// tests pass, and for information the buggy one, whose leaks each cost a settle wait by
/// design). A suite is the test binary run directly, once per testing library, as `swift test`
/// does (SwiftPM's own start-up would only dilute the ratio). "Without diagnostics" is the
/// same binary with `REACTIVE_DIAGNOSTICS_ENABLED=0` and no report: the adapters pass every
/// event through unchecked.
enum SuiteBenchmarks {
    struct Suite {
        let name: String
        let what: String
        /// One run: the commands (executable and arguments) run one after the other.
        let commands: [(String, [String])]
        let environment: [String: String]
        /// Whether its target is "what a user feels" (a suite without bugs).
        let hasTargets: Bool
    }

    /// The demo's test binary, built first (`nil` where it cannot be): always, since a binary
    /// left from an earlier build links the library as it was then (an incremental build of an
    /// up-to-date one takes a second or two).
    static func demoBinary() -> String? {
        let root = FileManager.default.currentDirectoryPath
        let demo = root + "/Examples/Demo"
        guard FileManager.default.fileExists(atPath: demo + "/Package.swift") else {
            warn("no Examples/Demo under \(root): run the benchmark from the package's root for the suite rows")
            return nil
        }
        let binary = demo + "/.build/debug/ReactiveDiagnosticsDemoPackageTests.xctest"
        if !FileManager.default.isExecutableFile(atPath: binary) {
            warn("building Examples/Demo's tests for the suite rows (a few minutes the first time)…")
        }
        let build = ChildProcess.run(
            "/usr/bin/env", arguments: ["swift", "build", "--package-path", demo, "--build-tests"], timeout: 3_600)
        guard build.status == 0, FileManager.default.isExecutableFile(atPath: binary) else {
            warn("Examples/Demo did not build; no suite rows")
            return nil
        }
        return binary
    }

    static func suites(reports: String) -> [Suite] {
        guard let binary = demoBinary() else { return [] }
        let commands = [(binary, [String]()), (binary, ["--testing-library", "swift-testing"])]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REACTIVE_DIAGNOSTICS_") }
        environment["REACTIVE_DIAGNOSTICS_REPORT"] = reports + "/report-%n-%p.json"
        environment["REACTIVE_DIAGNOSTICS_SUMMARY"] = "0"
        var fixed = environment
        fixed["DEMO_FIXED"] = "1"
        var buggy = environment
        buggy["DEMO_FIXED"] = "0"
        return [
            Suite(
                name: "demo", what: "Examples/Demo's tests (XCTest + Swift Testing), the fixed app",
                commands: commands, environment: fixed, hasTargets: true),
            Suite(
                name: "demoBuggy",
                what:
                    "the same tests on the buggy app: each leak is decided once nothing in flight could end it, then explained",
                commands: commands, environment: buggy, hasTargets: true),
        ]
    }

    /// One run of `suite`: seconds of wall time and the largest peak memory of its processes.
    static func runOnce(_ suite: Suite, diagnosed: Bool) -> (seconds: Double, peakBytes: Int) {
        var environment = suite.environment
        if !diagnosed {
            environment["REACTIVE_DIAGNOSTICS_ENABLED"] = "0"
            environment["REACTIVE_DIAGNOSTICS_WRITE_REPORT"] = "0"
        }
        var peak = 0
        let started = now()
        for (executable, arguments) in suite.commands {
            let result = ChildProcess.run(
                executable, arguments: arguments, environment: environment, timeout: 600, measuresPeakMemory: true)
            peak = max(peak, result.peakResidentBytes)
        }
        return (Double(now() - started) / 1e9, peak)
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("rd-suite-benchmark-\(getpid())")
            .path
        try? FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: reports) }
        // Each sample is several runs, alternating without and with diagnostics.
        let runsPerSample = context.quick ? 1 : 3
        var results: [BenchmarkResult] = []
        for suite in suites(reports: reports) {
            _ = runOnce(suite, diagnosed: true)  // warm the page cache and the symbolizer
            var plain: [Double] = []
            var diagnosed: [Double] = []
            var plainPeak: [Double] = []
            var diagnosedPeak: [Double] = []
            // A suite with a target is measured again while its ratio's median is not settled.
            let maximum = suite.hasTargets ? context.maximumRepetitions : context.repetitions
            _ = Measure.rounds(minimum: context.repetitions, maximum: maximum, tolerance: context.settledTolerance) {
                repetition in
                var seconds = (plain: [Double](), diagnosed: [Double]())
                var peaks = (plain: 0, diagnosed: 0)
                for run in 0..<runsPerSample {
                    for diagnose in (repetition + run) % 2 == 0 ? [false, true] : [true, false] {
                        let (time, peak) = runOnce(suite, diagnosed: diagnose)
                        if diagnose {
                            seconds.diagnosed.append(time)
                            peaks.diagnosed = max(peaks.diagnosed, peak)
                        } else {
                            seconds.plain.append(time)
                            peaks.plain = max(peaks.plain, peak)
                        }
                    }
                }
                // The median run of the sample, not the mean: a suite whose run now and then
                // takes twice as long (the buggy demo's clock test, 1 run in 7 without
                // diagnostics) would move the mean of three by a third.
                let sample = (plain: median(seconds.plain), diagnosed: median(seconds.diagnosed))
                plain.append(sample.plain)
                diagnosed.append(sample.diagnosed)
                plainPeak.append(Double(peaks.plain) / 1_048_576)
                diagnosedPeak.append(Double(peaks.diagnosed) / 1_048_576)
                return sample.diagnosed / sample.plain
            }
            let prefix = "suites.\(suite.name)"
            results.append(
                BenchmarkResult(
                    name: "\(prefix).plain", unit: "s/run", statistics: Statistics(plain),
                    notes: ["what": suite.what + ", without diagnostics"]))
            results.append(
                BenchmarkResult(name: "\(prefix).diagnosed", unit: "s/run", statistics: Statistics(diagnosed)))
            results.append(
                BenchmarkResult(
                    name: "\(prefix).wallRatio", unit: "×",
                    statistics: Statistics(zip(diagnosed, plain).map { $0 / $1 }),
                    target: suite.hasTargets ? .atMost(1.25) : nil))
            guard !(plainPeak + diagnosedPeak).contains(0) else {
                warn(
                    "\(suite.name): no peak memory rows: the test processes' peaks could not be read (tracing a child is not permitted here)"
                )
                continue
            }
            results.append(
                BenchmarkResult(
                    name: "\(prefix).peakMemoryPlain", unit: "MiB", statistics: Statistics(plainPeak)))
            results.append(
                BenchmarkResult(
                    name: "\(prefix).peakMemoryDiagnosed", unit: "MiB", statistics: Statistics(diagnosedPeak)))
            results.append(
                BenchmarkResult(
                    name: "\(prefix).peakMemoryAdded", unit: "MiB",
                    statistics: Statistics(zip(diagnosedPeak, plainPeak).map { $0 - $1 }),
                    target: suite.hasTargets ? .atMost(50) : nil))
        }
        return results
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    private static func warn(_ text: String) {
        FileHandle.standardError.write(Data("suites: \(text)\n".utf8))
    }
}
