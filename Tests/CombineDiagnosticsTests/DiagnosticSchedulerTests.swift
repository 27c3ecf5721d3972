@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import CombineSchedulers
import Dispatch
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// `DiagnosticScheduler` over deterministic and real schedulers.
    @Suite struct DiagnosticSchedulers {
        // MARK: Counting, on a TestScheduler

        @Test func countsScheduledExecutedCancelledAndPendingActions() {
            let engine = makeEngine()
            let clock = DispatchQueue.test
            let scheduler = clock.diagnosed("counted", engine: engine)
            var runs: [String] = []
            scheduler.schedule { runs.append("now") }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { runs.append("later") }
            let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { runs.append("tick") }
            #expect(scheduler.summary.scheduled == 3 && scheduler.summary.pending == 2)
            #expect(scheduler.summary.activeRepeating == 1)
            #expect(engine.ledger.liveCount(of: .scheduledAction) == 2 && engine.ledger.liveCount(of: .timer) == 1)

            clock.advance(by: .seconds(2))
            #expect(runs.filter { $0 == "tick" }.count == 3 && runs.contains("now") && runs.contains("later"))
            timer.cancel()
            clock.advance(by: .seconds(5))
            let summary = scheduler.summary
            #expect(
                summary.executed == 5 && summary.cancelled == 1 && summary.pending == 0 && summary.activeRepeating == 0)
            #expect(summary.latency.count == 5 && summary.duration.count == 5)
            #expect(engine.ledger.liveCount(of: .scheduledAction) == 0 && engine.ledger.liveCount(of: .timer) == 0)
        }

        @Test func aDelayedActionStillPendingAtTheCheckpointIsFound() {
            let engine = makeEngine()
            let clock = DispatchQueue.test
            let scheduler = clock.diagnosed("retry backoff", engine: engine)
            let outcome = runTest(engine) {
                scheduler.schedule(after: scheduler.now.advanced(by: .seconds(30))) {}
                clock.advance(by: .seconds(10))  // not far enough
            }
            expectEvidence(
                onlyFinding(outcome, .pendingAction), engine, kind: .pendingAction, label: "retry backoff",
                outcome: outcome)
            clock.advance(by: .seconds(20))
            #expect(scheduler.summary.pending == 0 && engine.ledger.liveCount(of: .scheduledAction) == 0)
        }

        @Test func anActionOnASuspendedQueueIsPendingUntilItRuns() {
            let engine = makeEngine()
            let queue = DispatchQueue(label: "suspended")
            let scheduler = queue.diagnosed("suspended queue", engine: engine)
            let ran = DispatchSemaphore(value: 0)
            queue.suspend()
            let outcome = runTest(engine) {
                scheduler.schedule { ran.signal() }
            }
            expectEvidence(
                onlyFinding(outcome, .pendingAction), engine, kind: .pendingAction, label: "suspended queue",
                outcome: outcome)
            queue.resume()
            wait(ran, "the action after resume")
            eventually("the action returned") { scheduler.summary.pending == 0 }
            #expect(scheduler.summary.executed == 1)
        }

        @Test func aRepeatingActionNeverCancelledIsFound() {
            let engine = makeEngine()
            let clock = DispatchQueue.test
            let scheduler = clock.diagnosed("poll", engine: engine)
            var timer: (any Cancellable)?
            let outcome = runTest(engine) {
                timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
                clock.advance(by: .seconds(3))
            }
            expectEvidence(
                onlyFinding(outcome, .uncancelledTimer), engine, kind: .uncancelledTimer, label: "poll",
                outcome: outcome)
            timer?.cancel()
            #expect(engine.ledger.liveCount(of: .timer) == 0)
        }

        /// The master switch (`REACTIVE_DIAGNOSTICS_ENABLED=0`): the same uncancelled timer on a
        /// disabled engine fails nothing, and its test neither settles nor is judged (a plain run
        /// of a suite, which the benchmark measures against, paid for a finding it never showed).
        @Test func aDisabledEngineReportsNoUncancelledTimer() {
            let engine = makeEngine { $0.isEnabled = false }
            let clock = DispatchQueue.test
            let scheduler = clock.diagnosed("poll", engine: engine)
            var timer: (any Cancellable)?
            let outcome = runTest(engine) {
                timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
                clock.advance(by: .seconds(3))
            }
            #expect(outcome.findings.isEmpty)
            #expect(outcome.settleDuration == .zero)
            #expect(engine.findings().isEmpty)
            timer?.cancel()
        }

        @Test func aRepeatingDispatchTimerNeverCancelledIsFound() {
            let engine = makeEngine()
            let scheduler = DispatchQueue(label: "heartbeat").diagnosed("heartbeat", engine: engine)
            let ticked = DispatchSemaphore(value: 0)
            var timer: (any Cancellable)?
            let outcome = runTest(engine) {
                timer = scheduler.schedule(after: scheduler.now, interval: .milliseconds(10)) { ticked.signal() }
                wait(ticked, "a tick")
            }
            expectEvidence(
                onlyFinding(outcome, .uncancelledTimer), engine, kind: .uncancelledTimer, label: "heartbeat",
                outcome: outcome)
            timer?.cancel()
            #expect(engine.ledger.liveCount(of: .timer) == 0 && scheduler.summary.cancelled == 1)
        }

        @Test func releasingATimerThatCancelsOnReleaseEndsIt() {
            let engine = makeEngine()
            let clock = DispatchQueue.test
            let scheduler = clock.diagnosed("released", engine: engine)
            let outcome = runTest(engine) {
                _ = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
            }
            #expect(outcome.findings.isEmpty)
            #expect(scheduler.summary.cancelled == 1 && engine.ledger.liveCount(of: .timer) == 0)
        }

        // MARK: Threads and long actions

        @Test func actionsOffTheExpectedQueueAreFoundWithTheSchedulingStack() {
            let engine = makeEngine()
            let scheduler = DispatchQueue.global().diagnosed("ui", expecting: .mainQueue, engine: engine)
            let ran = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                scheduler.schedule { ran.signal() }
                wait(ran, "the action")
            }
            let finding = onlyFinding(outcome, .wrongThread)
            expectEvidence(finding, engine, kind: .wrongThread, label: "ui", outcome: outcome)
            #expect(finding?.thread?.isMainQueue == false && scheduler.summary.threadViolations == 1)
            #expect(scheduler.probe.fixedQueue, "a dispatch queue runs every action on itself")
        }

        /// Actions scheduled without options are handed to the queue as they are, those with
        /// options through `DispatchQueue` (their group, QoS and flags honoured): on a serial
        /// queue both keep the order they were scheduled in.
        @Test func aDispatchQueuesActionsKeepTheirOrderAndTheirOptions() {
            let engine = makeEngine()
            let queue = DispatchQueue(label: "combine-tests.options")
            let scheduler = queue.diagnosed("ordered", expecting: .offMainQueue, engine: engine)
            let group = DispatchGroup()
            let order = Recorder<Int>()
            let grouped = Recorder<Int>()
            queue.suspend()
            for index in 0..<1_000 {
                if index.isMultiple(of: 3) {
                    scheduler.schedule(options: .init(group: group)) {
                        order.append(index)
                        grouped.append(index)
                    }
                } else {
                    scheduler.schedule { order.append(index) }
                }
            }
            #expect(group.wait(timeout: .now() + 0.05) == .timedOut, "the group holds the actions given it")
            queue.resume()
            #expect(group.wait(timeout: .now() + 30) == .success)
            #expect(grouped.values == Array(stride(from: 0, to: 1_000, by: 3)))
            queue.sync {}
            #expect(order.values == Array(0..<1_000))
            let summary = scheduler.summary
            #expect(summary.scheduled == 1_000 && summary.executed == 1_000 && summary.pending == 0)
            #expect(summary.threadViolations == 0 && engine.ledger.liveCount(of: .scheduledAction) == 0)
        }

        @Test func actionsOnTheMainQueueMeetTheExpectation() {
            let engine = makeEngine()
            let scheduler = DispatchQueue.main.diagnosed("ui", expecting: .mainQueue, engine: engine)
            let outcome = runTest(engine) {
                let produced = collectAsync(source([1, 2]).receive(on: scheduler))
                #expect(produced.values == [1, 2] && produced.finished)
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
            let summary = scheduler.summary
            #expect(summary.executed >= 1 && summary.threads.allSatisfy(\.isMainQueue))
        }

        @Test func aLongActionIsFound() {
            let engine = makeEngine()
            let scheduler = DispatchQueue(label: "worker").diagnosed(
                "worker", longActionThreshold: .milliseconds(20), engine: engine)
            let ran = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                scheduler.schedule {
                    Thread.sleep(forTimeInterval: 0.05)  // the work that blocks the queue
                    ran.signal()
                }
                wait(ran, "the long action")
            }
            expectEvidence(
                onlyFinding(outcome, .longAction), engine, kind: .longAction, label: "worker", outcome: outcome)
            #expect(scheduler.summary.longActions == 1)
        }

        // MARK: Latency

        @Test func latencyIsMeasuredFromWhenAnActionWasDue() {
            let engine = makeEngine()
            let clock = DispatchQueue.test
            let scheduler = clock.diagnosed("latency", engine: engine)
            scheduler.schedule {}  // due now
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(3600))) {}  // due in an hour
            // Wall time passes before the clock is advanced. Long, so that a loaded machine's
            // scheduling delays stay far below it.
            Thread.sleep(forTimeInterval: 0.5)
            clock.advance(by: .seconds(3600))
            let latency = scheduler.summary.latency
            #expect(latency.count == 2)
            #expect(latency.maxNanos >= 500_000_000, "the immediate action waited for the advance")
            #expect(latency.minNanos < 500_000_000, "the delayed one ran when due, not late")
        }

        // MARK: Other schedulers

        @Test func wrapsARunLoop() {
            let engine = makeEngine()
            let loop = RunLoopThread()
            defer { loop.stop() }
            let scheduler = loop.runLoop.diagnosed("run loop", engine: engine)
            let ran = DispatchSemaphore(value: 0)
            let onLoop = Recorder<Bool>()
            scheduler.schedule {
                onLoop.append(Thread.current === loop.thread)
                ran.signal()
            }
            scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(10))) {
                onLoop.append(Thread.current === loop.thread)
                ran.signal()
            }
            wait(ran, "the immediate action")
            wait(ran, "the delayed action")
            eventually("both actions returned") { scheduler.summary.pending == 0 }
            let summary = scheduler.summary
            #expect(summary.executed == 2)
            #expect(onLoop.values == [true, true])
            #expect(summary.threads.count == 1 && summary.threads.first?.count == 2, "\(summary.threads)")
        }

        @Test func wrapsTheImmediateScheduler() {
            let engine = makeEngine()
            let scheduler = ImmediateScheduler.shared.diagnosed("immediate", engine: engine)
            var runs = 0
            scheduler.schedule { runs += 1 }
            scheduler.schedule(after: scheduler.now) { runs += 1 }
            #expect(runs == 2 && scheduler.summary.executed == 2 && scheduler.summary.pending == 0)
            #expect(!scheduler.probe.fixedQueue, "it runs actions where it is called")
        }

        @Test func erasesToAnySchedulerAndWrapsOne() {
            let engine = makeEngine()
            let clock = DispatchQueue.test
            let diagnosed = clock.diagnosed("erased", engine: engine)
            let erased: AnySchedulerOf<DispatchQueue> = diagnosed.eraseToAnyScheduler()
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.debounce(for: .seconds(1), scheduler: erased).sink { values.append($0) }
            subject.send(1)
            subject.send(2)
            clock.advance(by: .seconds(1))
            // OpenCombine's debounce schedules a repeating action per value and cancels the
            // previous one: 2 scheduled, the second ran once, both cancelled.
            let summary = diagnosed.summary
            #expect(values == [2] && summary.scheduled == 2 && summary.executed == 1 && summary.cancelled == 2)
            #expect(summary.activeRepeating == 0 && engine.ledger.liveCount(of: .timer) == 0)

            let wrapping = DispatchQueue.test.eraseToAnyScheduler().diagnosed("wrapping", engine: engine)
            var ran = false
            wrapping.schedule { ran = true }
            #expect(!ran && wrapping.summary.pending == 1)
            withExtendedLifetime(cancellable) {}
        }

        @Test func theViewModelOfTheDocumentation() {
            let engine = makeEngine()
            let clock = DispatchQueue.test
            let scheduler = clock.diagnosed("search", engine: engine)
            let outcome = runTest(engine) {
                let model = SearchViewModel(
                    search: { Just(["\($0)!"]).eraseToAnyPublisher() }, scheduler: scheduler.eraseToAnyScheduler())
                model.query = "comb"
                model.query = "combine"
                clock.advance(by: .milliseconds(300))
                #expect(model.results == ["combine!"])
                let summary = scheduler.summary
                #expect(summary.scheduled == 3 && summary.pending == 0 && summary.activeRepeating == 0)
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
        }
    }
}

/// The view model of `DiagnosticScheduler`'s documentation.
final class SearchViewModel: ObservableObject {
    @Published var query = ""
    @Published private(set) var results: [String] = []
    private var cancellables: Set<AnyCancellable> = []

    init(search: @escaping (String) -> AnyPublisher<[String], Never>, scheduler: AnySchedulerOf<DispatchQueue>) {
        $query
            .dropFirst()
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates()
            .flatMap(maxPublishers: .max(1), search)
            .receive(on: scheduler)
            .sink { [weak self] in self?.results = $0 }
            .store(in: &cancellables)
    }
}
