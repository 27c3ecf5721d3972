import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// Each finding provoked under global instrumentation, with no `.diagnosed()` anywhere:
    /// stages are labelled with the publisher's type.
    @Suite struct InstrumentationFindings {
        @Test func aValueAfterCompletionIsFound() {
            let engine = makeEngine()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = ValueAfterCompletionPublisher().sink { _ in }
                }
            }
            expectEvidence(
                onlyFinding(outcome, .valueAfterTermination), engine, kind: .valueAfterTermination,
                label: "ValueAfterCompletionPublisher", outcome: outcome)
        }

        @Test func moreValuesThanRequestedAreFound() {
            let engine = makeEngine()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1))
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    FloodingPublisher(values: [1, 2]).subscribe(recorder)
                }
            }
            #expect(recorder.values == [1, 2])
            expectEvidence(
                onlyFinding(outcome, .demandExceeded), engine, kind: .demandExceeded,
                label: "FloodingPublisher", outcome: outcome)
        }

        @Test func twoThreadsDeliveringAtOnceAreFound() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            let firstInside = DispatchSemaphore(value: 0)
            let secondDone = DispatchSemaphore(value: 0)
            let bothDone = DispatchGroup()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let cancellable = upstream.sink { value in
                        if value == 1 {
                            firstInside.signal()
                            wait(secondDone, "the second thread's delivery")
                        }
                    }
                    onThread(group: bothDone) { upstream.send(1) }
                    onThread(group: bothDone) {
                        wait(firstInside, "the first delivery to start")
                        upstream.send(2)
                        secondDone.signal()
                    }
                    #expect(bothDone.wait(timeout: .now() + 5) == .success)
                    cancellable.cancel()
                }
            }
            let finding = onlyFinding(outcome, .concurrentDelivery)
            expectEvidence(
                finding, engine, kind: .concurrentDelivery, label: "ManualPublisher<Int, Never>", outcome: outcome)
            #expect(finding?.otherThread != nil)
        }

        @Test func anAssignToSelfCycleIsALeak() throws {
            let engine = makeEngine()
            let names = PassthroughSubject<String, Never>()
            weak var model: ProfileModel?
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    let strong = ProfileModel(names: names)
                    model = strong
                    names.send("Ada")
                }
            }
            let finding = onlyFinding(outcome, .leakedSubscription)
            expectEvidence(
                finding, engine, kind: .leakedSubscription, label: "PassthroughSubject<String, Never>",
                outcome: outcome)
            expectStack(engine, try #require(finding).allocationStack, contains: "ProfileModel.init")
            #expect(model?.name == "Ada")
            names.send(completion: .finished)
            #expect(model == nil)
        }

        @Test func aRequestAfterCompletionByTheUsersSubscriberIsFound() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1))
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    upstream.subscribe(recorder)
                    let subscription = recorder.subscription
                    upstream.send(completion: .finished)
                    subscription?.request(.max(1))  // a stale subscription, asked again
                }
            }
            expectEvidence(
                onlyFinding(outcome, .requestAfterTermination), engine, kind: .requestAfterTermination,
                label: "ManualPublisher<Int, Never>", outcome: outcome)
        }

        @Test func anUnstoredCancellableIsAPrematureCancellation() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    _ = subject.map { $0 * 2 }.sink { _ in }  // not stored: cancelled at once
                    subject.send(1)
                }
            }
            // One finding for the chain: the stage the released cancellable belonged to.
            let finding = onlyFinding(outcome, .prematureCancellation)
            expectEvidence(
                finding, engine, kind: .prematureCancellation, label: "Map<PassthroughSubject<Int, Never>, Int>",
                outcome: outcome)
            #expect(
                engine.symbolize(try #require(finding).eventStack).contains(
                    function: "OpenCombine.AnyCancellable.deinit"))
        }

        @Test func aSinkOnAStreamThatNeverEndsIsOneLeakListingItsStages() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            var cancellable: AnyCancellable?
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    cancellable = subject.map { $0 + 1 }.sink { _ in }
                    subject.send(1)
                }
            }
            // Both stages are alive because the sink is: one bug, one finding, told for the
            // downstream stage and listing the chain upstream first.
            #expect(outcome.findings.count == 1, "\(outcome.findings.map { engine.describe($0) })")
            let leak = outcome.findings.first { $0.kind == .leakedSubscription }
            expectEvidence(
                leak, engine, kind: .leakedSubscription, label: "Map<PassthroughSubject<Int, Never>, Int>",
                outcome: outcome)
            #expect(
                leak?.details["stages"] == "PassthroughSubject<Int, Never> → Map<PassthroughSubject<Int, Never>, Int>")
            #expect(leak?.details["stageCount"] == "2")
            #expect(leak?.message.contains("One chain of 2 stages") == true)
            cancellable?.cancel()
            expectNoLiveSubscriptions(engine)
        }

        @Test func aTimerPublisherNeverCancelledIsOneLeakHoldingItsTimer() throws {
            let engine = makeEngine()
            let loop = RunLoopThread()
            defer { loop.stop() }
            let ticked = DispatchSemaphore(value: 0)
            var cancellable: AnyCancellable?
            let outcome = instrumented(engine) { _ in
                runTest(engine) {
                    cancellable = Timer.publish(every: 0.01, on: loop.runLoop, in: .default)
                        .autoconnect()
                        .sink { _ in ticked.signal() }
                    wait(ticked, "a tick")
                }
            }
            // One bug: the sink is never cancelled; the timer it started is alive because it is.
            #expect(outcome.findings.count == 1, "\(outcome.findings.map { engine.describe($0) })")
            let leak = onlyFinding(outcome, .leakedSubscription)
            expectEvidence(
                leak, engine, kind: .leakedSubscription, label: "Autoconnect<TimerPublisher>", outcome: outcome)
            #expect(leak?.details["stages"]?.contains("TimerPublisher (timer)") == true, "\(leak?.details ?? [:])")
            cancellable?.cancel()
            expectNoLiveSubscriptions(engine)
        }
    }
}
