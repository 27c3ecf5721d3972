import CombineDiagnostics
import ConcurrencyDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// What the checker keeps of things that lived and ended: heap added per short-lived
/// subscription (global instrumentation), diagnosed stream and unstructured task, each made,
/// used and ended inside a test. A checker that finds leaks must not be one: the target is about
/// nothing per item (≤ 64 bytes, the noise of the allocator's own bookkeeping).
extension MemoryBenchmark {
    static func shortLivedItems(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 5_000 : 50_000
        var subscriptions: [Double] = []
        var streams: [Double] = []
        var tasks: [Double] = []
        for _ in 0..<max(1, context.repetitions / 3) {
            let engine = quietEngine { $0.tracksUnstructuredTasks = true }
            let checkpoint = engine.beginTest(named: "MemoryBenchmark.shortLivedItems", serial: false)
            TestIdentity.$current.withValue(checkpoint.test) {
                subscriptions.append(perItem(count) { shortLivedSubscriptions($0, engine: engine) })
                streams.append(perItem(count) { shortLivedStreams($0, engine: engine) })
                tasks.append(perItem(count / 5) { shortLivedTasks($0) })
            }
            _ = engine.finishTest(checkpoint)
        }
        let target = BenchmarkResult.Target.atMost(64)
        return [
            BenchmarkResult(
                name: "memory.shortLived.subscriptions", unit: "bytes/item", statistics: Statistics(subscriptions),
                target: target, notes: ["what": "subject.map.sink then cancel, global instrumentation, in a test"]),
            BenchmarkResult(
                name: "memory.shortLived.streams", unit: "bytes/item", statistics: Statistics(streams), target: target,
                notes: ["what": "AsyncStream.makeDiagnosedStream, one element, finished and read to its end"]),
            BenchmarkResult(
                name: "memory.shortLived.tasks", unit: "bytes/item", statistics: Statistics(tasks), target: target,
                notes: ["what": "Task { } awaited in a test, every task followed (Linux)"]),
        ]
    }

    /// Heap bytes added per item by `body(count)`, after one warm-up round of the same size
    /// (what is made once, such as a stack's interned frames, is not per item).
    private static func perItem(_ count: Int, _ body: (Int) -> Void) -> Double {
        body(count)
        let before = heapBytesInUse()
        body(count)
        let after = heapBytesInUse()
        return Double(after - before) / Double(count)
    }

    private static func shortLivedSubscriptions(_ count: Int, engine: DiagnosticsEngine) {
        let instrumentation = CombineInstrumentation.start(engine: engine)
        defer { instrumentation.stop() }
        let subject = PassthroughSubject<Int, Never>()
        var sum = 0
        for index in 0..<count {
            let cancellable = subject.map { $0 + 1 }.sink { sum &+= $0 }
            subject.send(index)
            cancellable.cancel()
        }
        blackHole(sum)
    }

    private static func shortLivedStreams(_ count: Int, engine: DiagnosticsEngine) {
        let total = ConcurrencyBenchmarks.blocking {
            var sum = 0
            for index in 0..<count {
                let (stream, continuation) = AsyncStream.makeDiagnosedStream(of: Int.self, engine: engine)
                continuation.yield(index)
                continuation.finish()
                for await value in stream { sum &+= value }
            }
            return sum
        }
        blackHole(total)
    }

    private static func shortLivedTasks(_ count: Int) {
        let total = ConcurrencyBenchmarks.blocking {
            var sum = 0
            for index in 0..<count {
                sum &+= await Task { index }.value
            }
            return sum
        }
        blackHole(total)
    }
}
