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
    /// The upstream's subscriber, the downstream's subscription and the stream's grammar
    /// checker, in one object: a subscription through the stage costs one allocation.
    ///
    /// Values and completion pass lock-free (the checker's own atomics); the upstream
    /// subscription is handed over under a short lock that is never held while calling
    /// upstream or downstream. The upstream reference is released on completion and cancel.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: StreamMonitor, Subscriber, Subscription, DiagnosedSubscriberMarker,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        // Unchecked: `upstream` is only touched under `lockWord`; `downstream` is immutable and
        // only called the way Combine calls subscribers.
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        /// A spin lock for the hand-over of `upstream`: held for a few instructions, never while
        /// calling upstream or downstream, and stored inline (no allocation per subscription).
        @usableFromInline let lockWord = Atomic<Bool>(false)
        // Guarded by `lockWord` (so no dynamic exclusivity check: two runtime calls per access):
        // the upstream subscription while it is live, and whether it arrived and ended.
        @usableFromInline @exclusivity(unchecked) var upstream: (any Subscription)?
        @usableFromInline @exclusivity(unchecked) var upstreamState = DiagnosedUpstream.awaiting

        /// Registers the subscription with `engine`: its allocation stack is the caller's (the
        /// subscribe call), captured now.
        ///
        /// If the subscription leaks, the retain cycle is looked for from the subscriber (a
        /// `Sink`: its closures are the user's); a value-type subscriber names this stage.
        @inlinable
        init(downstream: Downstream, engine: DiagnosticsEngine, label: DiagnosticLabel, contract: StreamContract?) {
            self.downstream = downstream
            let subscriberIsObject = Downstream.self is AnyObject.Type
            super.init(
                recorder: engine, label: label, contract: contract, options: .combine,
                anchor: subscriberIsObject ? unsafeBitCast(downstream, to: AnyObject.self) : nil)
            if !subscriberIsObject && engine.explainsRetainPaths {
                setRetainPathAnchor(self)
            }
        }

        // MARK: Subscriber (upstream side)

        @inlinable
        func receive(subscription: any Subscription) {
            receivedSubscription()
            let accepted = withUpstreamLock { () -> Bool in
                guard upstreamState == .awaiting else { return false }
                upstream = subscription
                upstreamState = .subscribed
                return true
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
            let delivery = willDeliverValue()
            let demand = downstream.receive(input)
            didDeliverValue(delivery, additionalDemand: StreamDemand(demand))
            return demand
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let failure: String?
            switch completion {
            case .finished: failure = nil
            case .failure(let error): failure = String(describing: error)
            }
            let end = willTerminate(failure: failure)
            // Released here, outside the lock: the upstream is done with us.
            _ = takeUpstream()
            downstream.receive(completion: completion)
            didTerminate(end)
        }

        // MARK: Subscription (downstream side)

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            requested(StreamDemand(demand))
            let subscription = withUpstreamLock { upstream }
            subscription?.request(demand)
        }

        @inlinable
        func cancel() {
            let subscription = takeUpstream()
            cancelled()
            subscription?.cancel()
        }

        /// Marks the upstream finished and returns the subscription to release or cancel.
        @inlinable
        func takeUpstream() -> (any Subscription)? {
            var taken: (any Subscription)?
            withUpstreamLock {
                swap(&taken, &upstream)
                upstreamState = .terminal
            }
            return taken
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
            let name = label.name
            return name.isEmpty ? "Diagnosed" : "Diagnosed(\(name))"
        }

        @usableFromInline
        var customMirror: Mirror {
            Mirror(self, children: ["label": label.name, "state": "\(state)"])
        }

        @usableFromInline
        var playgroundDescription: Any { description }
    }
}

/// Where the upstream subscription of a diagnosed stage is in its life. Not nested in the
/// generic stage: a generic type's nested types need their metadata looked up at run time.
@usableFromInline
enum DiagnosedUpstream: UInt8 {
    case awaiting
    case subscribed
    case terminal
}
