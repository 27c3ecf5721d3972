@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// What global instrumentation counts, how it labels stages, and that it stops.
    @Suite struct Instrumentation {
        @Test func everyStageIsCountedAndLabelledWithItsPublisherType() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            var cancellable: AnyCancellable?
            let (outcome, statistics) = instrumented(engine) { instrumentation in
                let outcome = runTest(engine) {
                    // `Just(1).map` is a `Just` in OpenCombine; an erased upstream keeps the `map`.
                    _ = Just(1).eraseToAnyPublisher().map { $0 + 1 }.sink { _ in }
                    cancellable = subject.map { $0 * 2 }.filter { $0 > 2 }.sink { _ in }
                }
                return (outcome, instrumentation.statistics)
            }
            #expect(statistics.subscriptionsTracked == 5)
            #expect(engine.ledger.registeredCount(of: .subscription) == 5)
            // The leaked chain is one finding, told for its downstream stage, its stages listed.
            #expect(outcome.findings.map(\.label) == ["Filter<Map<PassthroughSubject<Int, Never>, Int>>"])
            #expect(
                outcome.findings.first?.details["stages"]?.components(separatedBy: " → ") == [
                    "PassthroughSubject<Int, Never>", "Map<PassthroughSubject<Int, Never>, Int>",
                    "Filter<Map<PassthroughSubject<Int, Never>, Int>>",
                ])
            #expect(outcome.findings.allSatisfy { $0.kind == .leakedSubscription })
            for finding in outcome.findings {
                expectStack(engine, finding.allocationStack)
            }
            cancellable?.cancel()
            expectNoLiveSubscriptions(engine)
        }

        @Test func stopReallyStopsCounting() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let instrumentation = CombineInstrumentation.start(engine: engine)
            #expect(CombineInstrumentation.current === instrumentation && instrumentation.isRunning)
            let running = subject.sink { _ in }
            #expect(instrumentation.statistics.subscriptionsTracked == 1)
            #expect(engine.ledger.liveCount(of: .subscription) == 1)

            instrumentation.stop()
            #expect(!instrumentation.isRunning && CombineInstrumentation.current == nil)
            #expect(engine.ledger.liveCount(of: .subscription) == 0, "stages still running are retired")
            let after = subject.map { $0 }.sink { _ in }
            _ = Just(1).sink { _ in }
            subject.send(1)
            #expect(instrumentation.statistics.subscriptionsTracked == 1)
            #expect(engine.ledger.registeredCount(of: .subscription) == 1)
            #expect(engine.findings().isEmpty, "\(engine.findings().map(\.message))")
            withExtendedLifetime((running, after)) {}
        }

        @Test func startingAgainReturnsTheRunningInstrumentationAndAnotherEngineReplacesIt() {
            let first = makeEngine()
            let second = makeEngine()
            let instrumentation = CombineInstrumentation.start(engine: first)
            defer { CombineInstrumentation.stop() }
            #expect(CombineInstrumentation.start(engine: first) === instrumentation)
            let replacement = CombineInstrumentation.start(engine: second)
            #expect(replacement !== instrumentation && !instrumentation.isRunning && replacement.isRunning)
            _ = Just(1).sink { _ in }
            #expect(first.ledger.registeredCount(of: .subscription) == 0)
            #expect(second.ledger.registeredCount(of: .subscription) == 1)
        }

        @Test func aDiagnosedStreamIsCountedOnce() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            var cancellables = Set<AnyCancellable>()
            let (outcome, statistics) = instrumented(engine) { instrumentation in
                let outcome = runTest(engine) {
                    subject.diagnosed("plain", engine: engine).sink { _ in }.store(in: &cancellables)
                    subject.diagnosed("erased after", engine: engine).eraseToAnyPublisher().sink { _ in }
                        .store(in: &cancellables)
                    subject.eraseToAnyPublisher().diagnosed("erased before", engine: engine).sink { _ in }
                        .store(in: &cancellables)
                    Deferred { subject.diagnosed("deferred", engine: engine) }.sink { _ in }.store(in: &cancellables)
                    subject.send(1)
                }
                return (outcome, instrumentation.statistics)
            }
            #expect(statistics.subscriptionsTracked == 0, "every stage of these streams is the diagnosed one")
            // Two skipped subscribe calls per stream (the stage's, its checker's upstream), except
            // where `.sink` follows the stage directly ("plain", "erased before"): stage and sink
            // are one subscriber there, with one subscribe call.
            #expect(statistics.diagnosedStagesSkipped == 6)
            #expect(engine.ledger.registeredCount(of: .subscription) == 4)
            #expect(
                Set(outcome.findings.compactMap(\.label)) == ["plain", "erased after", "erased before", "deferred"])
            #expect(outcome.findings.count == 4 && outcome.findings.allSatisfy { $0.kind == .leakedSubscription })
            cancellables.removeAll()
            expectNoLiveSubscriptions(engine)
        }

        @Test func stagesAroundADiagnosedStageAreStillCounted() {
            let engine = makeEngine()
            let (outcome, statistics) = instrumented(engine) { instrumentation in
                let outcome = runTest(engine) {
                    _ = Just(1).eraseToAnyPublisher().map { $0 + 1 }.diagnosed("middle", engine: engine)
                        .filter { $0 > 0 }.sink { _ in }
                }
                return (outcome, instrumentation.statistics)
            }
            // sink ← Filter and Map ← Just are the hook's; the diagnosed stage is the third.
            #expect(statistics.subscriptionsTracked == 2 && statistics.diagnosedStagesSkipped == 2)
            #expect(engine.ledger.registeredCount(of: .subscription) == 3)
            #expect(outcome.findings.isEmpty)
            expectNoLiveSubscriptions(engine)
        }

        @Test func forwardingPublishersAreOneStageLabelledWithWhatServesIt() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            var cancellable: AnyCancellable?
            let (outcome, statistics) = instrumented(engine) { instrumentation in
                let outcome = runTest(engine) {
                    cancellable = Deferred { subject }.eraseToAnyPublisher().sink { _ in }
                }
                return (outcome, instrumentation.statistics)
            }
            #expect(statistics.subscriptionsTracked == 1)
            let leak = onlyFinding(outcome, .leakedSubscription)
            expectEvidence(
                leak, engine, kind: .leakedSubscription, label: "PassthroughSubject<Int, Never>", outcome: outcome)
            cancellable?.cancel()
            expectNoLiveSubscriptions(engine)
        }

        @Test func aSubscriberSubscribedTwiceIsFound() {
            let engine = makeEngine()
            let first = PassthroughSubject<Int, Never>()
            let second = PassthroughSubject<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .unlimited)
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    first.subscribe(recorder)
                    second.subscribe(recorder)  // Reactive Streams 2.5: a subscriber takes one subscription
                    recorder.cancel()
                    first.send(completion: .finished)
                }
            }
            expectEvidence(
                onlyFinding(outcome, .duplicateSubscription), engine, kind: .duplicateSubscription,
                label: "PassthroughSubject<Int, Never>", outcome: outcome)
        }

        /// A subscriber that subscribes again once its stream finished (as `retry` and `catch`
        /// do with their own) starts a new stage: its values are the new stream's, never taken
        /// for values after the first one's completion, although the thread's cache of stages
        /// last found the first one under the same key.
        @Test func aSubscriberSubscribingAgainAfterItsStreamFinishedIsANewStage() {
            let engine = makeEngine()
            let first = PassthroughSubject<Int, Never>()
            let second = PassthroughSubject<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .unlimited)
            let outcome = instrumented(engine) { instrumentation in
                let outcome = runTest(engine) {
                    first.subscribe(recorder)
                    first.send(1)
                    first.send(2)
                    first.send(completion: .finished)
                    second.subscribe(recorder)
                    second.send(3)
                    second.send(completion: .finished)
                }
                #expect(instrumentation.statistics.subscriptionsTracked == 2)
                return outcome
            }
            #expect(recorder.values == [1, 2, 3])
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) })")
            expectNoLiveSubscriptions(engine)
        }

        @Test func aValueBeforeTheSubscriptionIsFound() {
            let engine = makeEngine()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = EagerPublisher().sink { _ in }
                }
            }
            expectEvidence(
                onlyFinding(outcome, .eventBeforeSubscription), engine, kind: .eventBeforeSubscription,
                label: "EagerPublisher", outcome: outcome)
        }

        @Test func stopWaitsForDeliveriesInProgressOnOtherThreads() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            let instrumentation = CombineInstrumentation.start(engine: engine)
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let stopped = DispatchSemaphore(value: 0)
            let threads = DispatchGroup()
            let testAfterDelivery = Recorder<TestIdentity>()
            let outcome = runTest(engine) {
                let cancellable = upstream.sink { _ in
                    entered.signal()
                    wait(release, "the release of the delivery")
                }
                onThread(group: threads) {
                    upstream.send(1)
                    testAfterDelivery.append(TestIdentity.contextual)
                }
                wait(entered, "the delivery to start")
                onThread(group: threads) {
                    instrumentation.stop()
                    stopped.signal()
                }
                eventually("stop began") { !instrumentation.isRunning }
                #expect(stopped.wait(timeout: .now() + 0.05) == .timedOut, "stop waits for the delivery")
                release.signal()
                #expect(threads.wait(timeout: .now() + 5) == .success)
                cancellable.cancel()
            }
            #expect(stopped.wait(timeout: .now()) == .success)
            #expect(testAfterDelivery.values == [.none], "the delivering thread's test binding was undone")
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
        }

        @Test func aLongRunPrunesTheStagesItNoLongerNeeds() {
            let engine = makeEngine { $0.capturesAllocationStacks = false }
            instrumented(engine) { instrumentation in
                for value in 0..<3_000 {
                    _ = Just(value).eraseToAnyPublisher().map { $0 + 1 }.sink { _ in }
                }
                let statistics = instrumentation.statistics
                #expect(statistics.subscriptionsTracked == 6_000)
                #expect(statistics.stagesRemembered < 6_000, "the table pruned itself on the way")
            }
            expectNoLiveSubscriptions(engine)
        }

        @Test func stagesWhoseObjectsAreGoneAreForgotten() {
            let engine = makeEngine()
            instrumented(engine) { instrumentation in
                for value in 0..<100 {
                    _ = Just(value).eraseToAnyPublisher().map { $0 + 1 }.sink { _ in }
                }
                instrumentation.sweep()
                #expect(instrumentation.statistics.subscriptionsTracked == 200)
                #expect(instrumentation.statistics.stagesRemembered == 0)
            }
            expectNoLiveSubscriptions(engine)
        }
    }
}

/// A custom publisher with a bug: it delivers a value before handing out its subscription.
struct EagerPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        _ = subscriber.receive(0)  // the bug
        subscriber.receive(subscription: RecordingSubscription())
        subscriber.receive(completion: .finished)
    }
}
