import ReactiveDiagnostics

/// The callback of a long-lived effect (``DiagnosedEffect/stream(_:contract:_:)``): any
/// number of actions, then one `finish()` or `fail(_:)`.
///
/// Actions go to the store; `finish()` and `fail(_:)` end the effect and are checked against
/// its contract but not forwarded (send an action such as `.feedFailed(error)` first when the
/// store must know). After the effect was cancelled, actions are dropped.
///
/// ```swift
/// DiagnosedEffect<Action>.stream("downloads") { emitter in
///     downloader.onProgress = { emitter(.progress($0)) }      // callAsFunction sends
///     downloader.onDone = { result in
///         emitter.send(.downloaded(result))
///         emitter.finish()
///     }
///     downloader.start()
/// }
/// ```
public final class EffectEmitter<Action>: Sendable {
    private let monitor: StreamMonitor?
    private let engine: DiagnosticsEngine
    private let cancellation: CancellationFlag
    private let downstream: @Sendable (Action) -> Void

    init(
        monitor: StreamMonitor?, engine: DiagnosticsEngine, cancellation: CancellationFlag,
        downstream: @escaping @Sendable (Action) -> Void
    ) {
        self.monitor = monitor
        self.engine = engine
        self.cancellation = cancellation
        self.downstream = downstream
    }

    deinit {
        // Released while still running: the effect can never finish now.
        guard let monitor, monitor.state == .active else { return }
        TrackedResource(monitor: monitor, engine: engine).reportReleased(
            "effect '\(monitor.label.name)' was released without finishing: it sent \(monitor.valuesDelivered) action(s) and can never finish now"
        )
        monitor.cancelled(checkPremature: false)
    }

    /// Sends an action to the store (dropped after cancellation).
    public func send(_ action: Action) {
        let delivery = monitor?.willDeliverValue()
        if !cancellation.isCancelled {
            downstream(action)
        }
        if let monitor, let delivery {
            monitor.didDeliverValue(delivery)
        }
    }

    /// Sends an action: `emitter(.tick)` reads like calling a one-shot callback.
    public func callAsFunction(_ action: Action) {
        send(action)
    }

    /// Ends the effect normally.
    public func finish() {
        guard let monitor else { return }
        monitor.didTerminate(monitor.willTerminate(failure: nil))
    }

    /// Ends the effect with an error (a `contractViolation` when its contract does not allow
    /// failure).
    public func fail(_ error: any Error) {
        guard let monitor else { return }
        monitor.didTerminate(monitor.willTerminate(failure: String(describing: error)))
    }
}
