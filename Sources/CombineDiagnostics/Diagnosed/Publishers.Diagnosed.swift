public import OpenCombineShim
import ReactiveDiagnostics

extension Publishers {
    /// A transparent stage that checks the stream crossing it and tracks its subscription.
    ///
    /// Each subscriber gets its own grammar checker (`StreamMonitor`), created when it
    /// subscribes: its allocation stack (the subscribe call) is captured then, and the
    /// subscription counts as a live resource of the current test until it finishes, fails or
    /// is cancelled. Every signal crossing the stage is reported to the checker and forwarded
    /// unchanged: the subscription, each request (and the demand returned from
    /// `receive(_:)`), values, completion and cancel. Nothing is dropped, buffered or retried.
    ///
    /// Build it with ``OpenCombine/Publisher/diagnosed(_:contract:engine:fileID:line:)``:
    ///
    /// ```swift
    /// final class FeedViewModel {
    ///     @Published private(set) var items: [Item] = []
    ///     private var cancellables = Set<AnyCancellable>()
    ///
    ///     func refresh() {
    ///         api.feed()                                        // AnyPublisher<[Item], APIError>
    ///             .diagnosed("feed", contract: .single)         // one value, then completion
    ///             .receive(on: DispatchQueue.main)
    ///             .expectDelivery(on: .mainQueue, "feed UI")     // the UI side: main queue only
    ///             .replaceError(with: [])
    ///             .sink { [weak self] in self?.items = $0 }
    ///             .store(in: &cancellables)
    ///     }
    /// }
    /// ```
    ///
    /// When the engine is disabled (`DiagnosticsEngine.isEnabled`) at subscribe time the
    /// stage subscribes the downstream directly to the upstream and adds no work at all.
    public struct Diagnosed<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose stream is checked.
        public let upstream: Upstream
        /// The label findings and the report show (interned once, when the stage is built).
        public let label: DiagnosticLabel
        /// What the stream promises, if anything.
        public let contract: StreamContract?
        /// The engine the checkers report to.
        public let engine: DiagnosticsEngine

        /// Creates the stage; ``OpenCombine/Publisher/diagnosed(_:contract:engine:fileID:line:)``
        /// is the usual way.
        @inlinable
        public init(upstream: Upstream, label: DiagnosticLabel, contract: StreamContract?, engine: DiagnosticsEngine) {
            self.upstream = upstream
            self.label = label
            self.contract = contract
            self.engine = engine
        }

        /// Subscribes `subscriber` through a new checker.
        @inlinable
        public func receive<Downstream: Subscriber>(subscriber: Downstream)
        where Downstream.Input == Output, Downstream.Failure == Failure {
            guard engine.isEnabled else {
                upstream.subscribe(subscriber)
                return
            }
            if CombineInstrumentation.isHookInstalled {
                // Reached without a subscribe call of its own (`AnyPublisher` calls
                // `receive(subscriber:)` directly): global instrumentation leaves it to us.
                CombineInstrumentation.diagnosedStageReceives(subscriber)
            }
            // Captures the allocation stack here, inside the subscriber's subscribe call.
            let inner = Inner(downstream: subscriber, engine: engine, label: label, contract: contract)
            subscribeUpstream(inner)
        }

        /// Subscribes the stage's own subscriber upstream: what OpenCombine's `subscribe(_:)`
        /// does when no introspection hook runs (and what its `AnyPublisher` does always), without
        /// its per-call type lookups; through `subscribe(_:)` when a hook runs, so it sees it.
        @inlinable
        func subscribeUpstream<Checker: Subscriber>(_ checker: Checker)
        where Checker.Input == Output, Checker.Failure == Failure {
            #if canImport(Combine)
            upstream.subscribe(checker)
            #else
            if CombineInstrumentation.isHookInstalled {
                upstream.subscribe(checker)
            } else {
                upstream.receive(subscriber: checker)
            }
            #endif
        }
    }
}

extension Publishers.Diagnosed: DiagnosedPublisherMarker {}
