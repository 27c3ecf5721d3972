import CReactiveDiagnostics
@_spi(Integration) import ReactiveDiagnostics

extension AsyncStream {
    /// The continuation of a diagnosed stream (see
    /// ``_Concurrency/AsyncStream/makeDiagnosedStream(_:of:bufferingPolicy:contract:expecting:engine:fileID:line:)``):
    /// the same API as `AsyncStream.Continuation`, with the producer's side of the grammar
    /// checked on the way through.
    ///
    /// - A `yield` after `finish()` is a `FindingKind.valueAfterTermination` (the plain
    ///   continuation drops the value without a word);
    /// - a second `finish()` is a `FindingKind.duplicateTermination`;
    /// - a `yield` after the consumer went away (its task was cancelled) is a
    ///   `FindingKind.valueAfterCancel`, for information: a producer that keeps going;
    /// - a `yield` or `finish` off the contract's thread is a `FindingKind.wrongThread`, and
    ///   more or fewer values than the contract allows a `FindingKind.contractViolation`.
    ///
    /// Every call is forwarded unchanged: the stream behaves as the plain one would.
    ///
    /// ```swift
    /// let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self)
    /// feed.yield(101)
    /// feed.finish()
    /// feed.yield(102)        // valueAfterTermination: the price is dropped
    /// ```
    public struct DiagnosedContinuation: Sendable {
        /// The wrapped continuation.
        let base: Continuation
        let producer: StreamProducer
        let termination: TerminationHandler<Continuation.Termination>

        /// Yields a value to the stream's consumer (or its buffer).
        @discardableResult
        public func yield(_ value: sending Element) -> Continuation.YieldResult {
            producer.willYield()
            let result = yieldToBase(value)
            note(result)
            return result
        }

        /// Yields the value of a result (`AsyncStream` cannot fail: always `.success`).
        @discardableResult
        public func yield(with result: sending Result<Element, Never>) -> Continuation.YieldResult {
            switch result {
            case .success(let value): return yield(value)
            }
        }

        /// Ends the stream: the consumer receives what is buffered, then `nil`.
        public func finish() {
            producer.willFinish(failure: nil)
            DiagnosticsEngine.callingOwnStreams { base.finish() }
        }

        /// Called once when the stream ends: finished, or cancelled when its consumer went away.
        public var onTermination: (@Sendable (Continuation.Termination) -> Void)? {
            get { termination.value }
            nonmutating set { termination.value = newValue }
        }

        /// The wrapped continuation's yield: misuse of this continuation is reported by
        /// `producer`, not also by the stream hook.
        private func yieldToBase(_ value: sending Element) -> Continuation.YieldResult {
            rdiag_stream_hook_suppress(1)
            defer { rdiag_stream_hook_suppress(-1) }
            return base.yield(value)
        }

        private func note(_ result: Continuation.YieldResult) {
            switch result {
            case .enqueued: producer.didYield(enqueued: true, terminated: false)
            case .dropped: producer.didYield(enqueued: false, terminated: false)
            case .terminated: producer.didYield(enqueued: false, terminated: true)
            @unknown default: break
            }
        }
    }
}

extension AsyncStream.DiagnosedContinuation where Element == Void {
    /// Yields `()`.
    @discardableResult
    public func yield() -> AsyncStream<Element>.Continuation.YieldResult {
        yield(())
    }
}
