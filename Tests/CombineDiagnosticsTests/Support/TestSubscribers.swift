import CombineDiagnostics
import Foundation
import OpenCombineShim

/// A subscriber that requests a given demand up front and answers each value with another,
/// recording everything it receives: what a stage must pass through unchanged.
final class DemandRecorder<Input, Failure: Error>: Subscriber, Cancellable {
    let initialDemand: Subscribers.Demand
    let demandPerValue: (Input) -> Subscribers.Demand
    private(set) var values: [Input] = []
    private(set) var completions: [Subscribers.Completion<Failure>] = []
    private(set) var subscription: (any Subscription)?
    private(set) var subscriptionCount = 0

    init(initialDemand: Subscribers.Demand, demandPerValue: @escaping (Input) -> Subscribers.Demand = { _ in .none }) {
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
    }

    func receive(subscription: any Subscription) {
        subscriptionCount += 1
        self.subscription = subscription
        if initialDemand != .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        return demandPerValue(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        completions.append(completion)
        subscription = nil
    }

    func request(_ demand: Subscribers.Demand) {
        subscription?.request(demand)
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}

/// A subscription that records the requests and cancels it receives.
final class RecordingSubscription: Subscription {
    private let lock = NSLock()
    private var requestLog: [Subscribers.Demand] = []
    private var cancelCount = 0

    var requests: [Subscribers.Demand] {
        lock.lock()
        defer { lock.unlock() }
        return requestLog
    }

    var cancels: Int {
        lock.lock()
        defer { lock.unlock() }
        return cancelCount
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        requestLog.append(demand)
        lock.unlock()
    }

    func cancel() {
        lock.lock()
        cancelCount += 1
        lock.unlock()
    }
}
