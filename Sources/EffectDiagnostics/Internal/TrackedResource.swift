@_spi(Integration) import ReactiveDiagnostics

/// A live resource this module registered in the engine's ledger, with everything a finding
/// about it names: label, allocation stack and test.
@usableFromInline
struct TrackedResource: Sendable {
    let engine: DiagnosticsEngine
    let kind: ResourceKind
    let label: DiagnosticLabel
    let token: ResourceToken
    let allocationStack: StackID
    let test: TestIdentity

    /// Registers a resource allocated by the caller of the public entry point.
    ///
    /// The stack is captured here; this module's frames are dropped when it is symbolized,
    /// so its first frame is the user's code that called the entry point.
    @inline(never)
    @usableFromInline
    static func start(_ kind: ResourceKind, label: DiagnosticLabel, engine: DiagnosticsEngine) -> TrackedResource {
        let stack = engine.captureAllocationStack()
        let test = engine.currentTest()
        let token = engine.ledger.register(kind: kind, label: label, stack: stack, test: test)
        return TrackedResource(
            engine: engine, kind: kind, label: label, token: token, allocationStack: stack, test: test)
    }

    /// The resource of a stream monitor `engine` made (long-lived effects).
    init(monitor: StreamMonitor, engine: DiagnosticsEngine) {
        self.init(
            engine: engine, kind: monitor.options.resourceKind, label: monitor.label, token: monitor.token,
            allocationStack: monitor.allocationStack, test: monitor.test)
    }

    private init(
        engine: DiagnosticsEngine, kind: ResourceKind, label: DiagnosticLabel, token: ResourceToken,
        allocationStack: StackID, test: TestIdentity
    ) {
        self.engine = engine
        self.kind = kind
        self.label = label
        self.token = token
        self.allocationStack = allocationStack
        self.test = test
    }

    /// The label as findings carry it (`nil` when empty).
    var labelText: String? {
        let name = label.name
        return name.isEmpty ? nil : name
    }

    /// Ends the resource. Returns `false` when it had already ended.
    @discardableResult
    @usableFromInline
    func end() -> Bool {
        engine.untrack(token)
    }

    /// Records a finding about this resource; the engine captures the calling stack and thread.
    @discardableResult
    func report(_ kind: FindingKind, _ message: String, details: [String: String] = [:]) -> Finding? {
        engine.record(
            FindingDraft(
                kind: kind, message: message, label: labelText, resourceKind: self.kind, test: test,
                allocationStack: allocationStack, details: details))
    }

    /// Records a `wrongThread` finding when the calling thread does not satisfy `expectation`.
    ///
    /// - Parameter event: What happened, completing "'load' … off the main queue", for example
    ///   "called back".
    @usableFromInline
    func checkThread(_ expectation: ThreadExpectation?, noun: String, event: String) {
        guard let expectation, !expectation.isSatisfied() else { return }
        report(
            .wrongThread,
            "\(noun) '\(label.name)' \(event) on the wrong thread: expected \(expectation.phrase), was \(ThreadInfo.current)",
            details: ["expected": expectation.description, "event": event])
    }
}

extension ThreadExpectation {
    /// The expectation as it reads after "expected": "the main queue", "off the main queue".
    var phrase: String {
        description.hasPrefix("off ") ? description : "the \(description)"
    }
}
