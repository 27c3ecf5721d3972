public import OpenCombineShim
import ReactiveDiagnostics

extension Publishers.Diagnosed {
    /// The upstream's subscriber, the downstream's subscription and the stream's grammar
    /// checker, in one object: a subscription through the stage costs one allocation.
    ///
    /// Values and completion pass lock-free (the checker's own atomics); the upstream
    /// subscription is handed over under ``UpstreamHandover``'s short lock. The upstream
    /// reference is released on completion and cancel.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: UpstreamHandover, Subscriber, Subscription, DiagnosedSubscriberMarker,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        // Unchecked: `downstream` is immutable and only called the way Combine calls subscribers.
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream

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
                engine: engine, label: label, contract: contract,
                anchor: subscriberIsObject ? unsafeBitCast(downstream, to: AnyObject.self) : nil)
            if !subscriberIsObject && engine.explainsRetainPaths {
                setRetainPathAnchor(self)
            }
        }

        // MARK: Subscriber (upstream side)

        @inlinable
        func receive(subscription: any Subscription) {
            receivedSubscription()
            guard acceptUpstream(subscription) else {
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
            let end = willTerminate(completion)
            // Released here, outside the lock: the upstream is done with us.
            _ = takeUpstream()
            downstream.receive(completion: completion)
            didTerminate(end)
        }

        // MARK: Subscription (downstream side)

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            requested(StreamDemand(demand))
            liveUpstream?.request(demand)
        }

        @inlinable
        func cancel() {
            let subscription = takeUpstream()
            cancelled()
            subscription?.cancel()
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
