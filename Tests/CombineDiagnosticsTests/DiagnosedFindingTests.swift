@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

/// A model that binds a stream to itself with `assign(to:on: self)`: the subscriber holds
/// the model strongly and the model holds the subscription, a cycle nothing breaks while
/// the stream runs.
final class ProfileModel {
    var name = ""
    var cancellables = Set<AnyCancellable>()

    init(names: some Publisher<String, Never>) {
        names.assign(to: \.name, on: self).store(in: &cancellables)
    }
}

extension CombineAdapterTests {
    /// Each finding provoked through a `.diagnosed()` stage with real OpenCombine code.
    @Suite struct DiagnosedFindings {
        @Test func aValueAfterCompletionIsFound() {
            let engine = makeEngine()
            var values: [Int] = []
            let outcome = runTest(engine) {
                _ = ValueAfterCompletionPublisher().diagnosed("after completion", engine: engine).sink {
                    values.append($0)
                }
            }
            #expect(values == [1], "the stage forwarded the illegal value; the sink ignored it")
            expectEvidence(
                onlyFinding(outcome, .valueAfterTermination), engine, kind: .valueAfterTermination,
                label: "after completion", outcome: outcome)
        }

        @Test func moreValuesThanRequestedAreFound() {
            let engine = makeEngine()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1))
            let outcome = runTest(engine) {
                FloodingPublisher(values: [1, 2]).diagnosed("flood", engine: engine).subscribe(recorder)
            }
            #expect(recorder.values == [1, 2])
            let finding = onlyFinding(outcome, .demandExceeded)
            expectEvidence(finding, engine, kind: .demandExceeded, label: "flood", outcome: outcome)
            #expect(finding?.details["outstandingDemand"] == "0")
        }

        @Test func twoThreadsDeliveringAtOnceAreFound() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            let firstInside = DispatchSemaphore(value: 0)
            let secondDone = DispatchSemaphore(value: 0)
            let bothDone = DispatchGroup()
            let received = Recorder<Int>()
            let outcome = runTest(engine) {
                let cancellable = upstream.diagnosed("two threads", engine: engine).sink { value in
                    received.append(value)
                    if value == 1 {
                        firstInside.signal()
                        wait(secondDone, "the second thread's delivery")  // hold the first delivery open
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
            #expect(Set(received.values) == [1, 2])
            let finding = onlyFinding(outcome, .concurrentDelivery)
            expectEvidence(finding, engine, kind: .concurrentDelivery, label: "two threads", outcome: outcome)
            #expect(
                finding?.otherThread != nil && finding?.relatedStack.isCaptured == true,
                "the first thread adds its side when its delivery ends")
        }

        @Test func anAssignToSelfCycleIsALeak() throws {
            let engine = makeEngine()
            let names = PassthroughSubject<String, Never>()
            weak var model: ProfileModel?
            let outcome = runTest(engine) {
                let strong = ProfileModel(names: names.diagnosed("name", engine: engine))
                model = strong
                names.send("Ada")
                #expect(model?.name == "Ada", "the cycle keeps the model alive after its last reference is gone")
            }
            expectEvidence(
                onlyFinding(outcome, .leakedSubscription), engine, kind: .leakedSubscription,
                label: "name", outcome: outcome)
            expectStack(engine, try #require(outcome.findings.first).allocationStack, contains: "ProfileModel.init")
            names.send(completion: .finished)  // breaks the cycle
            #expect(model == nil)
        }

        @Test func anUnstoredCancellableIsAPrematureCancellation() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let outcome = runTest(engine) {
                _ = subject.diagnosed("forgotten", engine: engine).sink { _ in }  // not stored: cancelled at once
                subject.send(1)
            }
            let finding = onlyFinding(outcome, .prematureCancellation)
            expectEvidence(finding, engine, kind: .prematureCancellation, label: "forgotten", outcome: outcome)
            let cancel = engine.symbolize(try #require(finding).eventStack)
            #expect(
                cancel.contains(function: "OpenCombine.AnyCancellable.deinit"),
                "the cancel came from \(cancel.frames.compactMap(\.function).prefix(8))")
            #expect(finding?.details["marker"] == "AnyCancellable.deinit")
        }

        @Test func aStoredCancellableCancelledOnPurposeIsFine() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let outcome = runTest(engine) {
                let cancellable = subject.diagnosed("kept", engine: engine).sink { _ in }
                cancellable.cancel()
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
        }

        @Test func aSinkOnAStreamThatNeverEndsIsALeak() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            var cancellable: AnyCancellable?
            let outcome = runTest(engine) {
                cancellable = subject.diagnosed("endless", engine: engine).sink { _ in }
                subject.send(1)
            }
            expectEvidence(
                onlyFinding(outcome, .leakedSubscription), engine, kind: .leakedSubscription,
                label: "endless", outcome: outcome)
            cancellable?.cancel()
            #expect(engine.ledger.liveCount(of: .subscription) == 0)
        }

        @Test func valuesOffTheExpectedQueueAreFound() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            let delivered = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                let cancellable =
                    subject
                    .expectDelivery(on: .mainQueue, "profile UI", engine: engine)
                    .sink { _ in delivered.signal() }
                onBackground { subject.send(1) }  // forgot .receive(on: DispatchQueue.main)
                wait(delivered, "the background delivery")
                cancellable.cancel()
            }
            let finding = onlyFinding(outcome, .wrongThread)
            expectEvidence(finding, engine, kind: .wrongThread, label: "profile UI", outcome: outcome)
            #expect(finding?.thread?.isMainQueue == false && finding?.details["expected"] == "main queue")
        }
    }
}
