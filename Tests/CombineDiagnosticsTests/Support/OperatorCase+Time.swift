import CombineDiagnostics
import CombineSchedulers
import Dispatch
import Foundation
import OpenCombineShim
import Testing

extension OperatorCase {
    /// Time-based operators on a `TestScheduler` (deterministic time) and on real queues
    /// (waiting for completion, never sleeping).
    static let time: [OperatorCase] = [
        OperatorCase("debounce") {
            let clock = DispatchQueue.test
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.debounce(for: .seconds(1), scheduler: clock).sink { values.append($0) }
            subject.send(1)
            subject.send(2)
            clock.advance(by: .seconds(1))
            subject.send(3)
            clock.advance(by: .seconds(1))
            subject.send(completion: .finished)
            clock.run()
            #expect(values == [2, 3])
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("throttle") {
            let clock = DispatchQueue.test
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.throttle(for: .seconds(1), scheduler: clock, latest: true).sink {
                values.append($0)
            }
            subject.send(1)
            clock.advance(by: .milliseconds(100))
            subject.send(2)
            subject.send(3)
            clock.advance(by: .seconds(1))
            subject.send(completion: .finished)
            clock.run()
            #expect(values == [1, 3])
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("delay") {
            let clock = DispatchQueue.test
            var produced = Produced<Int, Never>(values: [], completion: nil)
            let cancellable = source([1, 2]).delay(for: .seconds(2), scheduler: clock)
                .sink(receiveCompletion: { produced.completion = $0 }, receiveValue: { produced.values.append($0) })
            #expect(produced.values.isEmpty)
            clock.advance(by: .seconds(2))
            #expect(produced.values == [1, 2] && produced.finished)
            withExtendedLifetime(cancellable) {}
        },
        // The subscriber asks for one more with each value: the operator hands that demand
        // to an upstream that has already finished (Combine's own behaviour, found by the
        // soak of OpenCombine's suite, DelayTests.testReceiveCompletionImmediatelyAfterValue).
        OperatorCase("delay, demand after the upstream finished") {
            let clock = DispatchQueue.test
            let subject = PassthroughSubject<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
            subject.delay(for: .seconds(1), scheduler: clock).subscribe(recorder)
            subject.send(1)
            subject.send(completion: .finished)
            clock.advance(by: .seconds(1))
            #expect(recorder.values == [1] && recorder.completions.count == 1)
        },
        OperatorCase("receive(on:), demand after the upstream finished") {
            let clock = DispatchQueue.test
            let subject = PassthroughSubject<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
            subject.receive(on: clock).subscribe(recorder)
            subject.send(1)
            subject.send(completion: .finished)
            clock.run()
            #expect(recorder.values == [1] && recorder.completions.count == 1)
        },
        OperatorCase("timeout, completing in time") {
            let clock = DispatchQueue.test
            let subject = PassthroughSubject<Int, Never>()
            var produced = Produced<Int, Never>(values: [], completion: nil)
            let cancellable = subject.timeout(.seconds(5), scheduler: clock)
                .sink(receiveCompletion: { produced.completion = $0 }, receiveValue: { produced.values.append($0) })
            subject.send(1)
            clock.advance(by: .seconds(1))
            subject.send(completion: .finished)
            clock.run()
            #expect(produced.values == [1] && produced.finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("timeout, firing") {
            let clock = DispatchQueue.test
            var produced = Produced<Int, Never>(values: [], completion: nil)
            let cancellable = Empty<Int, Never>(completeImmediately: false).timeout(.seconds(1), scheduler: clock)
                .sink(receiveCompletion: { produced.completion = $0 }, receiveValue: { produced.values.append($0) })
            clock.advance(by: .seconds(1))
            #expect(produced.finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("receive(on:) a DispatchQueue") {
            let queue = DispatchQueue(label: "receive-on")
            let produced = collectAsync(source([1, 2, 3]).receive(on: queue))
            #expect(produced.values == [1, 2, 3] && produced.finished)
        },
        OperatorCase("subscribe(on:) a DispatchQueue") {
            let queue = DispatchQueue(label: "subscribe-on")
            let produced = collectAsync(source([1, 2, 3]).subscribe(on: queue))
            #expect(produced.values == [1, 2, 3] && produced.finished)
        },
        OperatorCase("delay on a DispatchQueue") {
            // A serial queue: on a concurrent one the delayed value and the delayed completion are
            // two work items that may run in either order (the test then saw no value, in 1 of many runs).
            let queue = DispatchQueue(label: "delay")
            let produced = collectAsync(source([1]).delay(for: .milliseconds(10), scheduler: queue))
            #expect(produced.values == [1] && produced.finished)
        },
        OperatorCase("Timer.publish + autoconnect + prefix") {
            let loop = RunLoopThread()
            defer { loop.stop() }
            let produced = collectAsync(
                Timer.publish(every: 0.01, on: loop.runLoop, in: .default).autoconnect().prefix(2))
            #expect(produced.values.count == 2 && produced.finished)
        },
    ]

    #if canImport(Combine)
    /// Operators OpenCombine 0.14 lacks.
    static let appleOnly: [OperatorCase] = [
        OperatorCase("merge") {
            let produced = collect(source([1, 2]).merge(with: source([3])))
            #expect(produced.values.sorted() == [1, 2, 3] && produced.finished)
        },
        OperatorCase("combineLatest") {
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            var sums: [Int] = []
            let cancellable = left.combineLatest(right).map { $0 + $1 }.sink { sums.append($0) }
            left.send(1)
            right.send(10)
            left.send(2)
            left.send(completion: .finished)
            right.send(completion: .finished)
            #expect(sums == [11, 12])
            withExtendedLifetime(cancellable) {}
        },
    ]
    #else
    static let appleOnly: [OperatorCase] = []
    #endif

    /// Every case.
    static let all = transforming + combining + errors + publishers + time + appleOnly
}
