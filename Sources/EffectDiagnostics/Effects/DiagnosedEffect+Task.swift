@_spi(Integration) import ReactiveDiagnostics

extension DiagnosedEffect where Action: Sendable {
    /// An effect that runs an `async` operation and sends the action it returns.
    ///
    /// ``run(expecting:engine:_:)`` starts a `Task`; the effect is alive until the operation
    /// returns, so a task still suspended at the end of the test is reported as
    /// `callbackNeverCalled`. The action is sent on the main actor (the main queue), the way
    /// stores expect it; `expecting:` still checks it.
    ///
    /// Cancellation: ``EffectRun/cancel()`` cancels the task. The effect stays alive until the
    /// operation actually returns (cancellation is cooperative: an operation that ignores it
    /// and never returns is still reported), and the action it returns after cancellation is
    /// discarded, not sent.
    ///
    /// ```swift
    /// case .refresh:
    ///     return .task("load feed") { .loaded(await api.feed()) }
    /// ```
    ///
    /// - Parameters:
    ///   - label: Names the effect in findings.
    ///   - priority: The task's priority.
    ///   - operation: The work; its result is sent to the store.
    public static func task(
        _ label: String, priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async -> Action
    ) -> DiagnosedEffect {
        DiagnosedEffect(
            label: label,
            body: .task { send, discarded in
                DiagnosticsEngine.startingOwnTasks {
                    Task(priority: priority) { @MainActor in
                        let action = await operation()
                        if Task.isCancelled {
                            discarded()
                        } else {
                            send(action)
                        }
                    }
                }
            })
    }
}
