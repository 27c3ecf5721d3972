import ReactiveDiagnostics

/// A callback effect whose result is checked on its way back into a store.
///
/// The effect style of unidirectional architectures: a reducer returns an effect, the store
/// starts it with a callback, the effect does its work somewhere and later sends an action
/// back through that callback. Each started effect is a live `callback` resource, with the
/// stack of the code that started it, until it has called back. ReactiveDiagnostics reports:
///
/// - `callbackNeverCalled`: still waiting at the end of the test, or its callback was
///   released without ever being called (`details["reason"] == "released"`);
/// - `callbackCalledTwice`: a one-shot effect called back again (with that call's stack);
/// - `wrongThread`: the action arrived off the thread the store expects.
///
/// Three shapes: one-shot closures (this initializer), `async` operations
/// (``task(_:priority:_:)``) and long-lived effects with a contract
/// (``stream(_:contract:_:)``).
///
/// ```swift
/// enum Action { case refresh, loaded([String]) }
///
/// func reduce(_ state: inout [String], _ action: Action) -> DiagnosedEffect<Action>? {
///     switch action {
///     case .refresh:
///         return DiagnosedEffect("load feed") { send in
///             api.fetchFeed { items in                    // calls back on a URLSession queue
///                 DispatchQueue.main.async { send(.loaded(items)) }
///             }
///         }
///     case .loaded(let items):
///         state = items
///         return nil
///     }
/// }
///
/// // In the store, on the main queue:
/// effect.run(expecting: .mainQueue) { [weak self] action in self?.send(action) }
/// ```
public struct DiagnosedEffect<Action>: Sendable {
    enum Body: Sendable {
        case oneShot(@Sendable (_ send: @escaping @Sendable (Action) -> Void) -> Void)
        case stream(StreamContract?, @Sendable (EffectEmitter<Action>) -> Void)
        /// Starts a task that calls `send` with its action, or `discarded` when it was cancelled.
        case task(
            @Sendable (_ send: @escaping @Sendable (Action) -> Void, _ discarded: @escaping @Sendable () -> Void)
                -> Task<Void, Never>)
    }

    /// The effect's label: it names the effect in findings and groups its leaks.
    public let label: String
    let diagnosticLabel: DiagnosticLabel
    let body: Body

    init(label: String, body: Body) {
        self.label = label
        diagnosticLabel = DiagnosticLabel(label)
        self.body = body
    }

    /// A one-shot effect: `body` must call `send` exactly once, from anywhere.
    ///
    /// - Parameters:
    ///   - label: Names the effect in findings, for example `"load feed"`.
    ///   - body: Starts the work; calls `send` once with the resulting action.
    public init(_ label: String, _ body: @escaping @Sendable (_ send: @escaping @Sendable (Action) -> Void) -> Void) {
        self.init(label: label, body: .oneShot(body))
    }

    /// Starts the effect, tracking it until it has called back.
    ///
    /// Call it directly where the effect starts (in the store): that is the allocation stack
    /// findings show. A one-shot effect ends when it calls back; ``EffectRun/cancel()`` ends
    /// it too and drops whatever it sends afterwards. Violations are reported and the action
    /// is still forwarded, so the code under test behaves as it would without diagnostics.
    ///
    /// - Parameters:
    ///   - expecting: Where `send` must be called, for example `.mainQueue` for a store that
    ///     mutates its state in `send`; `nil` for anywhere.
    ///   - engine: The engine findings go to.
    ///   - send: Receives the effect's actions.
    /// - Returns: A handle to cancel the effect.
    @discardableResult
    public func run(
        expecting: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
        _ send: @escaping @Sendable (Action) -> Void
    ) -> EffectRun {
        switch body {
        case .oneShot(let start):
            guard engine.isEnabled else {
                let cancellation = CancellationFlag()
                start { action in
                    if !cancellation.isCancelled { send(action) }
                }
                return EffectRun(label: label, cancel: cancellation.cancel)
            }
            let callback = OneShotCallback(
                resource: .start(.callback, label: diagnosticLabel, engine: engine), expectation: expecting)
            start(callback.wrapping(send))
            return EffectRun(label: label, cancel: callback.cancel)
        case .task(let start):
            guard engine.isEnabled else {
                let task = start(send, {})
                return EffectRun(label: label) { task.cancel() }
            }
            let callback = OneShotCallback(
                resource: .start(.callback, label: diagnosticLabel, engine: engine), expectation: expecting)
            let task = start(callback.wrapping(send), callback.cancel)
            return EffectRun(label: label) { task.cancel() }
        case .stream(let contract, let start):
            return runStream(contract: contract, start: start, expecting: expecting, engine: engine, send: send)
        }
    }
}
