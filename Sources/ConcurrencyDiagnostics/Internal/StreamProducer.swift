import ReactiveDiagnostics
import Synchronization

/// The producer side of a diagnosed `AsyncStream`: checks `yield* (finish | finish(throwing:))`
/// on its continuation, the contract's value count and termination, and where values are
/// yielded. It observes; the wrapped continuation still decides what happens to each value.
final class StreamProducer: Sendable {
    enum Phase: UInt8 {
        /// Yielding.
        case open
        /// `finish()` was called.
        case finished
        /// `finish(throwing:)` was called with an error.
        case failed
        /// The consumer went away first (its task was cancelled, or the stream was released).
        case abandoned
    }

    let identity: StreamIdentity
    let contract: StreamContract?
    /// `false` when the engine was disabled at creation: nothing is checked.
    let isActive: Bool
    private let phase = Atomic<UInt8>(Phase.open.rawValue)
    private let yields = Atomic<Int>(0)
    private let enqueued = Atomic<Int>(0)
    private let reportedLateYield = Atomic<Bool>(false)
    private let reportedAbandonedYield = Atomic<Bool>(false)

    init(identity: StreamIdentity, contract: StreamContract?) {
        self.identity = identity
        self.contract = contract
        isActive = identity.engine.isEnabled
    }

    var state: Phase {
        Phase(rawValue: phase.load(ordering: .relaxed)) ?? .open
    }

    /// Values the stream buffered or handed to a waiting consumer (not dropped).
    var enqueuedCount: Int {
        enqueued.load(ordering: .relaxed)
    }

    // MARK: Yield

    /// A value is about to be yielded: grammar, contract count, thread.
    @inline(__always)
    func willYield() {
        guard isActive else { return }
        let current = state
        if current == .finished || current == .failed {
            if !reportedLateYield.exchange(true, ordering: .relaxed) {
                identity.report(
                    .valueAfterTermination,
                    "\(identity.name) yielded a value after it \(current == .failed ? "failed" : "finished"); AsyncStream drops it without a word (the grammar is yield* (finish | finish(throwing:)); later ones are not reported again)",
                    details: ["state": "\(current)"])
            }
        } else if current == .open {
            let count = yields.wrappingAdd(1, ordering: .relaxed).newValue
            if let range = contract?.values, count > range.upperBound {
                identity.report(
                    .contractViolation,
                    "\(identity.name) yielded value \(count) but its contract allows at most \(range.upperBound)",
                    details: [
                        "rule": "values", "expected": "\(range)", "actual": "\(count)",
                        "contract": contract?.description ?? "",
                    ])
            }
        }
        if let expectation = contract?.delivery, !expectation.isSatisfied() {
            identity.report(
                .wrongThread, "\(identity.name) yielded a value off the \(expectation)",
                details: ["expected": expectation.description, "event": "value"])
        }
    }

    /// The wrapped continuation's answer to a yield.
    @inline(__always)
    func didYield(enqueued wasEnqueued: Bool, terminated: Bool) {
        guard isActive else { return }
        if wasEnqueued {
            enqueued.wrappingAdd(1, ordering: .relaxed)
        } else if terminated, state == .abandoned, !reportedAbandonedYield.exchange(true, ordering: .relaxed) {
            identity.report(
                .valueAfterCancel,
                "\(identity.name) yielded a value after its consumer went away (task cancelled or stream released); the value was dropped, and a producer that keeps going is wasted work (later ones are not reported again)"
            )
        }
    }

    // MARK: Termination

    /// `finish()` (`failure == nil`) or `finish(throwing:)` is about to be called.
    func willFinish(failure: String?) {
        guard isActive else { return }
        let target: Phase = failure == nil ? .finished : .failed
        var current = phase.load(ordering: .relaxed)
        while true {
            let state = Phase(rawValue: current) ?? .open
            switch state {
            case .finished, .failed:
                identity.report(
                    .duplicateTermination,
                    "\(identity.name) \(failure == nil ? "finished" : "failed") again after it \(state == .failed ? "failed" : "finished"); at most one terminal event is allowed",
                    details: ["state": "\(state)", "event": "\(target)"])
                return
            case .abandoned:
                return  // finishing a stream nobody consumes any more is harmless
            case .open:
                let (exchanged, original) = phase.compareExchange(
                    expected: current, desired: target.rawValue, ordering: .acquiringAndReleasing)
                if exchanged {
                    checkTermination(target, failure: failure)
                    return
                }
                current = original
            }
        }
    }

    /// The stream terminated (the wrapped continuation's `onTermination`): `cancelled` when
    /// the consumer went away before the producer finished.
    func terminated(cancelled: Bool) {
        guard cancelled else { return }
        _ = phase.compareExchange(
            expected: Phase.open.rawValue, desired: Phase.abandoned.rawValue, ordering: .acquiringAndReleasing)
    }

    private func checkTermination(_ state: Phase, failure: String?) {
        if let expectation = contract?.delivery, !expectation.isSatisfied() {
            identity.report(
                .wrongThread, "\(identity.name) \(state == .failed ? "failed" : "finished") off the \(expectation)",
                details: ["expected": expectation.description, "event": "\(state)"])
        }
        guard let contract else { return }
        let count = yields.load(ordering: .relaxed)
        if contract.termination == .forbidden {
            identity.report(
                .contractViolation,
                "\(identity.name) \(state == .failed ? "failed" : "finished") but its contract says it must not terminate",
                details: [
                    "rule": "termination", "expected": "never terminates", "actual": "\(state)",
                    "contract": contract.description,
                ])
        }
        if state == .failed, !contract.allowsFailure {
            identity.report(
                .contractViolation,
                "\(identity.name) failed (\(failure ?? "error")) but its contract does not allow failure",
                details: [
                    "rule": "failure", "expected": "no failure", "actual": failure ?? "failure",
                    "contract": contract.description,
                ])
        }
        if state == .finished, let range = contract.values, count < range.lowerBound {
            identity.report(
                .contractViolation,
                "\(identity.name) finished after \(count) value(s) but its contract requires at least \(range.lowerBound)",
                details: [
                    "rule": "values", "expected": "\(range)", "actual": "\(count)", "contract": contract.description,
                ])
        }
    }
}
