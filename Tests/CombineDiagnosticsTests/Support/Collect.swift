import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import Testing

/// What a stream produced.
struct Produced<Output, Failure: Error> {
    var values: [Output]
    var completion: Subscribers.Completion<Failure>?

    var finished: Bool {
        if case .finished? = completion { return true }
        return false
    }
}

/// Subscribes with a sink and returns what arrived synchronously (the cancellable is kept
/// until then, so nothing is cancelled early).
func collect<P: Publisher>(_ publisher: P) -> Produced<P.Output, P.Failure> {
    var produced = Produced<P.Output, P.Failure>(values: [], completion: nil)
    let cancellable = publisher.sink(
        receiveCompletion: { produced.completion = $0 }, receiveValue: { produced.values.append($0) })
    withExtendedLifetime(cancellable) {}
    return produced
}

/// Subscribes with a sink and waits (bounded) for the stream to complete on whatever
/// thread it completes on.
func collectAsync<P: Publisher>(
    _ publisher: P, seconds: Double = 5, sourceLocation: SourceLocation = #_sourceLocation
) -> Produced<P.Output, P.Failure> {
    let values = Recorder<P.Output>()
    let completion = Recorder<Subscribers.Completion<P.Failure>>()
    let done = DispatchSemaphore(value: 0)
    let cancellable = publisher.sink(
        receiveCompletion: {
            completion.append($0)
            done.signal()
        },
        receiveValue: { values.append($0) })
    wait(done, seconds: seconds, "completion", sourceLocation: sourceLocation)
    withExtendedLifetime(cancellable) {}
    return Produced(values: values.values, completion: completion.values.first)
}

/// An erased source, so that OpenCombine's shortcuts (`Just.map` is a `Just`,
/// `Sequence.filter` a `Sequence`) do not fold the operator under test away.
func source<S: Sequence>(_ values: S) -> AnyPublisher<S.Element, Never> {
    Publishers.Sequence(sequence: Array(values)).eraseToAnyPublisher()
}

/// An error for failing streams.
struct TestFailure: Error, Equatable {}
