@_spi(Integration) import ReactiveDiagnostics

extension AsyncThrowingStream where Failure == any Error {
    /// Makes a diagnosed throwing stream and its continuation: the twin of
    /// ``_Concurrency/AsyncStream/makeDiagnosedStream(_:of:bufferingPolicy:contract:expecting:engine:fileID:line:)``.
    /// The stream is a plain `AsyncThrowingStream<Element, any Error>`.
    ///
    /// ```swift
    /// let (pages, loader) = AsyncThrowingStream.makeDiagnosedStream("pages", of: String.self, contract: .init(allowsFailure: false))
    /// let reader = Reader(pages: pages)         // the app's code, unchanged
    /// loader.yield("page 1")
    /// loader.finish()
    /// ```
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show; `nil` uses `File.swift:line`.
    ///   - elementType: The element type.
    ///   - limit: The buffering policy, as for `AsyncThrowingStream.makeStream`.
    ///   - contract: What the stream promises: value count, termination, failure, and where
    ///     values are yielded.
    ///   - expectation: Where values must be yielded (the contract's delivery rule).
    ///   - engine: Where findings go.
    ///   - fileID: The file that calls this (filled in by the compiler); names the stream
    ///     when `label` is `nil`.
    ///   - line: The line that calls this (filled in by the compiler).
    public static func makeDiagnosedStream(
        _ label: String? = nil, of elementType: Element.Type = Element.self,
        bufferingPolicy limit: Continuation.BufferingPolicy = .unbounded, contract: StreamContract? = nil,
        expecting expectation: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
        fileID: StaticString = #fileID, line: UInt = #line
    ) -> (stream: AsyncThrowingStream<Element, any Error>, continuation: DiagnosedContinuation) {
        let identity = StreamIdentity(
            engine: engine, label: streamLabel(label, fileID: fileID, line: line),
            creationStack: engine.isEnabled ? engine.captureAllocationStack() : .none, test: engine.currentTest())
        let producer = StreamProducer(identity: identity, contract: merged(contract, expectation))
        let consumers = StreamConsumers(producer: producer)
        let (inner, base) = AsyncThrowingStream.makeStream(
            of: Element.self, throwing: (any Error).self, bufferingPolicy: limit)
        let termination = TerminationHandler<Continuation.Termination>()
        base.onTermination = { [producer, termination] reason in
            if case .cancelled = reason {
                producer.terminated(cancelled: true)
            }
            termination.call(reason)
        }
        guard producer.isActive else {
            // The engine is disabled: the plain stream, and a continuation that only forwards.
            return (inner, DiagnosedContinuation(base: base, producer: producer, termination: termination))
        }
        let source = UncheckedSendable(value: inner)
        let stream = AsyncThrowingStream(unfolding: { [source, consumers] in
            let wait = await consumers.willWait()
            var iterator = DiagnosticsEngine.callingOwnStreams { source.value.makeAsyncIterator() }
            do {
                let element = try await iterator.next()
                consumers.didWait(wait, gotElement: element != nil)
                return element
            } catch {
                consumers.didWait(wait, gotElement: false)
                throw error
            }
        })
        // Its iterations are checked by `consumers`, not by the stream hook.
        DiagnosticsEngine.adoptStream(stream)
        return (stream, DiagnosedContinuation(base: base, producer: producer, termination: termination))
    }

    /// A diagnosed throwing stream built like `AsyncThrowingStream { continuation in … }`.
    ///
    /// ```swift
    /// let lines = AsyncThrowingStream<String, any Error>.diagnosed("lines") { continuation in
    ///     continuation.yield("first")
    ///     continuation.finish()
    /// }
    /// ```
    public static func diagnosed(
        _ label: String? = nil, of elementType: Element.Type = Element.self,
        bufferingPolicy limit: Continuation.BufferingPolicy = .unbounded, contract: StreamContract? = nil,
        expecting expectation: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
        fileID: StaticString = #fileID, line: UInt = #line, _ build: (DiagnosedContinuation) -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = makeDiagnosedStream(
            label, of: elementType, bufferingPolicy: limit, contract: contract, expecting: expectation, engine: engine,
            fileID: fileID, line: line)
        build(continuation)
        return stream
    }
}
