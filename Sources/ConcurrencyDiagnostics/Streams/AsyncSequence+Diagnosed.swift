import ReactiveDiagnostics

extension AsyncSequence {
    /// Checks and tracks each iteration of this sequence (see ``DiagnosedAsyncSequence``).
    ///
    /// ```swift
    /// for await headline in feed.headlines.diagnosed("headlines", contract: .init(values: 1...10)) {
    ///     show(headline)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - label: The name findings and the report show; `nil` uses `File.swift:line`.
    ///   - contract: What the sequence promises: value count, termination, failure, and where
    ///     elements are received.
    ///   - expectation: Where elements must be received (the contract's delivery rule), for
    ///     example `.mainQueue` for a loop that updates the UI.
    ///   - engine: Where findings go.
    ///   - fileID: The file that calls this (filled in by the compiler); names the sequence
    ///     when `label` is `nil`.
    ///   - line: The line that calls this (filled in by the compiler).
    public func diagnosed(
        _ label: String? = nil, contract: StreamContract? = nil, expecting expectation: ThreadExpectation? = nil,
        engine: DiagnosticsEngine = .shared, fileID: StaticString = #fileID, line: UInt = #line
    ) -> DiagnosedAsyncSequence<Self> {
        let identity = StreamIdentity(
            engine: engine, label: streamLabel(label, fileID: fileID, line: line),
            creationStack: engine.isEnabled ? engine.captureAllocationStack() : .none, test: engine.currentTest())
        return DiagnosedAsyncSequence(
            base: self,
            state: SequenceState(
                identity: identity, contract: merged(contract, expectation),
                isSingleConsumer: self is any SingleConsumerAsyncSequence))
    }
}
