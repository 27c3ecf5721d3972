@_spi(Integration) import ReactiveDiagnostics

extension AsyncStream {
    /// Makes a diagnosed stream and its continuation: the stream is a plain `AsyncStream`, so it
    /// goes wherever the app expects one; the continuation checks the producer's grammar.
    ///
    /// Hand the stream to the code under test, feed it from the test, and the test learns what
    /// the app did with it. A consumer still waiting when the test ends — a `for await` loop in
    /// a task nobody cancels, on a stream nobody finishes — is a `FindingKind.leakedSubscription`
    /// that shows where the stream was created *and* where it is iterated; two tasks waiting
    /// at once are a `FindingKind.concurrentIteration`.
    ///
    /// ```swift
    /// @Test func showsTheLatestPrice() async {
    ///     let (prices, feed) = AsyncStream.makeDiagnosedStream("prices", of: Int.self)
    ///     let model = TickerModel(prices: prices)   // the app's code, unchanged: it takes an AsyncStream<Int>
    ///     model.start()                             // Task { for await price in prices { self.price = price } }
    ///     feed.yield(101)
    ///     await model.waitForPrice(101)
    /// }   // leakedSubscription: the model's loop still waits on 'prices'
    /// ```
    ///
    /// Cost: the stream goes through `AsyncStream(unfolding:)`, which costs about a third more
    /// per element than the plain stream (see Docs/Performance.md); each consumer task's stack
    /// is captured once, and the ledger is touched only when a consumer has to wait.
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show; `nil` uses `File.swift:line`.
    ///   - elementType: The element type.
    ///   - limit: The buffering policy, as for `AsyncStream.makeStream`.
    ///   - contract: What the stream promises: value count, termination, and (its delivery
    ///     rule) where values are yielded.
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
    ) -> (stream: AsyncStream<Element>, continuation: DiagnosedContinuation) {
        let identity = StreamIdentity(
            engine: engine, label: streamLabel(label, fileID: fileID, line: line),
            creationStack: engine.isEnabled ? engine.captureAllocationStack() : .none, test: engine.currentTest())
        let producer = StreamProducer(identity: identity, contract: merged(contract, expectation))
        let consumers = StreamConsumers(producer: producer)
        let (inner, base) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: limit)
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
        let stream = AsyncStream(unfolding: { [source, consumers] in
            let wait = await consumers.willWait()
            var iterator = DiagnosticsEngine.callingOwnStreams { source.value.makeAsyncIterator() }
            let element = await iterator.next()
            consumers.didWait(wait, gotElement: element != nil)
            return element
        })
        // Its iterations are checked by `consumers`, not by the stream hook.
        DiagnosticsEngine.adoptStream(stream)
        return (stream, DiagnosedContinuation(base: base, producer: producer, termination: termination))
    }

    /// A diagnosed stream built like `AsyncStream { continuation in … }`: `build` receives the
    /// checking continuation (see ``makeDiagnosedStream(_:of:bufferingPolicy:contract:expecting:engine:fileID:line:)``).
    ///
    /// ```swift
    /// let ticks = AsyncStream<Int>.diagnosed("ticks") { continuation in
    ///     for tick in 1...3 { continuation.yield(tick) }
    ///     continuation.finish()
    /// }
    /// ```
    public static func diagnosed(
        _ label: String? = nil, of elementType: Element.Type = Element.self,
        bufferingPolicy limit: Continuation.BufferingPolicy = .unbounded, contract: StreamContract? = nil,
        expecting expectation: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
        fileID: StaticString = #fileID, line: UInt = #line, _ build: (DiagnosedContinuation) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = makeDiagnosedStream(
            label, of: elementType, bufferingPolicy: limit, contract: contract, expecting: expectation, engine: engine,
            fileID: fileID, line: line)
        build(continuation)
        return stream
    }
}
