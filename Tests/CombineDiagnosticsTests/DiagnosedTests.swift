@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// `.diagnosed()` is transparent: values, demand, completion and cancel pass unchanged,
    /// and its subscription is a live resource exactly while the stream runs.
    @Suite struct DiagnosedStage {
        @Test func valuesAndDemandPassThroughUnchanged() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(2)) { $0 == 2 ? .max(3) : .none }
            let outcome = runTest(engine) {
                upstream.diagnosed("pass", engine: engine).subscribe(recorder)
                #expect(upstream.subscription.requests == [.max(2)])
                #expect(engine.ledger.liveCount(of: .subscription) == 1)
                #expect(upstream.send(1) == .none)
                #expect(upstream.send(2) == .max(3), "the demand returned from receive(_:) comes back unchanged")
                recorder.request(.max(1))
                #expect(upstream.subscription.requests == [.max(2), .max(1)])
                recorder.request(.unlimited)
                #expect(upstream.subscription.requests == [.max(2), .max(1), .unlimited])
                upstream.send(completion: .finished)
            }
            #expect(recorder.values == [1, 2])
            #expect(recorder.completions.count == 1 && recorder.subscriptionCount == 1)
            #expect(upstream.subscription.cancels == 0)
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
            #expect(
                engine.ledger.liveCount(of: .subscription) == 0 && engine.ledger.registeredCount(of: .subscription) == 1
            )
        }

        @Test func failuresPassThroughUnchanged() {
            let engine = makeEngine()
            let recorder = DemandRecorder<Int, URLError>(initialDemand: .unlimited)
            let outcome = runTest(engine) {
                Fail<Int, URLError>(error: URLError(.timedOut)).diagnosed("fails", engine: engine).subscribe(recorder)
            }
            guard case .failure(let error)? = recorder.completions.first else {
                Issue.record("no failure arrived: \(recorder.completions)")
                return
            }
            #expect(error.code == .timedOut)
            #expect(outcome.findings.isEmpty)
        }

        @Test func cancelIsForwardedOnce() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            let outcome = runTest(engine) {
                let recorder = DemandRecorder<Int, Never>(initialDemand: .unlimited)
                upstream.diagnosed("cancelled", engine: engine).subscribe(recorder)
                let stage = recorder.subscription.map { $0 as AnyObject }
                #expect(stage.map { "\($0)" } == "Diagnosed(cancelled)")
                recorder.cancel()
                #expect(upstream.subscription.cancels == 1)
                (stage as? any Subscription)?.cancel()
                #expect(upstream.subscription.cancels == 1, "a second cancel is not forwarded")
                #expect(engine.ledger.liveCount(of: .subscription) == 0)
            }
            #expect(outcome.findings.isEmpty)
        }

        @Test func noRetainCycleAfterCancelOrCompletion() {
            let engine = makeEngine()
            weak var cancelledStage: AnyObject?
            weak var completedStage: AnyObject?
            let outcome = runTest(engine) {
                let subject = PassthroughSubject<Int, Never>()
                let recorder = DemandRecorder<Int, Never>(initialDemand: .unlimited)
                subject.diagnosed("subject", engine: engine).subscribe(recorder)
                cancelledStage = recorder.subscription.map { $0 as AnyObject }
                recorder.cancel()

                let other = DemandRecorder<Int, Never>(initialDemand: .unlimited)
                subject.diagnosed("completed", engine: engine).subscribe(other)
                completedStage = other.subscription.map { $0 as AnyObject }
                subject.send(completion: .finished)
            }
            #expect(cancelledStage == nil && completedStage == nil)
            #expect(outcome.findings.isEmpty)
        }

        @Test func aDisabledEngineAddsNoStage() {
            let engine = makeEngine { $0.isEnabled = false }
            let upstream = ManualPublisher<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1))
            upstream.diagnosed("off", engine: engine).subscribe(recorder)
            #expect(recorder.subscription.map { $0 as AnyObject } === upstream.subscription)
            #expect(engine.ledger.registeredCount(of: .subscription) == 0)
        }

        @Test func theDefaultLabelIsFileAndLine() throws {
            let engine = makeEngine()
            let line = #line + 1
            let stage = Just(1).diagnosed(engine: engine)
            #expect(stage.label.name == "DiagnosedTests.swift:\(line)")
        }

        @Test func aContractIsChecked() throws {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let outcome = runTest(engine) {
                let cancellable = subject.diagnosed("single", contract: .single, engine: engine).sink {
                    values.append($0)
                }
                subject.send(1)
                subject.send(2)
                subject.send(completion: .finished)
                _ = Just(3).diagnosed("just", contract: .single, engine: engine).sink { values.append($0) }
                withExtendedLifetime(cancellable) {}
            }
            #expect(values == [1, 2, 3], "a contract violation is reported, never enforced")
            let violation = try #require(onlyFinding(outcome, .contractViolation))
            #expect(violation.label == "single" && violation.details["rule"] == "values")
            expectStack(engine, violation.allocationStack)
        }

        @Test func valuesDeliveredWhereExpectedAreFine() {
            let engine = makeEngine()
            let delivered = DispatchSemaphore(value: 0)
            let outcome = runTest(engine) {
                let cancellable = Just(1)
                    .subscribe(on: DispatchQueue.global())
                    .receive(on: DispatchQueue.main)
                    .expectDelivery(on: .mainQueue, "ui", engine: engine)
                    .sink(receiveCompletion: { _ in delivered.signal() }, receiveValue: { _ in })
                wait(delivered, "delivery on the main queue")
                withExtendedLifetime(cancellable) {}
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
        }
    }
}
