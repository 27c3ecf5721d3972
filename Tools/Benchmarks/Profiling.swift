import CReactiveDiagnostics
import CombineDiagnostics
import ConcurrencyDiagnostics
import Foundation
import OpenCombineShim
import _ReactiveDiagnosticsBenchmarkHarness

/// One case in a tight loop, for `perf` or `valgrind --tool=callgrind`:
/// `reactive-diag-benchmark --profile subscribeCancelOnce [--operations N]` (or another of
/// ``names``). `Tools/instructions.sh` runs a case at N and 2N operations under callgrind and
/// prints the difference per operation: instructions that do not depend on the machine's load.
enum Profiling {
    /// One profile case: its name, what it runs, its default operation count, and the run.
    struct Case: Sendable {
        let name: String
        let what: String
        let operations: Int
        let run: @Sendable (Int) -> Void
    }

    /// The cases `--profile` knows, by name.
    static let cases: [Case] = [
        Case(name: "subscribeCancelPlain", what: "subject → map → filter → sink, subscribe + cancel", operations: 400_000) {
            blackHole(CombineBenchmarks.subscribeAndCancel($0, diagnosedBy: nil, warmUp: 0))
        },
        Case(name: "subscribeCancelNoOpStage", what: "the same with a do-nothing handleEvents() stage", operations: 400_000) {
            blackHole(CombineBenchmarks.subscribeAndCancelNoOpStage($0, warmUp: 0))
        },
        Case(name: "subscribeCancelOnce", what: "the same counted by one .diagnosed() stage, no stacks", operations: 400_000) {
            blackHole(CombineBenchmarks.subscribeAndCancelCountedOnce($0, engine: CombineBenchmarks.engine(stacks: false), warmUp: 0))
        },
        Case(name: "subscribeCancelOnceStacks", what: "the same with 32-frame allocation stacks", operations: 200_000) {
            blackHole(CombineBenchmarks.subscribeAndCancelCountedOnce($0, engine: CombineBenchmarks.engine(stacks: true), warmUp: 0))
        },
        Case(name: "subscribeCancel", what: "every stage diagnosed, no stacks", operations: 200_000) {
            blackHole(CombineBenchmarks.subscribeAndCancel($0, diagnosedBy: CombineBenchmarks.engine(stacks: false), warmUp: 0))
        },
        Case(name: "subscribeCancelStacks", what: "every stage diagnosed, 32-frame stacks", operations: 200_000) {
            blackHole(CombineBenchmarks.subscribeAndCancel($0, diagnosedBy: CombineBenchmarks.engine(stacks: true), warmUp: 0))
        },
        Case(name: "eventsPlain", what: "values through subject → map → filter → sink", operations: 2_000_000) {
            blackHole(CombineBenchmarks.events($0, diagnosedBy: nil, warmUp: 0))
        },
        Case(name: "eventsDiagnosed", what: "the same, .diagnosed() after every stage", operations: 2_000_000) {
            blackHole(CombineBenchmarks.events($0, diagnosedBy: CombineBenchmarks.engine(stacks: true), warmUp: 0))
        },
        Case(name: "eventsEmptyHook", what: "values through the pipeline under OpenCombine's empty hook", operations: 1_000_000) {
            let hook = CombineBenchmarks.EmptyHook()
            hook.enable()
            blackHole(CombineBenchmarks.events($0, diagnosedBy: nil, warmUp: 0))
            hook.disable()
        },
        Case(name: "eventsGlobal", what: "values through the pipeline under global instrumentation", operations: 1_000_000) {
            let instrumentation = CombineInstrumentation.start(engine: CombineBenchmarks.engine(stacks: true))
            blackHole(CombineBenchmarks.events($0, diagnosedBy: nil, warmUp: 0))
            instrumentation.stop()
        },
        Case(name: "schedulerPlain", what: "actions scheduled back to back on a DispatchQueue", operations: 500_000) {
            blackHole(SchedulerBenchmarks.scheduleAndRun($0, on: DispatchQueue(label: "profile")))
        },
        Case(name: "scheduler", what: "the same through a diagnostic scheduler", operations: 500_000) {
            let scheduler = DispatchQueue(label: "profile")
                .diagnosed("p", expecting: .offMainQueue, engine: CombineBenchmarks.engine(stacks: false))
            blackHole(SchedulerBenchmarks.scheduleAndRun($0, on: scheduler))
        },
        Case(name: "executorJobsPlain", what: "jobs through a plain task executor on a concurrent queue", operations: 1_000_000) { count in
            blackHole(ConcurrencyBenchmarks.blocking { await ConcurrencyBenchmarks.jobs(count, on: ConcurrencyBenchmarks.PlainTaskExecutor()) })
        },
        Case(name: "executorJobs", what: "jobs through a DiagnosticTaskExecutor (32-frame stacks)", operations: 1_000_000) { count in
            let executor = DiagnosticTaskExecutor("profile", engine: CombineBenchmarks.engine(stacks: true))
            blackHole(ConcurrencyBenchmarks.blocking { await ConcurrencyBenchmarks.jobs(count, on: executor) })
        },
        Case(name: "reportWrite", what: "a report of 100,000 findings written", operations: 3) { count in
            let report = ReportBenchmarks.engine(findings: 100_000).makeReport()
            blackHole(ReportBenchmarks.reportWriteLoop(report, times: count))
        },
        Case(name: "reportRead", what: "a report of 100,000 findings read", operations: 3) { count in
            let data = (try? ReportBenchmarks.engine(findings: 100_000).makeReport().encoded()) ?? Data()
            blackHole(ReportBenchmarks.reportReadLoop(data, times: count))
        },
        Case(name: "diagnosedStream", what: "elements through a diagnosed AsyncStream", operations: 2_000_000) { count in
            let engine = CombineBenchmarks.engine(stacks: true)
            blackHole(ConcurrencyBenchmarks.blocking {
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                return await ConcurrencyBenchmarks.elements(count, stream.diagnosed("profile", engine: engine), continuation)
            })
        },
        Case(name: "capture8", what: "rdiag_capture_stack, 8 frames", operations: 2_000_000) { captureLoop(depth: 8, $0, rdiag_capture_stack) },
        Case(name: "capture32", what: "rdiag_capture_stack, 32 frames", operations: 1_000_000) { captureLoop(depth: 32, $0, rdiag_capture_stack) },
        Case(name: "capture64", what: "rdiag_capture_stack, 64 frames", operations: 500_000) { captureLoop(depth: 64, $0, rdiag_capture_stack) },
        Case(name: "libunwind8", what: "unw_backtrace, 8 frames", operations: 2_000_000) { captureLoop(depth: 8, $0, rdiag_backtrace) },
        Case(name: "libunwind32", what: "unw_backtrace, 32 frames", operations: 1_000_000) { captureLoop(depth: 32, $0, rdiag_backtrace) },
        Case(name: "libunwind64", what: "unw_backtrace, 64 frames", operations: 500_000) { captureLoop(depth: 64, $0, rdiag_backtrace) },
    ]

    /// The names of ``cases``, in order.
    static var names: [String] { cases.map(\.name) }

    /// Runs the case `name`, one of ``names`` (the command line checks it), `operations` times
    /// (its default when `nil`).
    static func run(_ name: String, operations: Int?) {
        guard let chosen = cases.first(where: { $0.name == name }) else { return }
        chosen.run(operations ?? chosen.operations)
    }

    private static func captureLoop(
        depth: Int, _ operations: Int, _ walk: (UnsafeMutablePointer<UnsafeMutableRawPointer>, Int32) -> Int32
    ) {
        CaptureBenchmarks.atDepth(depth + 8) {
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer.self, capacity: depth) { buffer in
                var total = 0
                for _ in 0..<operations {
                    total &+= Int(walk(buffer.baseAddress!, Int32(depth)))
                }
                blackHole(total)
            }
        }
    }
}
