public import OpenCombineShim
import ReactiveDiagnostics

extension Publishers.Diagnosed {
    /// A `.diagnosed()` stage and the `Sink` after it, in one object: what
    /// `.diagnosed(…).sink { … }` subscribes upstream with.
    ///
    /// It behaves as the stage followed by `Subscribers.Sink` does: it asks for unlimited
    /// demand when the subscription arrives, passes values and the completion to the user's
    /// closures, and releases those closures (and the upstream subscription) once the stream
    /// ends or is cancelled, which is what breaks a cycle through them. Every signal is
    /// checked as the stage checks it. The subscription costs one object instead of two, and
    /// no stage of its own: counting it costs about what a plain `sink` does.
    ///
    /// If the subscription leaks, the retain cycle is looked for from this object: it holds
    /// the user's closures, as a `Sink` would.
    @usableFromInline
    final class SinkInner: UpstreamHandover, Subscriber, Cancellable, DiagnosedSubscriberMarker,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        // Unchecked: the closures, like the upstream subscription, are only touched under
        // `lockWord`, and only called outside it.
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline @exclusivity(unchecked) var receiveValue: ((Input) -> Void)?
        @usableFromInline @exclusivity(unchecked) var receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?

        /// Registers the subscription with `engine`: its allocation stack is the caller's (the
        /// `sink` call), captured now.
        @inlinable
        init(
            engine: DiagnosticsEngine, label: DiagnosticLabel, contract: StreamContract?,
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            self.receiveValue = receiveValue
            self.receiveCompletion = receiveCompletion
            super.init(engine: engine, label: label, contract: contract, anchor: nil)
            if engine.explainsRetainPaths {
                setRetainPathAnchor(self)
            }
        }

        // MARK: Subscriber

        @inlinable
        func receive(subscription: any Subscription) {
            receivedSubscription()
            guard acceptUpstream(subscription) else {
                // A second subscription (or one after cancel): refuse it, as Reactive Streams 2.5 asks.
                subscription.cancel()
                return
            }
            requested(.unlimited)
            subscription.request(.unlimited)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            let delivery = willDeliverValue()
            lockUpstream()
            let body = receiveValue
            unlockUpstream()
            body?(input)
            didDeliverValue(delivery)
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            let end = willTerminate(completion)
            // Taken under the lock, called and released outside it (releasing a closure may
            // run the user's `deinit`).
            lockUpstream()
            let upstream = self.upstream
            let body = receiveCompletion
            let values = receiveValue
            endUnderLock()
            unlockUpstream()
            body?(completion)
            didTerminate(end)
            withExtendedLifetime(upstream) {}
            withExtendedLifetime(values) {}
        }

        // MARK: Cancellable

        @inlinable
        func cancel() {
            lockUpstream()
            let upstream = self.upstream
            let completion = receiveCompletion
            let values = receiveValue
            endUnderLock()
            unlockUpstream()
            cancelled()
            upstream?.cancel()
            withExtendedLifetime(completion) {}
            withExtendedLifetime(values) {}
        }

        /// Marks the stream ended and lets go of the upstream and the closures (their last
        /// references are the caller's copies, released after the lock).
        @inlinable
        func endUnderLock() {
            self.upstream = nil
            receiveCompletion = nil
            receiveValue = nil
            upstreamState = .terminal
        }

        // MARK: Descriptions

        @usableFromInline
        var description: String {
            let name = label.name
            return name.isEmpty ? "Diagnosed Sink" : "Diagnosed(\(name)) Sink"
        }

        @usableFromInline
        var customMirror: Mirror {
            Mirror(self, children: ["label": label.name, "state": "\(state)"])
        }

        @usableFromInline
        var playgroundDescription: Any { description }
    }
}
