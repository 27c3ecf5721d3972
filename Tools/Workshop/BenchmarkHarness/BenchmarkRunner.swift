import Foundation
import ReactiveDiagnosticsReport

/// A named group of cases, run in one go.
public struct BenchmarkSuite: Sendable {
    /// The name `--only` selects it by.
    public var name: String
    /// Measures the cases and returns their results.
    public var run: @Sendable (BenchmarkContext) -> [BenchmarkResult]

    /// Creates a suite.
    public init(_ name: String, run: @escaping @Sendable (BenchmarkContext) -> [BenchmarkResult]) {
        self.name = name
        self.run = run
    }
}

/// Runs benchmark suites the way every ReactiveDiagnostics benchmark executable does: each
/// suite's table on standard output as it finishes, every figure as JSON, then a summary.
///
/// ```swift
/// let results = try BenchmarkRunner.run(
///     [BenchmarkSuite("ledger", run: LedgerBenchmarks.run)], context: BenchmarkContext(quick: false, repetitions: 7),
///     only: nil, json: ".build/benchmarks/results.json")
/// ```
public enum BenchmarkRunner {
    /// Whether `--only value` runs the suite `name`: a suite's name, a prefix of it, or a
    /// dotted result name inside it.
    public static func selects(_ value: String, suite name: String) -> Bool {
        name.hasPrefix(value) || value.hasPrefix(name + ".")
    }

    /// Runs the suites `only` selects (all when `nil`), prints their tables and the summary,
    /// writes the JSON to `json`, and returns the results.
    public static func run(
        _ suites: [BenchmarkSuite], context: BenchmarkContext, only: String?, json: String
    ) throws -> [BenchmarkResult] {
        #if DEBUG
        FileHandle.standardError.write(Data("warning: a debug build; run with -c release for real figures\n".utf8))
        #endif
        var results: [BenchmarkResult] = []
        let started = now()
        for suite in suites where only.map({ selects($0, suite: suite.name) }) ?? true {
            FileHandle.standardError.write(Data("running \(suite.name)…\n".utf8))
            let suiteResults = suite.run(context).filter { result in
                guard let only, only.contains(".") else { return true }
                return result.name.hasPrefix(only)
            }
            results += suiteResults
            print(BenchmarkTable.render(suiteResults, repetitions: context.repetitions), terminator: "")
        }
        let run = BenchmarkRun(
            machine: Machine.description, toolchain: Machine.toolchain, date: ReportDates.format(Date()),
            repetitions: context.repetitions, results: results)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = URL(fileURLWithPath: json)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(run).write(to: url)
        print(BenchmarkTable.summary(results: results, seconds: Double(now() - started) / 1e9, json: json))
        return results
    }
}
