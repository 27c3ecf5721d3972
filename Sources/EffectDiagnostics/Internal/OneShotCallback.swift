import ReactiveDiagnostics
import Synchronization

/// The state of one callback that must be called exactly once: pending until it is called,
/// cancelled, or released uncalled.
///
/// Lock-free: one compare-and-swap decides each transition, and the user's callback is
/// called by ``wrapping(_:)`` outside every lock of the library.
final class OneShotCallback: Sendable {
    private enum Phase: UInt8 {
        case pending, called, cancelled, released
    }

    /// What a call should do.
    enum Call {
        /// Forward it; `first` is true for the call that ends the resource.
        case forward(first: Bool)
        /// Drop it: the effect was cancelled.
        case discard
    }

    let resource: TrackedResource
    let expectation: ThreadExpectation?
    private let phase = Atomic<UInt8>(Phase.pending.rawValue)
    private let calls = Atomic<Int>(0)

    init(resource: TrackedResource, expectation: ThreadExpectation?) {
        self.resource = resource
        self.expectation = expectation
    }

    /// The callback is being called: checks the grammar (once) and the thread.
    func willCall() -> Call {
        let count = calls.wrappingAdd(1, ordering: .relaxed).newValue
        let (first, original) = phase.compareExchange(
            expected: Phase.pending.rawValue, desired: Phase.called.rawValue, ordering: .acquiringAndReleasing)
        if !first {
            if original == Phase.cancelled.rawValue {
                return .discard
            }
            resource.report(
                .callbackCalledTwice,
                "effect '\(resource.label.name)' called back \(count) times; a one-shot callback must be called exactly once",
                details: ["calls": "\(count)"])
        }
        resource.checkThread(expectation, noun: "effect", event: "called back")
        return .forward(first: first)
    }

    /// The forwarded call returned.
    func didCall(_ call: Call) {
        if case .forward(first: true) = call {
            resource.end()
        }
    }

    /// The effect was cancelled: nothing is expected from it any more.
    func cancel() {
        let (exchanged, _) = phase.compareExchange(
            expected: Phase.pending.rawValue, desired: Phase.cancelled.rawValue, ordering: .acquiringAndReleasing)
        if exchanged {
            resource.end()
        }
    }

    /// The callback closure was deallocated.
    func released() {
        let (exchanged, _) = phase.compareExchange(
            expected: Phase.pending.rawValue, desired: Phase.released.rawValue, ordering: .acquiringAndReleasing)
        if exchanged {
            resource.reportReleased(
                "effect '\(resource.label.name)' was released without calling back: its callback can never be called now (a code path that returns without calling it?)"
            )
        }
    }

    /// The callback handed to user code: forwards to `downstream` after the checks, with the
    /// effect's test as the calling thread's test. Releasing it uncalled is reported.
    func wrapping<Action>(_ downstream: @escaping @Sendable (Action) -> Void) -> @Sendable (Action) -> Void {
        let lifetime = Lifetime(self)
        return { action in
            let callback = lifetime.callback
            let call = callback.willCall()
            if case .forward = call {
                TestIdentity.withThreadTest(callback.resource.test) { downstream(action) }
            }
            callback.didCall(call)
        }
    }

    /// Owned only by the wrapped closure, so its deinit means "the callback was released".
    private final class Lifetime: Sendable {
        let callback: OneShotCallback

        init(_ callback: OneShotCallback) {
            self.callback = callback
        }

        deinit {
            callback.released()
        }
    }
}
