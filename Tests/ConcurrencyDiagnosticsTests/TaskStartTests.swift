@_spi(Integration) import ReactiveDiagnostics
import ConcurrencyDiagnostics
import Foundation
import Testing

/// Unstructured tasks started by the app's code left as it is (`Task { }`, `Task.detached { }`)
/// and still running at the test's end: each one a finding at its `Task {` line, with where it
/// is suspended and what fixes it. Linux only (where task starts can be seen).
@Suite(.enabled(if: DiagnosticsEngine.seesUnstructuredTasks, "task starts are seen on Linux only"))
struct TaskStartTests {
    @Test func aTaskTheAppStartedOverItsOwnStreamIsFoundAtItsLine() async throws {
        let engine = makeEngine()
        let model = NewsFeedModel()
        let outcome = await runTest(engine) {
            model.startListening()
            model.publish("Swift 6.3 released")
            await eventually("the headline arrived") { model.count == 1 }
        }
        let finding = onlyFinding(outcome, .leakedResource)
        expectEvidence(
            finding, engine, kind: .leakedResource, label: "Task { … }", outcome: outcome,
            function: "NewsFeedModel.startListening")
        #expect(finding?.resourceKind == .task)
        let suspended = try #require(finding?.relatedStack)
        // Where it waits: the `for await` in listen(), awaited by the task's closure.
        expectStack(engine, suspended, contains: "NewsFeedModel.listen")
        let text = finding.map { engine.describe($0) } ?? ""
        #expect(text.contains("suspended at:"), "\(text)")
        #expect(text.contains("Fix: keep the task and cancel it"), "\(text)")
        model.finish()
    }

    @Test func aDetachedTaskKeptAndNeverCancelledIsFound() async throws {
        let engine = makeEngine()
        let model = NewsFeedModel()
        let outcome = await runTest(engine) {
            model.startPolling()
        }
        let finding = onlyFinding(outcome, .leakedResource)
        expectEvidence(
            finding, engine, kind: .leakedResource, label: "Task.detached { … }", outcome: outcome,
            function: "NewsFeedModel.startPolling")
        let text = finding.map { engine.describe($0) } ?? ""
        #expect(text.contains("a detached task inherits no cancellation"), "\(text)")
        model.stopPolling()
    }

    @Test func aContinuationNeverResumedIsFoundWhereItWaits() async throws {
        let engine = makeEngine()
        let model = NewsFeedModel()
        let api = SettingsAPI()
        let outcome = await runTest(engine) {
            model.startWaitingForSettings(api)
            await eventually("the load was asked for") { api.waiting == 1 }
        }
        let finding = onlyFinding(outcome, .leakedResource)
        expectEvidence(
            finding, engine, kind: .leakedResource, label: "Task { … }", outcome: outcome,
            function: "NewsFeedModel.startWaitingForSettings")
        let suspended = try #require(finding?.relatedStack)
        expectStack(engine, suspended, contains: "NewsFeedModel.startWaitingForSettings")
        api.respond("done")
    }

    @Test func tasksThatEndOrAreCancelledAreNoFinding() async throws {
        let engine = makePatientEngine()
        let model = NewsFeedModel()
        let clock = ClockModel()
        let outcome = await runTest(engine) {
            model.startPolling()
            model.stopPolling()  // the fix: keep the task, cancel it
            clock.startKeepingTheTask()
            clock.send()
            await eventually("the clock ticked") { clock.count == 1 }
            clock.stop()
            let quick = Task { 1 + 1 }  // ends on its own
            _ = await quick.value
            Task { try? await Task.sleep(for: .milliseconds(20)) }  // ends within the settle time
            Task.detached { try? await Task.sleep(for: .milliseconds(20)) }
            await withTaskGroup(of: Int.self) { group in  // children: structured, never followed
                group.addTask { 1 }
                _ = await group.next()
            }
        }
        expectNoFindings(outcome, engine)
        #expect(engine.followedTaskCount == 0, "the test's tasks are forgotten at its checkpoint")
    }

    @Test func tasksStartedOutsideAnyTestAreNotFollowed() async throws {
        let engine = makeEngine()
        let model = NewsFeedModel()
        model.startListening()  // no test is running: not this engine's
        let outcome = await runTest(engine) {}
        expectNoFindings(outcome, engine)
        #expect(engine.followedTaskCount == 0)
        model.finish()
    }

    @Test func aTaskWaitingOnADiagnosedStreamIsOneFindingNotTwo() async throws {
        let engine = makeEngine()
        let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self, engine: engine)
        let outcome = await runTest(engine) {
            TickerModel(prices: prices).start()
            feed.yield(1)
            await waitForIterations(1, in: engine)
        }
        #expect(outcome.findings.map(\.kind) == [.leakedSubscription], "the iteration explains the task")
        feed.finish()
    }

    /// One bug, one finding: a task looping over a chain of async operators on a stream nobody
    /// finishes is one finding at its `Task {` line, however long the chain.
    @Test(arguments: [0, 1, 3, 10])
    func aTaskOverAChainOfOperatorsIsOneFinding(operators: Int) async throws {
        let engine = makeEngine()
        let (stream, feed) = AsyncStream.makeStream(of: Int.self)
        let received = Counter()
        // A name per case: cases of one test run at the same time (the Swift Testing trait numbers them).
        let outcome = await runTest(engine, "aTaskOverAChainOfOperatorsIsOneFinding #\(operators)") {
            ChainedListener.start(over: stream, operators: operators, counting: received)
            feed.yield(1)
            await eventually("the element arrived") { received.value == 1 }
        }
        let lifetime = outcome.findings.filter { $0.kind.isLifetime }
        #expect(lifetime.count == 1, "\(outcome.findings.map { engine.describe($0) })")
        let finding = lifetime.first
        expectEvidence(
            finding, engine, kind: .leakedResource, label: "Task { … }", outcome: outcome,
            function: "ChainedListener.start")
        feed.finish()
    }
}

/// A counter shared with a task.
final class Counter: @unchecked Sendable {
    // Unchecked: `count` is guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// App-style code: a task over `operators` maps of a stream, never cancelled.
enum ChainedListener {
    static func mapped<Base: AsyncSequence<Int, Never>>(_ base: Base, step: Int) -> any AsyncSequence<Int, Never> {
        base.map { $0 + step }
    }

    @inline(never)
    static func start(over stream: AsyncStream<Int>, operators: Int, counting received: Counter) {
        var chain: any AsyncSequence<Int, Never> = stream
        for step in 0..<operators {
            chain = mapped(chain, step: step)
        }
        let sequence = chain
        Task {
            for await _ in sequence {
                received.increment()
            }
        }
    }
}
