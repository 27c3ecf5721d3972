import CCapture
import ConcurrencyDiagnostics
import Dispatch
import Foundation
import ReactiveDiagnostics
import _ReactiveDiagnosticsBenchmarkHarness

/// Swift Concurrency: an element through a diagnosed stream, and a job through the diagnostic
/// executor, each against its plain twin in the same run; and what the stream hook adds to a
/// plain `AsyncStream` yield.
enum ConcurrencyBenchmarks {
    /// A task executor that runs jobs on a concurrent queue: ``DiagnosticTaskExecutor`` minus
    /// the diagnostics (the baseline).
    final class PlainTaskExecutor: TaskExecutor {
        let queue = DispatchQueue(label: "plain", attributes: .concurrent)

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { [self] in
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    /// What a task hands back to the thread waiting for it.
    final class Handoff<T>: @unchecked Sendable {
        // Unchecked: written by the task before the semaphore is signalled, read after.
        var value: T?
    }

    /// Runs `body` in a task and waits for it on the calling (non-pool) thread.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let result = Handoff<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            result.value = await body()
            done.signal()
        }
        done.wait()
        return result.value!
    }

    /// ns per element: `count` elements yielded in batches of 64 and read back by one iterator
    /// of `stream` (so `next()` finds them buffered: the cost of the stream, not of suspension).
    @inline(never)
    static func elements<S: AsyncSequence>(
        _ count: Int, _ stream: S, _ continuation: AsyncStream<Int>.Continuation
    ) async -> Double where S.Element == Int, S.Failure == Never {
        var iterator = stream.makeAsyncIterator()
        var sum = 0
        let start = now()
        var done = 0
        while done < count {
            for value in 0..<64 { continuation.yield(value) }
            for _ in 0..<64 { sum &+= await iterator.next(isolation: nil) ?? 0 }
            done += 64
        }
        let nanos = Double(now() - start) / Double(done)
        blackHole(sum)
        return nanos
    }

    /// The same through a diagnosed stream's own continuation.
    @inline(never)
    static func elements(
        _ count: Int, _ stream: AsyncStream<Int>, _ continuation: AsyncStream<Int>.DiagnosedContinuation
    ) async -> Double {
        var iterator = stream.makeAsyncIterator()
        var sum = 0
        let start = now()
        var done = 0
        while done < count {
            for value in 0..<64 { continuation.yield(value) }
            for _ in 0..<64 { sum &+= await iterator.next() ?? 0 }
            done += 64
        }
        let nanos = Double(now() - start) / Double(done)
        blackHole(sum)
        return nanos
    }

    /// ns per yield: `count` yields of a plain stream that keeps the newest 64 elements (no
    /// consumer: the yield alone). In this process every yield goes through the stream hook's
    /// stub (the test executable's definition of the symbol), test or not.
    @inline(never)
    static func yields(_ count: Int) -> Double {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(64))
        let start = now()
        for value in 0..<count {
            continuation.yield(value)
        }
        let nanos = Double(now() - start) / Double(count)
        continuation.finish()
        blackHole(stream)
        return nanos
    }

    /// ns per job: `count` yields of a task that prefers `executor` (each one job through it).
    @inline(never)
    static func jobs(_ count: Int, on executor: any TaskExecutor) async -> Double {
        await withTaskExecutorPreference(executor) {
            let start = now()
            for _ in 0..<count {
                await Task.yield()
            }
            return Double(now() - start) / Double(count)
        }
    }

    static func run(_ context: BenchmarkContext) -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let elementCount = context.quick ? 50_000 : 400_000
        let jobCount = context.quick ? 20_000 : 100_000
        let engine = CombineBenchmarks.engine(stacks: true)

        let sequenceRun = Measure.paired(
            repetitions: context.repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance,
            baseline: {
                blocking {
                    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                    return await elements(elementCount, stream, continuation)
                }
            },
            instrumented: {
                blocking {
                    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                    return await elements(elementCount, stream.diagnosed("bench", engine: engine), continuation)
                }
            })
        results.append(
            BenchmarkResult(name: "concurrency.stream.plain", unit: "ns/element", statistics: sequenceRun.baseline))
        results.append(
            BenchmarkResult(
                name: "concurrency.stream.diagnosed", unit: "ns/element", statistics: sequenceRun.instrumented,
                notes: ["what": "AsyncStream → .diagnosed() → next(), elements buffered 64 at a time"]))
        results.append(
            BenchmarkResult(
                name: "concurrency.stream.ratio", unit: "×", statistics: sequenceRun.ratio, target: .atMost(1.20)))

        let dropInRun = Measure.paired(
            repetitions: context.repetitions,
            baseline: {
                blocking {
                    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                    return await elements(elementCount, stream, continuation)
                }
            },
            instrumented: {
                blocking {
                    let (stream, continuation) = AsyncStream.makeDiagnosedStream("bench", of: Int.self, engine: engine)
                    return await elements(elementCount, stream, continuation)
                }
            })
        results.append(
            BenchmarkResult(
                name: "concurrency.dropInStream.diagnosed", unit: "ns/element", statistics: dropInRun.instrumented,
                notes: [
                    "what":
                        "AsyncStream.makeDiagnosedStream: a plain AsyncStream (through AsyncStream(unfolding:)) and a checking continuation"
                ]))
        results.append(
            BenchmarkResult(
                name: "concurrency.dropInStream.ratio", unit: "×", statistics: dropInRun.ratio,
                notes: [
                    "what":
                        "for information: AsyncStream(unfolding:) alone costs about a third more than the plain stream"
                ]))

        // Jobs of a test, as in a user's test run: the executor made in the test and its jobs
        // awaited in it (so a job's test is the thread's, set while the job that enqueued it
        // ran). Outside any test, every job asks the task-local for a test that is not there:
        // measured too, for information.
        let plain = PlainTaskExecutor()
        let checkpoint = engine.beginTest(named: "ConcurrencyBenchmarks.executor", serial: false)
        let jobRun = TestIdentity.$current.withValue(checkpoint.test) {
            let diagnostic = DiagnosticTaskExecutor("bench", engine: engine)
            return Measure.paired(
                repetitions: context.repetitions, maximum: context.maximumRepetitions,
                tolerance: context.settledTolerance,
                baseline: { blocking { await jobs(jobCount, on: plain) } },
                instrumented: { blocking { await jobs(jobCount, on: diagnostic) } })
        }
        _ = engine.finishTest(checkpoint)
        let outsideTests = DiagnosticTaskExecutor("bench", engine: engine)
        let outsideRun = Measure.paired(
            repetitions: context.repetitions,
            baseline: { blocking { await jobs(jobCount, on: plain) } },
            instrumented: { blocking { await jobs(jobCount, on: outsideTests) } })
        results.append(BenchmarkResult(name: "concurrency.executor.plain", unit: "ns/job", statistics: jobRun.baseline))
        results.append(
            BenchmarkResult(
                name: "concurrency.executor.diagnosed", unit: "ns/job", statistics: jobRun.instrumented,
                notes: [
                    "what":
                        "Task.yield() in a test's task that prefers the executor: one job each, counted, timed, attributed, 32-frame stacks"
                ]))
        results.append(
            BenchmarkResult(
                name: "concurrency.executor.ratio", unit: "×", statistics: jobRun.ratio, target: .atMost(1.30)))
        results.append(
            BenchmarkResult(
                name: "concurrency.executor.outsideTestsRatio", unit: "×", statistics: outsideRun.ratio,
                notes: [
                    "what":
                        "the same outside any test, for information: each job reads the task-local test that is not set"
                ]))
        results += taskStarts(context, engine: engine)
        results += streamHook(context, engine: engine)
        return results
    }

    /// The stream hook's cost per plain yield. The stub is linked into every process of the
    /// package, so there is no uninstrumented twin: the baseline is the same yield with no test
    /// open (the hook returns after one atomic load), against a test open (the hook looks up
    /// the stream among the finished ones and reads the yield's result), and against a test
    /// open while a finished stream is alive (the lookup then takes the hook's lock).
    static func streamHook(_ context: BenchmarkContext, engine: DiagnosticsEngine) -> [BenchmarkResult] {
        let yieldCount = context.quick ? 100_000 : 1_000_000
        let checkpoint = engine.beginTest(named: "ConcurrencyBenchmarks.streamHook", serial: false)
        let (finishedRun, inTestRun) = TestIdentity.$current.withValue(checkpoint.test) {
            let inTest = measureAgainstNoTest(context, count: yieldCount)
            let (finished, continuation) = AsyncStream.makeStream(of: Int.self)
            continuation.finish()
            let afterFinish = measureAgainstNoTest(context, count: yieldCount)
            blackHole(finished)
            return (afterFinish, inTest)
        }
        _ = engine.finishTest(checkpoint)
        let seen = DiagnosticsEngine.seesStreamMisuse ? "on" : "off (not Linux): no hook"
        return [
            BenchmarkResult(
                name: "concurrency.streamHook.yieldOutsideTests", unit: "ns/yield", statistics: inTestRun.baseline,
                notes: ["what": "AsyncStream.Continuation.yield through the hook's stub, no test open; hook \(seen)"]),
            BenchmarkResult(
                name: "concurrency.streamHook.yieldInTest", unit: "ns/yield", statistics: inTestRun.instrumented,
                notes: ["what": "the same yield while a test is open: finished-table check and YieldResult read"]),
            BenchmarkResult(
                name: "concurrency.streamHook.ratio", unit: "×", statistics: inTestRun.ratio, target: .atMost(1.30)),
            BenchmarkResult(
                name: "concurrency.streamHook.yieldAfterAFinish", unit: "ns/yield",
                statistics: finishedRun.instrumented,
                notes: ["what": "the same while a finished stream is alive: each yield looks itself up under the lock"]),
            BenchmarkResult(
                name: "concurrency.streamHook.afterAFinishRatio", unit: "×", statistics: finishedRun.ratio,
                notes: ["what": "for information"]),
        ]
    }

    /// Yields as if no test were open (the baseline: the hook's count of open tests taken
    /// back to 0 around them) against yields in the open test.
    private static func measureAgainstNoTest(
        _ context: BenchmarkContext, count: Int
    ) -> (baseline: Statistics, instrumented: Statistics, ratio: Statistics) {
        Measure.paired(
            repetitions: context.repetitions, maximum: context.maximumRepetitions, tolerance: context.settledTolerance,
            baseline: {
                rdiag_stream_hook_tests(-1)
                defer { rdiag_stream_hook_tests(1) }
                return yields(count)
            },
            instrumented: { yields(count) })
    }
}
