import CombineDiagnostics
import ConcurrencyDiagnostics
import Dispatch
import EffectDiagnostics
import Foundation
import OpenCombineShim
import Synchronization
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// What the checker keeps of things that lived and ended: heap added per short-lived
/// subscription (global instrumentation), diagnosed stream, unstructured task and notification
/// observer (the `observer` resources EffectDiagnostics tracks), each made, used and ended
/// inside a test. A checker that finds leaks must not be one: the target is about
/// nothing per item (≤ 64 bytes, the noise of the allocator's own bookkeeping).
extension MemoryBenchmark {
    static func shortLivedItems(_ context: BenchmarkContext) -> [BenchmarkResult] {
        let count = context.quick ? 5_000 : 50_000
        var subscriptions: [Double] = []
        var streams: [Double] = []
        var tasks: [Double] = []
        var observers: [Double] = []
        var plainObservers: [Double] = []
        for _ in 0..<max(1, context.repetitions / 3) {
            let engine = quietEngine { $0.tracksUnstructuredTasks = true }
            let checkpoint = engine.beginTest(named: "MemoryBenchmark.shortLivedItems", serial: false)
            TestIdentity.$current.withValue(checkpoint.test) {
                subscriptions.append(perItem(count) { shortLivedSubscriptions($0, engine: engine) })
                streams.append(perItem(count) { shortLivedStreams($0, engine: engine) })
                tasks.append(perItem(count / 5) { shortLivedTasks($0) })
                let plain = perItem(count) { shortLivedObservers($0, center: NotificationCenter()) }
                let diagnosed = perItem(count) {
                    shortLivedObservers($0, center: NotificationCenter().diagnosed(engine: engine))
                }
                plainObservers.append(plain)
                observers.append(diagnosed - plain)
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
            BenchmarkResult(
                name: "memory.shortLived.observers", unit: "bytes/item", statistics: Statistics(observers),
                target: target,
                notes: [
                    "what":
                        "DiagnosedNotificationCenter: addObserver, one post, removeObserver, in a test; beyond the plain center's",
                    "plainCenter": String(format: "%.1f bytes/item", Statistics(plainObservers).median),
                ]),
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

    /// Observers added, posted to once and removed: the notification observers EffectDiagnostics
    /// tracks (an `observer` resource each, until removed), through the diagnosed center or
    /// the plain one.
    private static func shortLivedObservers(_ count: Int, center: DiagnosedNotificationCenter) {
        let name = Notification.Name("MemoryBenchmark.shortLivedObservers")
        let delivered = Delivered()
        for _ in 0..<count {
            let observer = center.addObserver(forName: name) { _ in delivered.add() }
            center.post(name: name)
            center.removeObserver(observer)
        }
        blackHole(delivered.count.load(ordering: .relaxed))
    }

    private static func shortLivedObservers(_ count: Int, center: NotificationCenter) {
        let name = Notification.Name("MemoryBenchmark.shortLivedObservers")
        let delivered = Delivered()
        for _ in 0..<count {
            let observer = center.addObserver(forName: name, object: nil, queue: nil) { _ in delivered.add() }
            center.post(name: name, object: nil)
            center.removeObserver(observer)
        }
        blackHole(delivered.count.load(ordering: .relaxed))
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

/// Notifications delivered, counted from the posting thread.
private final class Delivered: Sendable {
    let count = Atomic<Int>(0)

    func add() {
        count.add(1, ordering: .relaxed)
    }
}
