import OpenCombineShim
import ReactiveDiagnostics
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Publishers.Diagnosed {
    /// The upstream's subscriber and the downstream's subscription of one diagnosed stream.
    ///
    /// Values and completion pass lock-free (the checker's own atomics); the upstream
    /// subscription is handed over under a short lock that is never held while calling
    /// upstream or downstream. The upstream reference is released on completion and cancel.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, DiagnosedSubscriberMarker,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let monitor: StreamMonitor
        /// A spin lock for the hand-over of `upstream`: held for a few instructions, never while
        /// calling upstream or downstream, and stored inline (no allocation per subscription).
        @usableFromInline let lockWord = Atomic<Bool>(false)
        // Guarded by `lockWord`.
        @usableFromInline var upstream: DiagnosedUpstream = .awaiting

        @inlinable
        init(downstream: Downstream, monitor: StreamMonitor) {
            self.downstream = downstream
            self.monitor = monitor
        }

        // MARK: Subscriber (upstream side)

        @inlinable
        func receive(subscription: any Subscription) {
            monitor.receivedSubscription()
            var accepted = false
            withUpstreamLock {
                if case .awaiting = upstream {
                    upstream = .subscribed(subscription)
                    accepted = true
                }
            }
            guard accepted else {
                // A second subscription (or one after cancel): refuse it, as Reactive Streams 2.5 asks.
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            let delivery = monitor.willDeliverValue()
            let demand = downstream.receive(input)
            monitor.didDeliverValue(delivery, additionalDemand: StreamDemand(demand))
            return demand
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let failure: String?
            switch completion {
            case .finished: failure = nil
            case .failure(let error): failure = String(describing: error)
            }
            let end = monitor.willTerminate(failure: failure)
            // Released here, outside the lock: the upstream is done with us.
            _ = takeUpstream()
            downstream.receive(completion: completion)
            monitor.didTerminate(end)
        }

        // MARK: Subscription (downstream side)

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            monitor.requested(StreamDemand(demand))
            var subscription: (any Subscription)?
            withUpstreamLock {
                if case .subscribed(let current) = upstream {
                    subscription = current
                }
            }
            subscription?.request(demand)
        }

        @inlinable
        func cancel() {
            let subscription = takeUpstream()
            monitor.cancelled()
            subscription?.cancel()
        }

        /// Marks the upstream finished and returns the subscription to release or cancel.
        @inlinable
        func takeUpstream() -> (any Subscription)? {
            var subscription: (any Subscription)?
            withUpstreamLock {
                if case .subscribed(let current) = upstream {
                    subscription = current
                }
                upstream = .terminal
            }
            return subscription
        }

        @inlinable
        func withUpstreamLock<Result>(_ body: () -> Result) -> Result {
            while !lockWord.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
                sched_yield()
            }
            defer { lockWord.store(false, ordering: .releasing) }
            return body()
        }

        // MARK: Descriptions

        @usableFromInline
        var description: String {
            let name = monitor.label.name
            return name.isEmpty ? "Diagnosed" : "Diagnosed(\(name))"
        }

        @usableFromInline
        var customMirror: Mirror {
            Mirror(self, children: ["label": monitor.label.name, "state": "\(monitor.state)"])
        }

        @usableFromInline
        var playgroundDescription: Any { description }
    }
}

/// Where the upstream subscription of a diagnosed stage is in its life. Not nested in the
/// generic stage: a generic type's nested types need their metadata looked up at run time.
@usableFromInline
enum DiagnosedUpstream {
    case awaiting
    case subscribed(any Subscription)
    case terminal
}
