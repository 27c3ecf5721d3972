import Dispatch
import Foundation
import Synchronization
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// How long recording a finding holds the thread that made it.
///
/// A finding is made on the app's own thread, in the middle of what the app is doing (a value
/// yielded after `finish()`, a second `resume`): whatever the library does there changes what
/// the app under test does next. The finding is recorded the way every adapter records it
/// (`DiagnosticsEngine.record`: its event stack captured, a test attributed) into an engine
/// that keeps a crash journal, as every run that writes a report does.
enum FindingBenchmarks {
    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 100 : 400
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("reactive-diag-benchmark-findings-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var alone: [Double] = []
        var parallel: [Double] = []
        var first: [Double] = []
        for repetition in 0..<context.repetitions {
            let engine = journaled(in: directory, repetition: repetition)
            let holds = holdTimes(count, engine: engine)
            first.append(holds[0])
            alone.append(Statistics(holds).median)
            parallel.append(Statistics(parallelHoldTimes(count, threads: 4, engine: engine)).median)
            _ = try? engine.writeReport()
        }
        return [
            BenchmarkResult(
                name: "findings.recordHold.median", unit: "µs/finding", statistics: Statistics(alone),
                target: .atMost(50),
                notes: [
                    "what":
                        "median time engine.record(draft) holds its thread, \(count) findings at distinct stacks, crash journal on"
                ]),
            BenchmarkResult(
                name: "findings.recordHold.parallelMedian", unit: "µs/finding", statistics: Statistics(parallel),
                notes: ["what": "the same from 4 threads at once (each finding at its own stack)"]),
            BenchmarkResult(
                name: "findings.recordHold.firstOfEngine", unit: "µs/finding", statistics: Statistics(first),
                notes: ["what": "the first finding of a new engine (its journal is created then), for information"]),
        ]
    }

    private static func journaled(in directory: URL, repetition: Int) -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.writesReport = true
        configuration.reportPath = directory.appendingPathComponent("report-\(repetition).json").path
        configuration.printsSummary = false
        configuration.capturesAllocationStacks = true
        configuration.capturesEventStacks = true
        return DiagnosticsEngine(configuration: configuration)
    }

    /// µs each of `count` findings held the recording thread; finding `n` is made `n % 97`
    /// frames deeper than the first, so each has a stack of its own, as findings of different
    /// bugs do.
    @inline(never)
    static func holdTimes(_ count: Int, engine: DiagnosticsEngine, thread: Int = 0) -> [Double] {
        var holds: [Double] = []
        holds.reserveCapacity(count)
        for index in 0..<count {
            holds.append(nested(index % 97 + thread * 5, engine: engine, label: "bench-\(thread)-\(index)"))
        }
        return holds
    }

    private static func parallelHoldTimes(_ count: Int, threads: Int, engine: DiagnosticsEngine) -> [Double] {
        let results = Mutex([Double]())
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let holds = holdTimes(count / threads, engine: engine, thread: thread + 1)
            results.withLock { $0 += holds }
        }
        return results.withLock { $0 }
    }

    @inline(never)
    private static func nested(_ depth: Int, engine: DiagnosticsEngine, label: String) -> Double {
        if depth > 0 {
            let hold = nested(depth - 1, engine: engine, label: label)
            blackHole(depth)
            return hold
        }
        let draft = FindingDraft(
            kind: .valueAfterTermination, message: "a value after the stream finished", label: label)
        let start = now()
        engine.record(draft)
        return Double(now() - start) / 1_000
    }
}
