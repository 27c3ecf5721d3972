import Foundation
import ReactiveDiagnostics

/// The instrumentation-cost benchmark: every instrumented case measured against its
/// uninstrumented twin in the same run; prints a table and writes JSON.
///
/// ```
/// swift run -c release reactive-diag-benchmark [--quick] [--repetitions N] [--json FILE] [--only PREFIX]
/// ```
@main
struct Benchmarks {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func option(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
            defer { arguments.removeSubrange(index...(index + 1)) }
            return arguments[index + 1]
        }
        let quick = arguments.contains("--quick")
        if let index = arguments.firstIndex(of: "--profile"), index + 1 < arguments.count {
            // A single case in a loop, for a profiler: `--profile subscribeCancel|scheduler`.
            Profiling.run(arguments[index + 1])
            return
        }
        let repetitions = Int(option("--repetitions") ?? "") ?? (quick ? 3 : 7)
        let jsonPath = option("--json") ?? ".build/benchmarks/results.json"
        let only = option("--only")
        let context = BenchmarkContext(quick: quick, repetitions: max(repetitions, 1))
        #if DEBUG
        FileHandle.standardError.write(Data("warning: a debug build; run with -c release for real figures\n".utf8))
        #endif

        let suites: [(String, (BenchmarkContext) -> [BenchmarkResult])] = [
            ("capture", CaptureBenchmarks.run),
            ("ledger", LedgerBenchmarks.run),
            ("memory", MemoryBenchmark.run),
            ("combine", CombineBenchmarks.run),
            ("scheduler", SchedulerBenchmarks.run),
            ("report", ReportBenchmarks.run),
        ]
        var results: [BenchmarkResult] = []
        let started = now()
        for (name, run) in suites where only.map({ name.hasPrefix($0) || $0.hasPrefix(name) }) ?? true {
            FileHandle.standardError.write(Data("running \(name)…\n".utf8))
            let suiteResults = run(context).filter { result in
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
        let url = URL(fileURLWithPath: jsonPath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(run).write(to: url)
        let missed = results.filter { $0.met == false }
        print(BenchmarkTable.summary(results: results, seconds: Double(now() - started) / 1e9, json: jsonPath))
        if !missed.isEmpty && arguments.contains("--strict") {
            exit(1)
        }
    }
}
