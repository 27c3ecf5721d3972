import Synchronization

extension DiagnosticsEngine {
    /// Captures the calling task's stack for a resource being allocated in `async` code, if
    /// allocation stacks are on: the chain of functions awaiting, up to the task's closure
    /// (see `StackCapture.captureAsync(depth:into:)`), where ``captureAllocationStack()``
    /// would only see the executor's thread. It runs on the caller's actor (`isolation`): no
    /// suspension point is added.
    ///
    /// ```swift
    /// func next() async -> Element? {
    ///     let stack = await engine.captureAsyncAllocationStack()   // names the `for await` loop
    ///     …
    /// }
    /// ```
    @inline(never)
    public func captureAsyncAllocationStack(isolation: isolated (any Actor)? = #isolation) async -> StackID {
        let depth = hotStackDepth.load(ordering: .relaxed)
        guard depth > 0 else { return .none }
        return await StackCapture.captureAsync(depth: depth, into: stacks, isolation: isolation)
    }
}
