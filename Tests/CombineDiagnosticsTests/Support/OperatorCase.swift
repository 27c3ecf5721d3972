import CombineDiagnostics
import CombineSchedulers
import Dispatch
import Foundation
import OpenCombineShim
import Testing

/// One operator or publisher used correctly, checking its own output.
struct OperatorCase: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable () -> Void

    init(_ name: String, _ run: @escaping @Sendable () -> Void) {
        self.name = name
        self.run = run
    }

    var testDescription: String { name }
}

extension OperatorCase {
    /// Transforming operators, synchronous.
    static let transforming: [OperatorCase] = [
        OperatorCase("map") {
            let produced = collect(source([1, 2, 3]).map { $0 * 2 })
            #expect(produced.values == [2, 4, 6] && produced.finished)
        },
        OperatorCase("filter") {
            #expect(collect(source(1...6).filter { $0.isMultiple(of: 2) }).values == [2, 4, 6])
        },
        OperatorCase("compactMap") {
            #expect(collect(source(["1", "x", "3"]).compactMap(Int.init)).values == [1, 3])
        },
        OperatorCase("flatMap(maxPublishers:)") {
            let produced = collect(source([1, 2, 3]).flatMap(maxPublishers: .max(1)) { Just($0 * 10) })
            #expect(produced.values == [10, 20, 30] && produced.finished)
        },
        OperatorCase("scan") {
            #expect(collect(source([1, 2, 3]).scan(0, +)).values == [1, 3, 6])
        },
        OperatorCase("reduce") {
            #expect(collect(source([1, 2, 3]).reduce(0, +)).values == [6])
        },
        OperatorCase("collect") {
            #expect(collect(source([1, 2, 3]).collect()).values == [[1, 2, 3]])
        },
        OperatorCase("collect(_:)") {
            #expect(collect(source([1, 2, 3]).collect(2)).values == [[1, 2], [3]])
        },
        OperatorCase("dropFirst") {
            #expect(collect(source([1, 2, 3]).dropFirst()).values == [2, 3])
        },
        OperatorCase("removeDuplicates") {
            #expect(collect(source([1, 1, 2, 2, 3])).values.count == 5)
            #expect(collect(source([1, 1, 2, 2, 3]).removeDuplicates()).values == [1, 2, 3])
        },
        OperatorCase("prefix(_:) cancels its upstream") {
            let subject = PassthroughSubject<Int, Never>()
            var produced = Produced<Int, Never>(values: [], completion: nil)
            let cancellable = subject.prefix(2)
                .sink(receiveCompletion: { produced.completion = $0 }, receiveValue: { produced.values.append($0) })
            subject.send(1)
            subject.send(2)
            subject.send(3)
            #expect(produced.values == [1, 2] && produced.finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("mapError, setFailureType, handleEvents, eraseToAnyPublisher") {
            var events: [String] = []
            let produced = collect(
                source([1]).setFailureType(to: TestFailure.self).mapError { $0 }
                    .handleEvents(receiveOutput: { _ in events.append("value") }).eraseToAnyPublisher())
            #expect(produced.values == [1] && events == ["value"])
        },
        OperatorCase("buffer with bounded demand") {
            let subject = PassthroughSubject<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1)) { _ in .max(1) }
            subject.buffer(size: 4, prefetch: .byRequest, whenFull: .dropNewest).subscribe(recorder)
            for value in 1...3 { subject.send(value) }
            subject.send(completion: .finished)
            #expect(recorder.values == [1, 2, 3] && recorder.completions.count == 1)
        },
    ]

    /// Combining operators.
    static let combining: [OperatorCase] = [
        OperatorCase("append") {
            let prefix = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = prefix.append(3, 4).sink { values.append($0) }
            prefix.send(1)
            prefix.send(2)
            prefix.send(completion: .finished)
            #expect(values == [1, 2, 3, 4])
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("prepend") {
            let subject = PassthroughSubject<Int, Never>()
            var produced = Produced<Int, Never>(values: [], completion: nil)
            let cancellable = subject.prepend(0)
                .sink(receiveCompletion: { produced.completion = $0 }, receiveValue: { produced.values.append($0) })
            subject.send(1)
            subject.send(completion: .finished)
            #expect(produced.values == [0, 1] && produced.finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("zip") {
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            var sums: [Int] = []
            let cancellable = left.zip(right).map { $0 + $1 }.sink { sums.append($0) }
            left.send(1)
            left.send(2)
            right.send(10)
            right.send(20)
            left.send(completion: .finished)
            right.send(completion: .finished)
            #expect(sums == [11, 22])
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("switchToLatest") {
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let first = PassthroughSubject<Int, Never>()
            let second = PassthroughSubject<Int, Never>()
            var produced = Produced<Int, Never>(values: [], completion: nil)
            let cancellable = outer.switchToLatest()
                .sink(receiveCompletion: { produced.completion = $0 }, receiveValue: { produced.values.append($0) })
            outer.send(first)
            first.send(1)
            outer.send(second)
            first.send(2)  // switched away: ignored
            second.send(3)
            outer.send(completion: .finished)
            second.send(completion: .finished)
            #expect(produced.values == [1, 3] && produced.finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("share") {
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.share()
            var first: [Int] = []
            var second: [Int] = []
            let cancellables = [shared.sink { first.append($0) }, shared.sink { second.append($0) }]
            subject.send(1)
            subject.send(completion: .finished)
            #expect(first == [1] && second == [1])
            withExtendedLifetime(cancellables) {}
        },
        OperatorCase("multicast + autoconnect") {
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.multicast { PassthroughSubject<Int, Never>() }.autoconnect().sink {
                values.append($0)
            }
            subject.send(1)
            subject.send(completion: .finished)
            #expect(values == [1])
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("multicast + connect") {
            let subject = PassthroughSubject<Int, Never>()
            let multicast = subject.multicast(subject: PassthroughSubject<Int, Never>())
            var values: [Int] = []
            let cancellable = multicast.sink { values.append($0) }
            let connection = multicast.connect()
            subject.send(1)
            subject.send(completion: .finished)
            #expect(values == [1])
            withExtendedLifetime((cancellable, connection)) {}
        },
    ]

    /// Error handling.
    static let errors: [OperatorCase] = [
        OperatorCase("catch") {
            #expect(collect(Fail<Int, TestFailure>(error: TestFailure()).catch { _ in Just(9) }).values == [9])
        },
        OperatorCase("retry") {
            let attempts = Recorder<Int>()
            let produced = collect(
                Deferred { () -> AnyPublisher<Int, TestFailure> in
                    attempts.append(1)
                    return attempts.values.count < 3
                        ? Fail(error: TestFailure()).eraseToAnyPublisher()
                        : Just(5).setFailureType(to: TestFailure.self).eraseToAnyPublisher()
                }.retry(3))
            #expect(produced.values == [5] && produced.finished && attempts.values.count == 3)
        },
        OperatorCase("replaceError") {
            #expect(collect(Fail<Int, TestFailure>(error: TestFailure()).replaceError(with: 0)).values == [0])
        },
    ]

    /// Subjects and publishers.
    static let publishers: [OperatorCase] = [
        OperatorCase("PassthroughSubject") {
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.sink { values.append($0) }
            subject.send(1)
            subject.send(completion: .finished)
            #expect(values == [1])
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("CurrentValueSubject") {
            let subject = CurrentValueSubject<Int, Never>(0)
            var values: [Int] = []
            let cancellable = subject.sink { values.append($0) }
            subject.send(1)
            subject.send(completion: .finished)
            #expect(values == [0, 1])
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("Future") {
            #expect(collect(Future<Int, Never> { $0(.success(1)) }).values == [1])
        },
        OperatorCase("Future fulfilled on another queue") {
            let future = Future<Int, Never> { promise in
                let fulfil = Unchecked(promise)
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { fulfil.value(.success(2)) }
            }
            #expect(collectAsync(future).values == [2])
        },
        OperatorCase("Deferred") {
            #expect(collect(Deferred { Just(1) }).values == [1])
        },
        OperatorCase("Just") {
            #expect(collect(Just(1)).values == [1])
        },
        OperatorCase("Empty") {
            #expect(collect(Empty<Int, Never>()).finished)
        },
        OperatorCase("Fail") {
            #expect(collect(Fail<Int, TestFailure>(error: TestFailure())).completion == .failure(TestFailure()))
        },
        OperatorCase("Sequence") {
            #expect(collect([1, 2, 3].publisher).values == [1, 2, 3])
        },
        OperatorCase("assign(to:on:)") {
            final class Model { var value = 0 }
            let model = Model()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.assign(to: \.value, on: model)
            subject.send(7)
            subject.send(completion: .finished)
            #expect(model.value == 7)
            withExtendedLifetime(cancellable) {}
        },
        OperatorCase("a stored cancellable cancelled on purpose") {
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.map { $0 }.sink { values.append($0) }
            subject.send(1)
            cancellable.cancel()
            subject.send(2)
            #expect(values == [1])
        },
    ]
}
