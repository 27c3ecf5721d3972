@_spi(Integration) import ReactiveDiagnostics

extension DiagnosedEffect {
    /// A long-lived effect: it sends any number of actions, then finishes or fails once.
    ///
    /// The emitter is checked like a stream, `send* (finish | fail)`, against `contract`:
    /// an action after the end is `valueAfterTermination`, a second end `duplicateTermination`,
    /// actions from two threads at once `concurrentDelivery`, too many actions or a forbidden
    /// end `contractViolation`, an action off the expected thread `wrongThread`. The effect
    /// is alive until it finishes, fails or is cancelled; still running at the end of the test,
    /// or its emitter released unfinished, it is reported as `callbackNeverCalled`.
    ///
    /// ```swift
    /// case .startTimer:
    ///     return .stream("countdown", contract: StreamContract(values: 1...10, termination: .required)) { emitter in
    ///         countdown.start(
    ///             tick: { seconds in DispatchQueue.main.async { emitter.send(.tick(seconds)) } },
    ///             done: { DispatchQueue.main.async { emitter.finish() } })
    ///     }
    /// ```
    ///
    /// - Parameters:
    ///   - label: Names the effect in findings.
    ///   - contract: What the effect promises; `nil` checks the grammar only. Its `delivery`
    ///     takes precedence over `run(expecting:)`.
    ///   - body: Starts the work; sends actions through the emitter, then finishes or fails it.
    public static func stream(
        _ label: String, contract: StreamContract? = nil, _ body: @escaping @Sendable (EffectEmitter<Action>) -> Void
    ) -> DiagnosedEffect {
        DiagnosedEffect(label: label, body: .stream(contract, body))
    }

    func runStream(
        contract: StreamContract?, start: @Sendable (EffectEmitter<Action>) -> Void, expecting: ThreadExpectation?,
        engine: DiagnosticsEngine, send: @escaping @Sendable (Action) -> Void
    ) -> EffectRun {
        var checked = contract
        if let expecting, contract?.delivery == nil {
            checked = (contract ?? .any).delivered(on: expecting)
        }
        let monitor: StreamMonitor? =
            engine.isEnabled
            ? engine.makeStreamMonitor(
                label: diagnosticLabel, contract: checked,
                options: .init(tracksDemand: false, expectsSubscription: false, resourceKind: .callback))
            : nil
        let cancellation = CancellationFlag()
        let emitter = EffectEmitter(monitor: monitor, engine: engine, cancellation: cancellation, downstream: send)
        start(emitter)
        return EffectRun(label: label) {
            cancellation.cancel()
            monitor?.cancelled(checkPremature: false)
        }
    }
}
