import CReactiveDiagnostics
@_spi(Integration) import ReactiveDiagnostics

extension AsyncThrowingStream {
    /// The continuation of a diagnosed throwing stream (see
    /// ``_Concurrency/AsyncThrowingStream/makeDiagnosedStream(_:of:bufferingPolicy:contract:expecting:engine:fileID:line:)``):
    /// the same API as `AsyncThrowingStream.Continuation`, with the producer's grammar checked
    /// as ``_Concurrency/AsyncStream/DiagnosedContinuation`` does, and `finish(throwing:)` as the
    /// failure event (a contract that does not allow failure says so).
    ///
    /// ```swift
    /// let (pages, loader) = AsyncThrowingStream.makeDiagnosedStream("pages", of: Page.self)
    /// loader.yield(firstPage)
    /// loader.finish(throwing: LoadError.offline)
    /// loader.finish()        // duplicateTermination: it already failed
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
            switch result {
            case .enqueued: producer.didYield(enqueued: true, terminated: false)
            case .dropped: producer.didYield(enqueued: false, terminated: false)
            case .terminated: producer.didYield(enqueued: false, terminated: true)
            @unknown default: break
            }
            return result
        }

        /// Yields the value of a result, or finishes the stream with its error.
        @discardableResult
        public func yield(with result: sending Result<Element, Failure>) -> Continuation.YieldResult {
            switch result {
            case .success(let value):
                return yield(value)
            case .failure(let error):
                // As the plain continuation does: a failure ends the stream.
                finish(throwing: error)
                return .terminated
            }
        }

        /// The wrapped continuation's yield: misuse of this continuation is reported by
        /// `producer`, not also by the stream hook.
        private func yieldToBase(_ value: sending Element) -> Continuation.YieldResult {
            rdiag_stream_hook_suppress(1)
            defer { rdiag_stream_hook_suppress(-1) }
            return base.yield(value)
        }

        /// Ends the stream, with `error` as its failure when given.
        public func finish(throwing error: Failure? = nil) {
            producer.willFinish(failure: error.map { "\($0)" })
            DiagnosticsEngine.callingOwnStreams { base.finish(throwing: error) }
        }

        /// Called once when the stream ends: finished, or cancelled when its consumer went away.
        public var onTermination: (@Sendable (Continuation.Termination) -> Void)? {
            get { termination.value }
            nonmutating set { termination.value = newValue }
        }
    }
}

extension AsyncThrowingStream.DiagnosedContinuation where Element == Void {
    /// Yields `()`.
    @discardableResult
    public func yield() -> AsyncThrowingStream<Element, Failure>.Continuation.YieldResult {
        yield(())
    }
}
