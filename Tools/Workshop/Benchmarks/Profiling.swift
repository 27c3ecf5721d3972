import CCapture
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

    /// `total` actions in batches of at most `size`, each waited for, as the benchmark's
    /// scheduler batch does (so a warm scheduler's reuse of its actions is in the profile).
    static func batches<S: Scheduler>(of size: Int, total: Int, on scheduler: S) {
        var left = total
        while left > 0 {
            let batch = min(size, left)
            blackHole(SchedulerBenchmarks.scheduleAndRun(batch, on: scheduler))
            left -= batch
        }
    }

    /// The cases `--profile` knows, by name.
    static let cases: [Case] = [
        Case(
            name: "subscribeCancelPlain", what: "subject → map → filter → sink, subscribe + cancel", operations: 400_000
        ) {
            blackHole(CombineBenchmarks.subscribeAndCancel($0, diagnosedBy: nil, warmUp: 0))
        },
        Case(
            name: "subscribeCancelNoOpStage", what: "the same with a do-nothing handleEvents() stage",
            operations: 400_000
        ) {
            blackHole(CombineBenchmarks.subscribeAndCancelNoOpStage($0, warmUp: 0))
        },
        Case(
            name: "subscribeCancelOnce", what: "the same counted by one .diagnosed() stage, no stacks",
            operations: 400_000
        ) {
            blackHole(
                CombineBenchmarks.subscribeAndCancelCountedOnce(
                    $0, engine: CombineBenchmarks.engine(stacks: false), warmUp: 0))
        },
        Case(name: "subscribeCancelOnceStacks", what: "the same with 32-frame allocation stacks", operations: 200_000) {
            blackHole(
                CombineBenchmarks.subscribeAndCancelCountedOnce(
                    $0, engine: CombineBenchmarks.engine(stacks: true), warmUp: 0))
        },
        Case(name: "subscribeCancel", what: "every stage diagnosed, no stacks", operations: 200_000) {
            blackHole(
                CombineBenchmarks.subscribeAndCancel(
                    $0, diagnosedBy: CombineBenchmarks.engine(stacks: false), warmUp: 0))
        },
        Case(name: "subscribeCancelStacks", what: "every stage diagnosed, 32-frame stacks", operations: 200_000) {
            blackHole(
                CombineBenchmarks.subscribeAndCancel($0, diagnosedBy: CombineBenchmarks.engine(stacks: true), warmUp: 0)
            )
        },
        Case(name: "eventsPlain", what: "values through subject → map → filter → sink", operations: 2_000_000) {
            blackHole(CombineBenchmarks.events($0, diagnosedBy: nil, warmUp: 0))
        },
        Case(name: "eventsDiagnosed", what: "the same, .diagnosed() after every stage", operations: 2_000_000) {
            blackHole(CombineBenchmarks.events($0, diagnosedBy: CombineBenchmarks.engine(stacks: true), warmUp: 0))
        },
        Case(
            name: "eventsEmptyHook", what: "values through the pipeline under OpenCombine's empty hook",
            operations: 1_000_000
        ) {
            let hook = CombineBenchmarks.EmptyHook()
            hook.enable()
            blackHole(CombineBenchmarks.events($0, diagnosedBy: nil, warmUp: 0))
            hook.disable()
        },
        Case(
            name: "eventsGlobal", what: "values through the pipeline under global instrumentation",
            operations: 1_000_000
        ) {
            let instrumentation = CombineInstrumentation.start(engine: CombineBenchmarks.engine(stacks: true))
            blackHole(CombineBenchmarks.events($0, diagnosedBy: nil, warmUp: 0))
            instrumentation.stop()
        },
        Case(
            name: "schedulerPlain", what: "batches of 200,000 actions scheduled back to back on a DispatchQueue",
            operations: 1_000_000
        ) {
            batches(of: 200_000, total: $0, on: DispatchQueue(label: "profile"))
        },
        Case(name: "scheduler", what: "the same through a diagnostic scheduler", operations: 1_000_000) {
            let scheduler = DispatchQueue(label: "profile")
                .diagnosed("p", expecting: .offMainQueue, engine: CombineBenchmarks.engine(stacks: false))
            batches(of: 200_000, total: $0, on: scheduler)
        },
        Case(
            name: "schedulerSplit", what: "plain against diagnosed, scheduling then running, a suspended queue",
            operations: 200_000
        ) { count in
            let queue = DispatchQueue(label: "split")
            let diagnosed = queue.diagnosed(
                "p", expecting: .offMainQueue, engine: CombineBenchmarks.engine(stacks: false))
            for _ in 0..<2 {
                _ = SchedulerBenchmarks.scheduleThenRun(count, on: queue, suspending: queue);
                _ = SchedulerBenchmarks.scheduleThenRun(count, on: diagnosed, suspending: queue)
            }
            var rows: [(Double, Double, Double, Double)] = []
            for _ in 0..<9 {
                let plain = SchedulerBenchmarks.scheduleThenRun(count, on: queue, suspending: queue)
                let ours = SchedulerBenchmarks.scheduleThenRun(count, on: diagnosed, suspending: queue)
                rows.append((plain.schedule, ours.schedule, plain.run, ours.run))
            }
            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            print(
                String(
                    format: "schedule %.0f -> %.0f ns (%.2fx), run %.0f -> %.0f ns (%.2fx)",
                    median(rows.map { $0.0 }), median(rows.map { $0.1 }), median(rows.map { $0.1 / $0.0 }),
                    median(rows.map { $0.2 }), median(rows.map { $0.3 }), median(rows.map { $0.3 / $0.2 })))
        },
        Case(
            name: "executorJobsPlain", what: "jobs through a plain task executor on a concurrent queue",
            operations: 1_000_000
        ) { count in
            blackHole(
                ConcurrencyBenchmarks.blocking {
                    await ConcurrencyBenchmarks.jobs(count, on: ConcurrencyBenchmarks.PlainTaskExecutor())
                })
        },
        Case(
            name: "executorJobs", what: "jobs through a DiagnosticTaskExecutor (32-frame stacks)", operations: 1_000_000
        ) { count in
            let executor = DiagnosticTaskExecutor("profile", engine: CombineBenchmarks.engine(stacks: true))
            blackHole(ConcurrencyBenchmarks.blocking { await ConcurrencyBenchmarks.jobs(count, on: executor) })
        },
        Case(
            name: "executorJobsInTest", what: "the same, jobs of a test (made and awaited in it)", operations: 1_000_000
        ) { count in
            let engine = CombineBenchmarks.engine(stacks: true)
            let checkpoint = engine.beginTest(named: "profile", serial: false)
            TestIdentity.$current.withValue(checkpoint.test) {
                let executor = DiagnosticTaskExecutor("profile", engine: engine)
                blackHole(ConcurrencyBenchmarks.blocking { await ConcurrencyBenchmarks.jobs(count, on: executor) })
            }
        },
        Case(name: "reportWrite", what: "a report of 100,000 findings written", operations: 3) { count in
            let report = ReportBenchmarks.engine(findings: 100_000).makeReport()
            blackHole(ReportBenchmarks.reportWriteLoop(report, times: count))
        },
        Case(name: "reportRead", what: "a report of 100,000 findings read", operations: 3) { count in
            let data = (try? ReportBenchmarks.engine(findings: 100_000).makeReport().encoded()) ?? Data()
            blackHole(ReportBenchmarks.reportReadLoop(data, times: count))
        },
        Case(name: "diagnosedStream", what: "elements through a diagnosed AsyncStream", operations: 2_000_000) {
            count in
            let engine = CombineBenchmarks.engine(stacks: true)
            blackHole(
                ConcurrencyBenchmarks.blocking {
                    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                    return await ConcurrencyBenchmarks.elements(
                        count, stream.diagnosed("profile", engine: engine), continuation)
                })
        },
        Case(name: "capture8", what: "rdiag_capture_stack, 8 frames", operations: 2_000_000) {
            captureLoop(depth: 8, $0, rdiag_capture_stack)
        },
        Case(name: "capture32", what: "rdiag_capture_stack, 32 frames", operations: 1_000_000) {
            captureLoop(depth: 32, $0, rdiag_capture_stack)
        },
        Case(name: "capture64", what: "rdiag_capture_stack, 64 frames", operations: 500_000) {
            captureLoop(depth: 64, $0, rdiag_capture_stack)
        },
        Case(name: "libunwind8", what: "unw_backtrace, 8 frames", operations: 2_000_000) {
            captureLoop(depth: 8, $0, rdiag_backtrace)
        },
        Case(name: "libunwind32", what: "unw_backtrace, 32 frames", operations: 1_000_000) {
            captureLoop(depth: 32, $0, rdiag_backtrace)
        },
        Case(name: "libunwind64", what: "unw_backtrace, 64 frames", operations: 500_000) {
            captureLoop(depth: 64, $0, rdiag_backtrace)
        },
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
