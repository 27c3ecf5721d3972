import ArgumentParser
import Foundation
import ReactiveDiagnostics

/// The instrumentation-cost benchmark: every instrumented case measured against its
/// uninstrumented twin in the same run; prints a table and writes JSON.
///
/// ```
/// swift run -c release reactive-diag-benchmark [--quick] [--repetitions N] [--json FILE] [--only PREFIX] [--strict]
/// swift run -c release reactive-diag-benchmark --profile CASE
/// ```
@main
struct Benchmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reactive-diag-benchmark",
        abstract: "What ReactiveDiagnostics' instrumentation costs, against the uninstrumented twin of each case in the same run.",
        discussion: """
            Prints a table (median, spread and the target of each ratio) and writes every figure as JSON. \
            Build with -c release: a debug build's figures mean nothing. Docs/Performance.md explains each case.
            """)

    /// The suites, in the order they run.
    static let suites: [(name: String, run: @Sendable (BenchmarkContext) -> [BenchmarkResult])] = [
        ("capture", CaptureBenchmarks.run),
        ("ledger", LedgerBenchmarks.run),
        ("memory", MemoryBenchmark.run),
        ("combine", CombineBenchmarks.run),
        ("scheduler", SchedulerBenchmarks.run),
        ("concurrency", ConcurrencyBenchmarks.run),
        ("report", ReportBenchmarks.run),
    ]

    @Flag(help: "Fewer operations and 3 repetitions: a smoke run, not figures to quote.")
    var quick = false

    @Option(help: "Repetitions of each measurement (default 7, 3 with --quick).")
    var repetitions: Int?

    @Option(help: ArgumentHelp("Where the JSON results go.", valueName: "file"))
    var json = ".build/benchmarks/results.json"

    @Option(help: ArgumentHelp(
        "Only the suite named (\(Benchmarks.suites.map(\.name).joined(separator: ", "))), or only the results whose name starts with a dotted prefix (combine.send).",
        valueName: "prefix"))
    var only: String?

    @Flag(help: "Exit 1 when a target is missed.")
    var strict = false

    @Option(help: ArgumentHelp(
        "Run one case in a loop for a profiler instead: \(Profiling.names.joined(separator: ", ")).", valueName: "case"))
    var profile: String?

    func validate() throws {
        if let repetitions, repetitions < 1 {
            throw ValidationError("--repetitions must be at least 1, not \(repetitions)")
        }
        if let profile, !Profiling.names.contains(profile) {
            throw ValidationError("unknown --profile case '\(profile)'; one of: \(Profiling.names.joined(separator: ", "))")
        }
        if let only, Self.suites.allSatisfy({ !Self.selects(only, suite: $0.name) }) {
            throw ValidationError("--only '\(only)' matches no suite; the suites are \(Self.suites.map(\.name).joined(separator: ", "))")
        }
    }

    /// Whether `--only value` runs the suite `name`: a suite's name, a prefix of it, or a
    /// dotted result name inside it.
    static func selects(_ value: String, suite name: String) -> Bool {
        name.hasPrefix(value) || value.hasPrefix(name + ".")
    }

    func run() throws {
        if let profile {
            Profiling.run(profile)
            return
        }
        let context = BenchmarkContext(quick: quick, repetitions: repetitions ?? (quick ? 3 : 7))
        #if DEBUG
        FileHandle.standardError.write(Data("warning: a debug build; run with -c release for real figures\n".utf8))
        #endif

        var results: [BenchmarkResult] = []
        let started = now()
        for suite in Self.suites where only.map({ Self.selects($0, suite: suite.name) }) ?? true {
            FileHandle.standardError.write(Data("running \(suite.name)…\n".utf8))
            let suiteResults = suite.run(context).filter { result in
                guard let only, only.contains(".") else { return true }
                return result.name.hasPrefix(only)
            }
            results += suiteResults
            print(BenchmarkTable.render(suiteResults), terminator: "")
        }
        let run = BenchmarkRun(
            machine: Machine.description, toolchain: Machine.toolchain, date: ReportDates.format(Date()),
            repetitions: context.repetitions, results: results)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = URL(fileURLWithPath: json)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(run).write(to: url)
        let missed = results.filter { $0.met == false }
        print(BenchmarkTable.summary(results: results, seconds: Double(now() - started) / 1e9, json: json))
        if !missed.isEmpty && strict {
            throw ExitCode(1)
        }
    }
}
