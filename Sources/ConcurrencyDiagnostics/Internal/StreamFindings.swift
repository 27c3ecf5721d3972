import ReactiveDiagnostics

/// What findings about one diagnosed stream or sequence share: the engine, the label, where
/// it was made and for which test.
struct StreamIdentity: Sendable {
    let engine: DiagnosticsEngine
    let label: DiagnosticLabel
    /// Where the stream was created (or the sequence diagnosed).
    let creationStack: StackID
    /// The test that created it.
    let test: TestIdentity

    /// The consumer's test, else (a detached task, a thread of its own) the creator's.
    var consumerTest: TestIdentity {
        let current = engine.currentTest()
        return current.isKnown ? current : test
    }

    /// `'prices'`, or `stream` without a label.
    var name: String {
        label.name.isEmpty ? "stream" : "'\(label.name)'"
    }

    /// Records a finding about the stream; `stack` overrides the creation stack as the
    /// allocation stack (an iteration's own stack, for consumer-side findings, which capture no
    /// event stack: in `async` code the thread's stack ends at the executor, and the iteration's
    /// stack already shows the loop).
    @discardableResult
    func report(
        _ kind: FindingKind, _ message: String, stack: StackID? = nil, related: StackID = .none,
        details: [String: String] = [:]
    ) -> Finding? {
        engine.record(
            FindingDraft(
                kind: kind, message: message, label: label.name.isEmpty ? nil : label.name, resourceKind: .iteration,
                test: test, allocationStack: stack ?? creationStack, capturesEventStack: stack == nil, details: details,
                relatedStack: related))
    }
}
