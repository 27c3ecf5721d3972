import CCapture
import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
@_spi(Integration) import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// Bytes the ledger and the interner add per live tracked resource, with 1,000,000 alive
/// from 1,000 distinct allocation sites. The tokens (8 bytes each, held by the resources
/// themselves) are not counted.
enum MemoryBenchmark {
    static func residentBytes() -> Int {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return 0
        #endif
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 100_000 : 1_000_000
        var samples: [Double] = []
        for _ in 0..<max(1, context.repetitions / 3) {
            let ledger = ResourceLedger()
            let interner = StackInterner()
            let sites = (0..<1_000).map { site in
                interner.intern((0..<32).map { UInt(0x5555_0000_0000 + site * 4096 + $0 * 64) })
            }
            let labels = (0..<10).map { DiagnosticLabel("label-\($0)") }
            var tokens = [ResourceToken]()
            tokens.reserveCapacity(count)
            let before = residentBytes()
            for index in 0..<count {
                tokens.append(
                    ledger.register(
                        kind: .subscription, label: labels[index % 10], stack: sites[index % 1_000], test: .none))
            }
            let after = residentBytes()
            samples.append(Double(after - before) / Double(count))
            blackHole(tokens)
            for token in tokens { ledger.unregister(token) }
        }
        return [
            BenchmarkResult(
                name: "memory.perLiveResource", unit: "bytes/resource", statistics: Statistics(samples),
                target: .atMost(128), notes: ["alive": "\(count)", "sites": "1000"])
        ] + shortLivedSchedulers(context) + laneAfterBurst(context) + shortLivedItems(context)
    }

    /// Heap a thread's action lane keeps after a burst of 200,000 actions (scheduled onto a
    /// suspended queue, then drained), right after the burst and once the thread went quiet: a
    /// test ended and the next began (two checkpoints) without it scheduling again. Before
    /// quiet lanes were given back, the burst's actions stayed (about 22 MB) until the thread
    /// scheduled two more laps of its lane. The burst is the benchmark thread's, so that the
    /// blocks are allocated and freed in one malloc arena (glibc's count of the heap in use
    /// does not drop for blocks freed from another thread's arena).
    static func laneAfterBurst(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 50_000 : 200_000
        var afterBurst: [Double] = []
        var afterQuiet: [Double] = []
        for _ in 0..<max(1, context.repetitions / 3) {
            let engine = quietEngine { $0.settleTime = .milliseconds(1) }
            let queue = DispatchQueue(label: "MemoryBenchmark.laneAfterBurst")
            let scheduler = DiagnosticScheduler(queue, label: "burst", engine: engine)
            settlePreviousRuns(engine)
            let before = heapBytesInUse()
            queue.suspend()
            for _ in 0..<count {
                scheduler.schedule {}
            }
            queue.resume()
            queue.sync {}
            afterBurst.append(Double(heapBytesInUse() - before) / 1_048_576)
            // The thread goes quiet: it only runs checkpoints, which take no action.
            for _ in 0..<2 {
                let checkpoint = engine.beginTest(named: "MemoryBenchmark.laneAfterBurst", serial: false)
                _ = engine.finishTest(checkpoint)
            }
            afterQuiet.append(Double(heapBytesInUse() - before) / 1_048_576)
            blackHole(scheduler.summary.executed)
        }
        return [
            BenchmarkResult(
                name: "memory.laneAfterQuiet", unit: "MiB", statistics: Statistics(afterQuiet), target: .atMost(1),
                notes: [
                    "actions": "\(count)",
                    "what": "resident memory still added by a burst once its thread went quiet (two checkpoints)",
                ]),
            BenchmarkResult(
                name: "memory.laneAfterBurst", unit: "MiB", statistics: Statistics(afterBurst),
                notes: ["what": "the same right after the burst, before the checkpoints (what stayed before)"]),
        ]
    }

    /// Lets go of what earlier runs left: the lanes give back their ended actions' probes (and
    /// the engines of earlier runs go with them), so that they are not freed during the next
    /// measurement.
    static func settlePreviousRuns(_ engine: DiagnosticsEngine) {
        engine.reclaimQuietLanes()
        engine.reclaimQuietLanes()
    }

    /// Bytes in use on the heap (glibc's `mallinfo2`): unlike the resident size, not hidden
    /// by memory an earlier case freed and the allocator reuses.
    static func heapBytesInUse() -> Int {
        let inUse = Int(rd_benchmark_heap_in_use())
        return inUse > 0 ? inUse : residentBytes()
    }

    /// Heap added by 20,000 short-lived diagnosed schedulers of 10 labels (a view model per test,
    /// each with its scheduler, used once and dropped): what a long suite pays. Each run uses a
    /// fresh engine, so the figure includes the labels' statistics (10 sets). For comparison,
    /// the same number of schedulers each with a label of its own: what every scheduler cost
    /// when each kept statistics of its own.
    static func shortLivedSchedulers(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 5_000 : 20_000
        var added: [Double] = []
        var perScheduler: [Double] = []
        var perLabel: [Double] = []
        for _ in 0..<max(1, context.repetitions / 3) {
            let shared = heap(ofSchedulers: count, labels: 10)
            added.append(shared / 1_048_576)
            perScheduler.append(shared / Double(count))
            let distinctCount = context.quick ? 500 : 2_000
            perLabel.append(heap(ofSchedulers: distinctCount, labels: distinctCount) / Double(distinctCount))
        }
        return [
            BenchmarkResult(
                name: "memory.shortLivedSchedulers", unit: "MiB", statistics: Statistics(added), target: .atMost(10),
                notes: ["schedulers": "\(count)", "labels": "10", "what": "heap in use after, against before"]),
            BenchmarkResult(
                name: "memory.perShortLivedScheduler", unit: "bytes/scheduler", statistics: Statistics(perScheduler),
                notes: ["what": "the same per scheduler: released with its scheduler and actions"]),
            BenchmarkResult(
                name: "memory.perSchedulerLabel", unit: "bytes/label", statistics: Statistics(perLabel),
                notes: ["what": "schedulers of a label each: the statistics of a label (histograms, counters)"]),
        ]
    }

    /// A fresh engine that writes and prints nothing, configured further by `change`.
    static func quietEngine(_ change: (inout Configuration) -> Void = { _ in }) -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        change(&configuration)
        return DiagnosticsEngine(configuration: configuration)
    }

    /// Heap bytes added by `count` schedulers (of `labels` labels), each used once: the Combine
    /// adapter's `DiagnosticScheduler` over `ImmediateScheduler`, made, given one action and
    /// dropped, as a view model per test would.
    private static func heap(ofSchedulers count: Int, labels: Int) -> Double {
        let engine = quietEngine()
        let names = (0..<labels).map { "screen-\($0)" }
        settlePreviousRuns(engine)
        let before = heapBytesInUse()
        for index in 0..<count {
            DiagnosticScheduler(ImmediateScheduler.shared, label: names[index % labels], engine: engine).schedule {}
        }
        let after = heapBytesInUse()
        blackHole(engine.schedulerSummaries().count)
        return Double(after - before)
    }
}

/// A figure one thread writes and another reads after a semaphore they both wait on.
private final class HeapFigure: @unchecked Sendable {
    // Unchecked: written before the semaphore is signalled, read after it is waited on.
    var value = 0
}
