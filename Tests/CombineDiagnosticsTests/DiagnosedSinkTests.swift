@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Foundation
import OpenCombineShim
import Testing

extension CombineAdapterTests {
    /// `.diagnosed(…).sink { … }` is one subscriber (the stage fused with its sink): it must
    /// behave as the stage followed by `Subscribers.Sink` does, and check what the stage checks.
    @Suite struct DiagnosedSink {
        @Test func valuesAndCompletionReachTheClosuresWithUnlimitedDemand() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, URLError>()
            var values: [Int] = []
            var completions: [Subscribers.Completion<URLError>] = []
            let outcome = runTest(engine) {
                let cancellable = upstream.diagnosed("fused", engine: engine)
                    .sink(receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
                #expect(upstream.subscription.requests == [.unlimited], "a sink asks for everything, once")
                #expect(engine.ledger.liveCount(of: .subscription) == 1)
                #expect(upstream.send(1) == .none && upstream.send(2) == .none)
                upstream.send(completion: .failure(URLError(.timedOut)))
                #expect(engine.ledger.liveCount(of: .subscription) == 0, "ended by its completion")
                cancellable.cancel()
                #expect(upstream.subscription.cancels == 0, "nothing to cancel after the completion")
            }
            #expect(values == [1, 2])
            guard case .failure(let error)? = completions.first, completions.count == 1 else {
                Issue.record("expected one failure, got \(completions)")
                return
            }
            #expect(error.code == .timedOut)
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
            #expect(engine.ledger.registeredCount(of: .subscription) == 1, "one subscription, counted once")
        }

        @Test func cancelReleasesTheClosuresAndIsForwardedOnce() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            weak var captured: Box?
            var delivered: [Int] = []
            let outcome = runTest(engine) {
                let cancellable = subscribeCapturingBox(upstream.diagnosed("cancelled", engine: engine), &captured)
                upstream.send(1)
                delivered = captured?.values ?? []
                cancellable.cancel()
                #expect(captured == nil, "the closure (and what it captured) is released by cancel, as Sink does")
                #expect(upstream.subscription.cancels == 1)
                cancellable.cancel()
                #expect(upstream.subscription.cancels == 1, "a second cancel is not forwarded")
                #expect(engine.ledger.liveCount(of: .subscription) == 0)
                withExtendedLifetime(cancellable) {}
            }
            #expect(delivered == [1])
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
        }

        @Test func completionReleasesTheClosures() {
            let engine = makeEngine()
            let subject = PassthroughSubject<Int, Never>()
            weak var captured: Box?
            var cancellables = Set<AnyCancellable>()
            let outcome = runTest(engine) {
                subscribeCapturingBox(subject.diagnosed("completed", engine: engine), &captured).store(
                    in: &cancellables)
                subject.send(1)
                #expect(captured?.values == [1])
                subject.send(completion: .finished)
                #expect(captured == nil, "released with the completion although the cancellable is kept")
            }
            #expect(outcome.findings.isEmpty, "\(outcome.findings.map(\.message))")
            #expect(cancellables.count == 1)
        }

        @Test func aSecondSubscriptionIsRefusedAndFound() throws {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            let outcome = runTest(engine) {
                let cancellable = upstream.diagnosed("twice", engine: engine).sink { _ in }
                let second = RecordingSubscription()
                upstream.subscriber?.receive(subscription: second)
                #expect(second.cancels == 1, "refused, as Reactive Streams 2.5 asks")
                #expect(second.requests.isEmpty)
                cancellable.cancel()
            }
            let finding = try #require(onlyFinding(outcome, .duplicateSubscription))
            expectEvidence(finding, engine, kind: .duplicateSubscription, label: "twice", outcome: outcome)
        }

        @Test func aDisabledEngineLeavesThePlainSink() {
            let engine = makeEngine { $0.isEnabled = false }
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.diagnosed("off", engine: engine).sink { values.append($0) }
            subject.send(1)
            cancellable.cancel()
            subject.send(2)
            #expect(values == [1])
            #expect(engine.ledger.registeredCount(of: .subscription) == 0)
        }

        @Test func theUpstreamSeesOneSubscriberThatIsTheCancellable() {
            let engine = makeEngine()
            let upstream = ManualPublisher<Int, Never>()
            _ = runTest(engine) {
                let cancellable = upstream.diagnosed("one object", engine: engine).sink { _ in }
                let subscriber = upstream.subscriber.map { "\($0)" }
                #expect(subscriber == "Diagnosed(one object) Sink", "no stage between the upstream and the sink")
                cancellable.cancel()
            }
        }
    }
}

/// What a sink's closure captures, to see when the closure is released.
private final class Box {
    var values: [Int] = []
}

/// Sinks `stage` with a closure that holds the only strong reference to a new `Box`, which
/// `captured` refers to weakly.
private func subscribeCapturingBox<Upstream: Publisher>(
    _ stage: Publishers.Diagnosed<Upstream>, _ captured: inout Box?
) -> AnyCancellable where Upstream.Output == Int, Upstream.Failure == Never {
    let box = Box()
    captured = box
    return stage.sink { box.values.append($0) }
}
