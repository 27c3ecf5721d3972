import CombineDiagnostics
import ConcurrencyDiagnostics
import Foundation
import _ReactiveDiagnosticsBenchmarkHarness

/// One case in a tight loop, for `perf` or `valgrind --tool=callgrind`:
/// `reactive-diag-benchmark --profile subscribeCancel` (or another of ``names``).
enum Profiling {
    /// The cases `--profile` knows, by name.
    static let cases: [(name: String, run: @Sendable () -> Void)] = [
        ("subscribeCancel", {
            blackHole(CombineBenchmarks.subscribeAndCancel(200_000, diagnosedBy: CombineBenchmarks.engine(stacks: false)))
        }),
        ("subscribeCancelOnce", {
            blackHole(CombineBenchmarks.subscribeAndCancelCountedOnce(400_000, engine: CombineBenchmarks.engine(stacks: false)))
        }),
        ("subscribeCancelPlain", {
            blackHole(CombineBenchmarks.subscribeAndCancel(400_000, diagnosedBy: nil))
        }),
        ("subscribeCancelStacks", {
            blackHole(CombineBenchmarks.subscribeAndCancel(200_000, diagnosedBy: CombineBenchmarks.engine(stacks: true)))
        }),
        ("scheduler", {
            let scheduler = DispatchQueue(label: "profile")
                .diagnosed("p", expecting: .offMainQueue, engine: CombineBenchmarks.engine(stacks: false))
            blackHole(SchedulerBenchmarks.scheduleAndRun(500_000, on: scheduler))
        }),
        ("executorJobs", {
            let executor = DiagnosticTaskExecutor("profile", engine: CombineBenchmarks.engine(stacks: true))
            blackHole(ConcurrencyBenchmarks.blocking { await ConcurrencyBenchmarks.jobs(1_000_000, on: executor) })
        }),
        ("reportWrite", {
            let report = ReportBenchmarks.engine(findings: 100_000).makeReport()
            blackHole(ReportBenchmarks.reportWriteLoop(report, times: 3))
        }),
        ("reportRead", {
            let data = (try? ReportBenchmarks.engine(findings: 100_000).makeReport().encoded()) ?? Data()
            blackHole(ReportBenchmarks.reportReadLoop(data, times: 3))
        }),
        ("diagnosedStream", {
            let engine = CombineBenchmarks.engine(stacks: true)
            blackHole(ConcurrencyBenchmarks.blocking {
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                return await ConcurrencyBenchmarks.elements(2_000_000, stream.diagnosed("profile", engine: engine), continuation)
            })
        }),
    ]

    /// The names of ``cases``, in order.
    static var names: [String] { cases.map(\.name) }

    /// Runs the case `name`, one of ``names`` (the command line checks it).
    static func run(_ name: String) {
        cases.first { $0.name == name }?.run()
    }
}
