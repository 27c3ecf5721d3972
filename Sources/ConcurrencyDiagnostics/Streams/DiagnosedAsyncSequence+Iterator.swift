import ReactiveDiagnostics

extension DiagnosedAsyncSequence {
    /// Iterates the wrapped sequence; its first `next()` starts the tracked iteration.
    ///
    /// ```swift
    /// var iterator = updates.diagnosed("updates").makeAsyncIterator()
    /// let first = await iterator.next()            // the iteration is live from here
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline var base: Base.AsyncIterator
        @usableFromInline let state: SequenceState
        @usableFromInline var monitor: StreamMonitor?
        @usableFromInline var forwardsOnly = false
        @usableFromInline var ended = false
        @usableFromInline var reportedNextAfterEnd = false

        @usableFromInline
        init(base: Base.AsyncIterator, state: SequenceState) {
            self.base = base
            self.state = state
        }

        /// The next element, checked.
        @inlinable
        public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: nil)
        }

        /// The next element, checked, received on `actor` (what `for await` calls).
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
            if forwardsOnly {
                return try await base.next(isolation: actor)
            }
            let monitor: StreamMonitor
            if let existing = self.monitor {
                monitor = existing
            } else if let started = await state.beginIteration(isolation: actor) {
                monitor = started
                self.monitor = started
            } else {
                forwardsOnly = true  // the engine is disabled: nothing to check
                return try await base.next(isolation: actor)
            }
            if ended {
                if !reportedNextAfterEnd {
                    reportedNextAfterEnd = true
                    state.nextAfterEnd(monitor)
                }
                return try await base.next(isolation: actor)
            }
            let entered = state.enter(monitor)
            defer { state.leave(entered) }
            let element: Element?
            do {
                element = try await base.next(isolation: actor)
            } catch {
                ended = true
                monitor.didTerminate(monitor.willTerminate(failure: "\(error)"))
                throw error
            }
            guard let element else {
                ended = true
                if Task.isCancelled {
                    monitor.cancelled(checkPremature: false)
                } else {
                    monitor.didTerminate(monitor.willTerminate(failure: nil))
                }
                return nil
            }
            monitor.didDeliverValue(monitor.willDeliverValue())
            return element
        }
    }
}
