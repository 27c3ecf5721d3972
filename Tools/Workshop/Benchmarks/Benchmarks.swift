import ArgumentParser
import Foundation
import _ReactiveDiagnosticsBenchmarkHarness

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
        abstract:
            "What ReactiveDiagnostics' instrumentation costs, against the uninstrumented twin of each case in the same run.",
        discussion: """
            Prints a table (median, spread and the target of each ratio) and writes every figure as JSON. \
            Build with -c release: a debug build's figures mean nothing. Docs/Performance.md explains each case.
            """)

    /// The suites, in the order they run (`suites` runs whole test suites: what a user feels).
    static let suites: [BenchmarkSuite] = [
        BenchmarkSuite("capture", run: CaptureBenchmarks.run),
        BenchmarkSuite("ledger", run: LedgerBenchmarks.run),
        BenchmarkSuite("memory", run: MemoryBenchmark.run),
        BenchmarkSuite("combine", run: CombineBenchmarks.run),
        BenchmarkSuite("scheduler", run: SchedulerBenchmarks.run),
        BenchmarkSuite("concurrency", run: ConcurrencyBenchmarks.run),
        BenchmarkSuite("findings", run: FindingBenchmarks.run),
        BenchmarkSuite("report", run: ReportBenchmarks.run),
        BenchmarkSuite("suites", run: SuiteBenchmarks.run),
        BenchmarkSuite("longSuite", run: LongSuiteBenchmarks.run),
        BenchmarkSuite("retainPaths", run: RetainPathBenchmarks.run),
    ]

    @Flag(help: "Fewer operations and 3 repetitions: a smoke run, not figures to quote.")
    var quick = false

    @Option(help: "Repetitions of each measurement (default 7, 3 with --quick).")
    var repetitions: Int?

    @Option(
        help: ArgumentHelp(
            "Repetitions a ratio with a target may take while its median is not known to within 3% (default 3 × --repetitions; 0 or --quick: never more than --repetitions).",
            valueName: "n"))
    var maxRepetitions: Int?

    @Option(help: ArgumentHelp("Where the JSON results go.", valueName: "file"))
    var json = ".build/benchmarks/results.json"

    @Option(
        help: ArgumentHelp(
            "Only the suite named (\(Benchmarks.suites.map(\.name).joined(separator: ", "))), or only the results whose name starts with a dotted prefix (combine.send).",
            valueName: "prefix"))
    var only: String?

    @Flag(help: "Exit 1 when a target is missed.")
    var strict = false

    @Option(
        help: ArgumentHelp(
            "Run one case in a loop for a profiler instead: \(Profiling.names.joined(separator: ", ")).",
            valueName: "case"))
    var profile: String?

    @Option(help: ArgumentHelp("With --profile: how many operations (each case has its default).", valueName: "n"))
    var operations: Int?

    func validate() throws {
        if let repetitions, repetitions < 1 {
            throw ValidationError("--repetitions must be at least 1, not \(repetitions)")
        }
        if let maxRepetitions, maxRepetitions < 0 {
            throw ValidationError("--max-repetitions must not be negative, not \(maxRepetitions)")
        }
        if let operations, operations < 0 {
            throw ValidationError("--operations must not be negative, not \(operations)")
        }
        if let profile, !Profiling.names.contains(profile) {
            throw ValidationError(
                "unknown --profile case '\(profile)'; one of: \(Profiling.names.joined(separator: ", "))")
        }
        if let only, Self.suites.allSatisfy({ !BenchmarkRunner.selects(only, suite: $0.name) }) {
            throw ValidationError(
                "--only '\(only)' matches no suite; the suites are \(Self.suites.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        if let profile {
            Profiling.run(profile, operations: operations)
            return
        }
        let repetitions = repetitions ?? (quick ? 3 : 7)
        let maximum = quick ? repetitions : maxRepetitions.map { $0 == 0 ? repetitions : $0 } ?? 3 * repetitions
        let context = BenchmarkContext(quick: quick, repetitions: repetitions, maximumRepetitions: maximum)
        let results = try BenchmarkRunner.run(Self.suites, context: context, only: only, json: json)
        let missed = results.filter { $0.met == false }
        if !missed.isEmpty && strict {
            throw ExitCode(1)
        }
    }
}
