import Dispatch
import Foundation
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

extension ConcurrencyBenchmarks {
    /// ns per task: `count` tasks started with `Task { }` and awaited one after the other.
    @inline(never)
    static func startTasks(_ count: Int) async -> Double {
        let start = now()
        var sum = 0
        for index in 0..<count {
            sum &+= await Task { index }.value
        }
        blackHole(sum)
        return Double(now() - start) / Double(count)
    }

    /// What following the unstructured tasks of a test costs (`swift_task_create` seen by the
    /// library, a 32-frame stack, a ledger entry, the task kept until it completes), against the
    /// same tasks started outside any test. Both go through the library's `swift_task_create`,
    /// which is linked into every process that links the library: outside a test it only asks
    /// whether a test is running, so the baseline is the runtime's cost plus that question.
    static func taskStarts(_ context: BenchmarkContext, engine: DiagnosticsEngine) -> [BenchmarkResult] {
        guard DiagnosticsEngine.seesUnstructuredTasks else {
            FileHandle.standardError.write(Data("task starts are not seen on this platform: no task rows\n".utf8))
            return []
        }
        let count = context.quick ? 2_000 : 20_000
        let checkpoint = engine.beginTest(named: "ConcurrencyBenchmarks.taskStarts", serial: false)
        let run = Measure.paired(
            repetitions: context.repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance,
            baseline: { blocking { await startTasks(count) } },
            instrumented: {
                TestIdentity.$current.withValue(checkpoint.test) { blocking { await startTasks(count) } }
            })
        _ = engine.finishTest(checkpoint)
        return [
            BenchmarkResult(
                name: "concurrency.taskStart.outsideTests", unit: "ns/task", statistics: run.baseline,
                notes: ["what": "Task { index }.value outside any test: the runtime, and the hook asking for a test"]),
            BenchmarkResult(
                name: "concurrency.taskStart.followed", unit: "ns/task", statistics: run.instrumented,
                notes: [
                    "what":
                        "the same in a test: each task followed (its stack, a ledger entry, kept until it completes)"
                ]),
            BenchmarkResult(
                name: "concurrency.taskStart.ratio", unit: "×", statistics: run.ratio, target: .atMost(2.0)),
        ]
    }
}
