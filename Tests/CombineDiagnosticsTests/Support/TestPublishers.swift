import CombineDiagnostics
import Foundation
import OpenCombineShim

/// A hand-written publisher whose subscription records demand and cancel, and that lets the
/// test drive the subscriber directly, as a buggy custom publisher would.
final class ManualPublisher<Output, Failure: Error>: Publisher {
    private let lock = NSLock()
    private var subscribers: [AnySubscriber<Output, Failure>] = []
    let subscription = RecordingSubscription()

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.lock()
        subscribers.append(AnySubscriber(subscriber))
        lock.unlock()
        subscriber.receive(subscription: subscription)
    }

    /// The subscriber that subscribed last.
    var subscriber: AnySubscriber<Output, Failure>? {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.last
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        subscriber?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        subscriber?.receive(completion: completion)
    }
}

/// A custom publisher with a bug: it delivers one value, completes, then delivers another.
struct ValueAfterCompletionPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: RecordingSubscription())
        _ = subscriber.receive(1)
        subscriber.receive(completion: .finished)
        _ = subscriber.receive(2)  // the bug
    }
}

/// A custom publisher with a bug: it ignores demand and delivers everything at once.
struct FloodingPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never
    let values: [Int]

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: RecordingSubscription())
        for value in values {
            _ = subscriber.receive(value)  // no look at what was requested: the bug
        }
        subscriber.receive(completion: .finished)
    }
}
