import ReactiveDiagnostics
@preconcurrency import RxSwift
import Synchronization

/// What ``RxDiagnosticsHooks`` installs into RxSwift's `Hooks`.
///
/// RxSwift's closure-based `subscribe(onNext:onError:onCompleted:onDisposed:)` (and what is
/// built on it: `subscribe(with:…)`, `Infallible.subscribe(onNext:…)`, RxCocoa's
/// `bind(onNext:)`, `drive(onNext:)`, `emit(onNext:)`) calls
/// `Hooks.customCaptureSubscriptionCallstack` once, on the subscribing thread, when
/// `Hooks.recordCallStackOnError` is on, and its observer's closure captures the `[String]`
/// that comes back. That array's storage therefore lives exactly as long as the observer,
/// which RxSwift releases when the subscription is disposed, completes or fails (a sink
/// disposer drops its sink; a subject removes the observer from its bag). So each call
/// registers a live ``ResourceKind/subscription`` with the subscribing stack and test, and
/// the ledger watches that storage: at the next sweep after the observer is gone, the
/// subscription ends. A test's checkpoint sweeps until its resources are gone (bounded by
/// the settle time), so what is still alive then is a leak of that test.
final class SubscriptionHook: Sendable {
    /// The label of every subscription this hook counts.
    static let label = DiagnosticLabel("subscribe(onNext:)")

    let engine: DiagnosticsEngine
    let forwardsToPreviousHandler: Bool
    let marker: SubscriptionStackMarker
    private let counted = Atomic<Int>(0)

    init(engine: DiagnosticsEngine, forwardsToPreviousHandler: Bool) {
        self.engine = engine
        self.forwardsToPreviousHandler = forwardsToPreviousHandler
        marker = SubscriptionStackMarker(engine: engine)
        RxRetainPaths.registerPlumbing()
    }

    /// Subscriptions counted so far.
    var subscriptionsCounted: Int {
        counted.load(ordering: .relaxed)
    }

    /// `Hooks.customCaptureSubscriptionCallstack`: one closure-based `subscribe` is being made.
    func capture() -> [String] {
        guard engine.isEnabled else { return [] }
        let stack = engine.captureAllocationStack()
        let test = engine.currentTest()
        let line = marker.line(stack: stack, test: test)
        var lines: [String]
        if forwardsToPreviousHandler, stack.isCaptured {
            lines = engine.symbolize(stack).frames.map(\.displayName)
            lines.append(line)
        } else {
            lines = ArrayStorage.unique(line)
        }
        if let storage = ArrayStorage.object(of: lines) {
            let token = engine.ledger.register(kind: .subscription, label: Self.label, stack: stack, test: test)
            engine.ledger.watch(token, object: storage)
            // If it leaks, the retain cycle is looked for from the observer's closure context,
            // the object that holds this storage (found by scanning memory at the checkpoint).
            engine.ledger.setAnchor(token, holderOf: storage)
            engine.ledger.sweepIfDue()
            counted.add(1, ordering: .relaxed)
        }
        return lines
    }

    /// `Hooks.defaultErrorHandler`: an error reached a closure subscription without `onError`.
    /// Returns the human-readable frames the marker carried.
    func unhandledError(_ callStack: [String], _ error: any Error) -> [String] {
        let (stack, test, readable) = marker.decode(callStack)
        UnhandledErrors.record(String(describing: error), label: nil, engine: engine, test: test, allocationStack: stack)
        return readable
    }
}
