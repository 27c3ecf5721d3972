import ArgumentParser
import _ReactiveDiagnosticsBenchmarkHarness

/// The RxSwift integration's benchmark: what `RxDiagnosticsHooks` costs, against RxSwift with the
/// hooks off, in the same run (Docs/Performance.md).
///
/// ```
/// swift run -c release --package-path Integrations/RxSwift/RxDiagnostics rx-diag-benchmark [--quick] [--repetitions N] [--json FILE] [--only PREFIX] [--strict]
/// ```
@main
struct RxBenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rx-diag-benchmark",
        abstract:
            "What RxDiagnosticsHooks costs a closure subscribe + dispose, against RxSwift with the hooks off, in the same run.",
        discussion:
            "Build with -c release: a debug build's figures mean nothing (except the debug-only cost of Single's call stacks)."
    )

    static let suites = [BenchmarkSuite("rxswift", run: RxBenchmarks.run)]

    @Flag(help: "Fewer operations and 3 repetitions: a smoke run, not figures to quote.")
    var quick = false

    @Option(help: "Repetitions of each measurement (default 7, 3 with --quick).")
    var repetitions: Int?

    @Option(help: ArgumentHelp("Where the JSON results go.", valueName: "file"))
    var json = ".build/benchmarks/rx-results.json"

    @Option(
        help: ArgumentHelp(
            "Only the results whose name starts with this dotted prefix (rxswift.subscribeDispose).",
            valueName: "prefix"))
    var only: String?

    @Flag(help: "Exit 1 when a target is missed.")
    var strict = false

    @Option(
        help: ArgumentHelp(
            "Run one case in a loop for a profiler instead: \(RxBenchmarks.profiles.map(\.name).joined(separator: ", ")).",
            valueName: "case"))
    var profile: String?

    func validate() throws {
        if let repetitions, repetitions < 1 {
            throw ValidationError("--repetitions must be at least 1, not \(repetitions)")
        }
        if let profile, !RxBenchmarks.profiles.contains(where: { $0.name == profile }) {
            throw ValidationError(
                "unknown --profile case '\(profile)'; one of: \(RxBenchmarks.profiles.map(\.name).joined(separator: ", "))"
            )
        }
        if let only, Self.suites.allSatisfy({ !BenchmarkRunner.selects(only, suite: $0.name) }) {
            throw ValidationError(
                "--only '\(only)' matches no suite; the suites are \(Self.suites.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        if let profile {
            RxBenchmarks.profiles.first { $0.name == profile }?.run()
            return
        }
        let context = BenchmarkContext(quick: quick, repetitions: repetitions ?? (quick ? 3 : 7))
        let results = try BenchmarkRunner.run(Self.suites, context: context, only: only, json: json)
        if strict, results.contains(where: { $0.met == false }) {
            throw ExitCode(1)
        }
    }
}
