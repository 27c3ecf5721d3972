@_spi(Integration) import ReactiveDiagnostics
import Synchronization

/// The consumer side of a diagnosed `AsyncStream` handed out as a plain `AsyncStream`: sees
/// every `next()` of every iterator (they all call into it), so it knows which tasks wait.
///
/// A consumer waiting for an element that is not there yet is a live ``ResourceKind/iteration``
/// in the ledger, allocated where it iterates, until the element (or the end) arrives: one
/// still waiting when its test ends is a leak with both sites, where the stream was created and
/// where it is iterated. A second task waiting while another one does is a
/// ``FindingKind/concurrentIteration``.
///
/// Per `next()`: a few relaxed atomics; the consumer's stack is captured once per task (an
/// async chain walk) and the ledger is touched only when the consumer has to wait.
final class StreamConsumers: Sendable {
    let producer: StreamProducer
    private let waiting = WaitingConsumers()
    private let delivered = Atomic<Int>(0)
    /// The last consumer seen: its stack id (high 32 bits) and task key (low 32 bits).
    private let lastConsumer = Atomic<UInt64>(0)
    private let reportedConcurrency = Atomic<Bool>(false)

    init(producer: StreamProducer) {
        self.producer = producer
    }

    private var identity: StreamIdentity { producer.identity }

    /// What ``willWait()`` hands to ``didWait(_:gotElement:)``.
    struct Wait {
        fileprivate let token: ResourceToken
    }

    /// A consumer called `next()`: registers it while no element is buffered, and checks that
    /// no other task is waiting at the same time.
    func willWait() async -> Wait {
        let stack = await consumerStack()
        if let other = waiting.enter(stack: stack) {
            reportConcurrentIteration(stack: stack, other: other)
        }
        guard producer.enqueuedCount - delivered.load(ordering: .relaxed) <= 0 else {
            return Wait(token: .none)
        }
        return Wait(
            token: identity.engine.ledger.register(
                kind: .iteration, label: identity.label, stack: stack, test: identity.consumerTest))
    }

    /// The consumer's `next()` returned.
    func didWait(_ wait: Wait, gotElement: Bool) {
        if wait.token.isValid {
            identity.engine.ledger.unregister(wait.token)
        }
        if gotElement {
            delivered.wrappingAdd(1, ordering: .relaxed)
        }
        waiting.leave()
    }

    /// The calling task's iteration stack: cached for the last task seen, captured (the chain
    /// of async callers, up to the `for await` loop) when another task calls.
    private func consumerStack() async -> StackID {
        let key = CurrentTask.key
        let last = lastConsumer.load(ordering: .relaxed)
        let lastStack = StackID(rawValue: UInt32(truncatingIfNeeded: last >> 32))
        if key != 0, UInt32(truncatingIfNeeded: last) == key {
            return lastStack
        }
        let stack = await identity.engine.captureAsyncAllocationStack()
        identity.engine.explainLeaks(
            of: .iteration, label: identity.label, allocatedAt: stack, by: identity.creationStack,
            role: "stream created")
        lastConsumer.store(UInt64(stack.rawValue) << 32 | UInt64(key), ordering: .relaxed)
        return stack
    }

    private func reportConcurrentIteration(stack: StackID, other: StackID) {
        guard !reportedConcurrency.exchange(true, ordering: .relaxed) else { return }
        identity.report(
            .concurrentIteration,
            "\(identity.name) was iterated by two tasks at once: AsyncStream gives each element to only one of them, and a task left waiting may never resume (swiftlang/swift#71412); give each consumer a stream of its own",
            stack: stack, related: other == stack ? .none : other,
            details: [ReportFinding.relatedStackRoleKey: "other iteration"])
    }
}
