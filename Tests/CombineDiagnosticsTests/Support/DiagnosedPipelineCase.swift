import CombineDiagnostics
import CombineSchedulers
import Dispatch
import Foundation
import OpenCombineShim
import Testing

/// A pipeline used correctly with `.diagnosed()` after every stage.
struct DiagnosedPipelineCase: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable (DiagnosticsEngine) -> Void

    init(_ name: String, _ run: @escaping @Sendable (DiagnosticsEngine) -> Void) {
        self.name = name
        self.run = run
    }

    var testDescription: String { name }

    static let all: [DiagnosedPipelineCase] = [
        DiagnosedPipelineCase("subject → map → filter → sink") { engine in
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.diagnosed("subject", engine: engine)
                .map { $0 * 2 }.diagnosed("map", engine: engine)
                .filter { $0 > 2 }.diagnosed("filter", engine: engine)
                .sink { values.append($0) }
            for value in 1...3 { subject.send(value) }
            subject.send(completion: .finished)
            #expect(values == [4, 6])
            withExtendedLifetime(cancellable) {}
        },
        DiagnosedPipelineCase("flatMap(maxPublishers:) with bounded demand") { engine in
            let produced = collect(
                source([1, 2, 3]).diagnosed("source", engine: engine)
                    .flatMap(maxPublishers: .max(1)) { Just($0).diagnosed("inner", contract: .single, engine: engine) }
                    .diagnosed("flatMap", engine: engine))
            #expect(produced.values == [1, 2, 3] && produced.finished)
        },
        DiagnosedPipelineCase("debounce on a TestScheduler") { engine in
            let clock = DispatchQueue.test
            let subject = PassthroughSubject<Int, Never>()
            var values: [Int] = []
            let cancellable = subject.diagnosed("query", engine: engine)
                .debounce(for: .seconds(1), scheduler: clock).diagnosed("debounced", engine: engine)
                .sink { values.append($0) }
            subject.send(1)
            subject.send(2)
            clock.advance(by: .seconds(1))
            subject.send(completion: .finished)
            clock.run()
            #expect(values == [2])
            withExtendedLifetime(cancellable) {}
        },
        DiagnosedPipelineCase("receive(on:) with a delivery expectation") { engine in
            let key = DispatchSpecificKey<Bool>()
            let queue = DispatchQueue(label: "ui")
            queue.setSpecific(key: key, value: true)
            let onQueue = ThreadExpectation.custom("ui queue") { DispatchQueue.getSpecific(key: key) == true }
            let produced = collectAsync(
                source([1, 2]).diagnosed("source", engine: engine)
                    .receive(on: queue).expectDelivery(on: onQueue, "delivered", engine: engine))
            #expect(produced.values == [1, 2] && produced.finished)
        },
        DiagnosedPipelineCase("zip") { engine in
            let left = PassthroughSubject<Int, Never>()
            let right = PassthroughSubject<Int, Never>()
            var sums: [Int] = []
            let cancellable = left.diagnosed("left", engine: engine)
                .zip(right.diagnosed("right", engine: engine)).diagnosed("zip", engine: engine)
                .map { $0 + $1 }.sink { sums.append($0) }
            left.send(1)
            right.send(2)
            left.send(completion: .finished)
            #expect(sums == [3])
            withExtendedLifetime(cancellable) {}
        },
        DiagnosedPipelineCase("share") { engine in
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.diagnosed("upstream", engine: engine).share().diagnosed("shared", engine: engine)
            var values: [Int] = []
            let cancellables = [shared.sink { values.append($0) }, shared.sink { values.append($0) }]
            subject.send(1)
            subject.send(completion: .finished)
            #expect(values == [1, 1])
            withExtendedLifetime(cancellables) {}
        },
        DiagnosedPipelineCase("retry") { engine in
            let attempts = Recorder<Int>()
            let produced = collect(
                Deferred { () -> AnyPublisher<Int, TestFailure> in
                    attempts.append(1)
                    return attempts.values.count < 2
                        ? Fail(error: TestFailure()).eraseToAnyPublisher()
                        : Just(5).setFailureType(to: TestFailure.self).eraseToAnyPublisher()
                }.diagnosed("attempt", engine: engine).retry(1).diagnosed("retry", contract: .single, engine: engine))
            #expect(produced.values == [5] && produced.finished)
        },
        DiagnosedPipelineCase("Future") { engine in
            let produced = collect(
                Future<Int, Never> { $0(.success(1)) }.diagnosed("future", contract: .single, engine: engine))
            #expect(produced.values == [1])
        },
        DiagnosedPipelineCase("switchToLatest") { engine in
            let outer = PassthroughSubject<AnyPublisher<Int, Never>, Never>()
            var values: [Int] = []
            let cancellable = outer.diagnosed("outer", engine: engine).switchToLatest().diagnosed(
                "latest", engine: engine
            )
            .sink { values.append($0) }
            outer.send(Just(1).diagnosed("first", engine: engine).eraseToAnyPublisher())
            outer.send(Just(2).diagnosed("second", engine: engine).eraseToAnyPublisher())
            outer.send(completion: .finished)
            #expect(values == [1, 2])
            withExtendedLifetime(cancellable) {}
        },
        DiagnosedPipelineCase("buffer and prefix with bounded demand") { engine in
            let subject = PassthroughSubject<Int, Never>()
            let recorder = DemandRecorder<Int, Never>(initialDemand: .max(1)) { _ in .max(1) }
            subject.diagnosed("subject", engine: engine)
                .buffer(size: 4, prefetch: .byRequest, whenFull: .dropNewest).diagnosed("buffer", engine: engine)
                .prefix(2).diagnosed("prefix", engine: engine)
                .subscribe(recorder)
            for value in 1...3 { subject.send(value) }
            #expect(recorder.values == [1, 2] && recorder.completions.count == 1)
        },
        DiagnosedPipelineCase("catch and replaceError") { engine in
            let produced = collect(
                Fail<Int, TestFailure>(error: TestFailure()).diagnosed("fails", engine: engine)
                    .catch { _ in Fail<Int, TestFailure>(error: TestFailure()).diagnosed("fails again", engine: engine)
                    }
                    .diagnosed("catch", engine: engine)
                    .replaceError(with: 0).diagnosed("replaced", contract: .single, engine: engine))
            #expect(produced.values == [0])
        },
    ]
}
