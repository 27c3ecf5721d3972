@_spi(Integration) import ReactiveDiagnostics
import Synchronization

/// What the iterations of one diagnosed sequence share: identity, contract, and, for a
/// single-consumer base, who is waiting for an element.
@usableFromInline
final class SequenceState: Sendable {
    let identity: StreamIdentity
    let contract: StreamContract?
    let isSingleConsumer: Bool
    private let waiting = WaitingConsumers()
    private let reportedConcurrency = Atomic<Bool>(false)

    static let iterationOptions = StreamMonitor.Options(
        tracksDemand: false, expectsSubscription: false, resourceKind: .iteration)

    init(identity: StreamIdentity, contract: StreamContract?, isSingleConsumer: Bool) {
        self.identity = identity
        self.contract = contract
        self.isSingleConsumer = isSingleConsumer
    }

    /// An iterator's first `next()`: the iteration becomes a live resource, allocated where it
    /// iterates (the chain of async callers), with the diagnosed site as its explanation; `nil`
    /// when the engine is disabled (the iteration then only forwards).
    @usableFromInline
    func beginIteration(isolation: isolated (any Actor)?) async -> StreamMonitor? {
        let engine = identity.engine
        guard engine.isEnabled else { return nil }
        let stack = await engine.captureAsyncAllocationStack(isolation: isolation)
        engine.explainLeaks(
            of: .iteration, label: identity.label, allocatedAt: stack, by: identity.creationStack,
            role: "sequence diagnosed")
        return engine.makeStreamMonitor(
            label: identity.label, contract: contract, options: Self.iterationOptions, allocationStack: stack,
            test: identity.consumerTest)
    }

    /// An iteration starts waiting for an element; `false` when the check does not apply.
    @usableFromInline
    func enter(_ monitor: StreamMonitor) -> Bool {
        guard isSingleConsumer else { return false }
        if let other = waiting.enter(stack: monitor.allocationStack),
            !reportedConcurrency.exchange(true, ordering: .relaxed)
        {
            identity.report(
                .concurrentIteration,
                "\(identity.name) was iterated by two tasks at once: each element goes to only one of them, and a task left waiting may never resume (swiftlang/swift#71412); give each consumer a sequence of its own",
                stack: monitor.allocationStack, related: other == monitor.allocationStack ? .none : other,
                details: [ReportFinding.relatedStackRoleKey: "other iteration"])
        }
        return true
    }

    /// The iteration's `next()` returned.
    @usableFromInline
    func leave(_ entered: Bool) {
        if entered {
            waiting.leave()
        }
    }

    /// `next()` was called again after the iteration ended.
    @usableFromInline
    func nextAfterEnd(_ monitor: StreamMonitor) {
        identity.report(
            .requestAfterTermination,
            "\(identity.name): next() was called again after the iteration ended (it returned nil or threw); it returns nil from now on, so a loop that keeps polling spins",
            stack: monitor.allocationStack, details: ["state": "\(monitor.state)"])
    }
}
