import CReactiveDiagnostics
import ReactiveDiagnostics

extension Task where Failure == Never {
    /// Starts a task exactly like `Task { … }` and tracks it: a task still running when its
    /// test ends is a `FindingKind.leakedResource` (resource kind `task`) that shows where it
    /// was started.
    ///
    /// ```swift
    /// final class TickerModel {
    ///     private var updates: Task<Void, Never>?
    ///     func start(prices: AsyncStream<Int>) {
    ///         updates = Task.diagnosed("ticker updates", owner: self) { [weak self] in
    ///             for await price in prices { self?.show(price) }
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The operation is passed to `Task.init` unchanged (same priority, same actor isolation,
    /// inherited from the caller as for `Task { … }`); a detached watcher awaits its result to
    /// end the tracking.
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show.
    ///   - priority: The task's priority.
    ///   - owner: The object the task works for, if any: the finding says whether the task
    ///     outlived it or may be keeping it alive.
    ///   - engine: Where findings go.
    ///   - operation: The task's work.
    @discardableResult
    public static func diagnosed(
        _ label: String, priority: TaskPriority? = nil, owner: AnyObject? = nil, engine: DiagnosticsEngine = .shared,
        @_inheritActorContext @_implicitSelfCapture operation: sending @escaping @isolated(any) () async -> Success
    ) -> Task<Success, Never> {
        guard engine.isEnabled else { return Task(priority: priority, operation: operation) }
        let tracker = TaskTracker(engine: engine, label: DiagnosticLabel(label), owner: owner)
        // The library's own task, tracked by its own label: not an unstructured task of the test too.
        rdiag_task_hook_suppress(1)
        let task = Task(priority: priority, operation: operation)
        rdiag_task_hook_suppress(-1)
        tracker.end(when: task, priority: priority)
        return task
    }
}

extension Task where Failure == any Error {
    /// Starts a throwing task exactly like `Task { … }` and tracks it, as the non-throwing
    /// `Task.diagnosed` does.
    ///
    /// ```swift
    /// let sync = Task.diagnosed("sync") { try await store.synchronize() }
    /// ```
    @discardableResult
    public static func diagnosed(
        _ label: String, priority: TaskPriority? = nil, owner: AnyObject? = nil, engine: DiagnosticsEngine = .shared,
        @_inheritActorContext @_implicitSelfCapture operation:
            sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
        guard engine.isEnabled else { return Task(priority: priority, operation: operation) }
        let tracker = TaskTracker(engine: engine, label: DiagnosticLabel(label), owner: owner)
        // The library's own task, tracked by its own label: not an unstructured task of the test too.
        rdiag_task_hook_suppress(1)
        let task = Task(priority: priority, operation: operation)
        rdiag_task_hook_suppress(-1)
        tracker.end(when: task, priority: priority)
        return task
    }
}
