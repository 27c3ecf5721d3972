@_spi(Integration) import ReactiveDiagnostics
import Synchronization

/// The life of one diagnosed continuation: a live ``ResourceKind/continuation`` from creation
/// until its first resume; later resumes are findings (and are dropped); a release without any
/// resume is a finding at once, since the awaiting task can never continue.
final class ContinuationTracker: Sendable {
    let engine: DiagnosticsEngine
    let label: DiagnosticLabel
    let stack: StackID
    let test: TestIdentity
    let expectation: ThreadExpectation?
    /// `false` when the engine was disabled at creation: only the second resume is dropped.
    let isActive: Bool
    private let token: ResourceToken
    private let resumes = Atomic<Int>(0)

    init(engine: DiagnosticsEngine, label: DiagnosticLabel, stack: StackID, expectation: ThreadExpectation?) {
        self.engine = engine
        self.label = label
        self.stack = stack
        self.expectation = expectation
        test = engine.currentTest()
        isActive = engine.isEnabled
        token = isActive ? engine.ledger.register(kind: .continuation, label: label, stack: stack, test: test) : .none
    }

    deinit {
        guard isActive, resumes.load(ordering: .acquiring) == 0, engine.ledger.unregister(token) else { return }
        report(
            .callbackNeverCalled,
            "\(name) was released without being resumed: the task awaiting it is suspended forever (a code path that returns without resuming it?)",
            details: ["released": "true"])
    }

    private var name: String {
        label.name.isEmpty ? "continuation" : "continuation '\(label.name)'"
    }

    /// The continuation is being resumed: `true` for the first resume, which goes through;
    /// `false` for a later one, reported and dropped (the runtime would stop the process).
    func willResume() -> Bool {
        let count = resumes.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        guard count == 1 else {
            guard isActive else { return false }
            report(
                .callbackCalledTwice,
                "\(name) resumed \(count) times; a continuation must be resumed exactly once (the runtime stops the process on the second resume: this one was dropped)",
                details: ["resumes": "\(count)"])
            return false
        }
        guard isActive else { return true }
        engine.ledger.unregister(token)
        if let expectation, !expectation.isSatisfied() {
            report(
                .wrongThread, "\(name) was resumed off the \(expectation)",
                details: ["expected": expectation.description, "event": "resume"])
        }
        return true
    }

    private func report(_ kind: FindingKind, _ message: String, details: [String: String]) {
        engine.record(
            FindingDraft(
                kind: kind, message: message, label: label.name.isEmpty ? nil : label.name, resourceKind: .continuation,
                test: test, allocationStack: stack, details: details))
    }
}
