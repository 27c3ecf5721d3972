import ReactiveDiagnostics
@preconcurrency import RxSwift
import Synchronization

/// Opt-in use of RxSwift's global `Hooks` for unhandled errors.
///
/// RxSwift has no hook that sees every subscription's lifetime, so leaks, grammar and
/// threads are only checked where you opt in (``DiagnosedObservable``,
/// ``DiagnosedObserver``, ``DiagnosticScheduler``). What RxSwift's hooks do offer is the
/// path of an error that reaches a closure-based `subscribe(onNext:…)` without `onError`:
/// with `Hooks.recordCallStackOnError` on, `Hooks.customCaptureSubscriptionCallstack` runs
/// at every such `subscribe` and its result is handed to `Hooks.defaultErrorHandler` when
/// the unhandled error arrives. Installing these hooks turns that error, which RxSwift only
/// prints in debug builds, into an `unhandledError` finding whose allocation stack is the
/// `subscribe` call, attributed to the running test.
///
/// ```swift
/// // Once, before the tests run (a test-suite initializer or the test glue's setup):
/// RxDiagnosticsHooks.install()
///
/// // In any test: an error nobody handles now fails the test that caused it.
/// api.refresh().subscribe(onNext: { [weak self] in self?.items = $0 }).disposed(by: bag)
/// ```
///
/// What it cannot see: subscriptions made with an observer (`subscribe(_:)`, `bind(to:)`),
/// and `Single`/`Maybe`/`Completable` closure subscriptions, which capture
/// `Thread.callStackSymbols` themselves: their unhandled errors are still findings, with the
/// stack of the error's delivery but no subscription stack. It never sees leaks or grammar.
public enum RxDiagnosticsHooks {
    /// What was installed before. Unchecked: RxSwift's hook closures are not `Sendable`
    /// in its API, yet RxSwift itself calls them from any thread.
    private struct Installation: @unchecked Sendable {
        var engine: DiagnosticsEngine
        var previousRecordsCallStack: Bool
        var previousCapture: Hooks.CustomCaptureSubscriptionCallstack
        var previousHandler: Hooks.DefaultErrorHandler
    }

    private static let installation = Mutex<Installation?>(nil)
    private static let installed = Atomic<Bool>(false)

    /// Whether the hooks are installed.
    public static var isInstalled: Bool {
        installed.load(ordering: .relaxed)
    }

    /// Installs the hooks, replacing an earlier installation.
    ///
    /// - Parameters:
    ///   - engine: Where unhandled-error findings are recorded.
    ///   - forwardingToPreviousHandler: Also call the error handler that was installed
    ///     before (RxSwift's prints to standard output in debug builds), handing it the
    ///     subscription's symbolized frames so that its message points at the `subscribe`
    ///     call. Symbolizing costs time at every closure-based `subscribe`; off by default.
    public static func install(engine: DiagnosticsEngine = .shared, forwardingToPreviousHandler: Bool = false) {
        uninstall()
        let previous = Installation(
            engine: engine, previousRecordsCallStack: Hooks.recordCallStackOnError,
            previousCapture: Hooks.customCaptureSubscriptionCallstack, previousHandler: Hooks.defaultErrorHandler)
        let previousHandler = previous.previousHandler
        installation.withLock { $0 = previous }
        Hooks.customCaptureSubscriptionCallstack = {
            SubscriptionStackMarker.capture(engine: engine, readable: forwardingToPreviousHandler)
        }
        Hooks.defaultErrorHandler = { callStack, error in
            let (stack, readable) = SubscriptionStackMarker.decode(callStack, engine: engine)
            UnhandledErrors.record(String(describing: error), label: nil, engine: engine, test: .none, allocationStack: stack)
            if forwardingToPreviousHandler {
                previousHandler(readable, error)
            }
        }
        Hooks.recordCallStackOnError = true
        installed.store(true, ordering: .relaxed)
    }

    /// Restores the hooks that were installed before ``install(engine:forwardingToPreviousHandler:)``.
    public static func uninstall() {
        guard let previous = installation.withLock({ state -> Installation? in
            defer { state = nil }
            return state
        }) else { return }
        Hooks.recordCallStackOnError = previous.previousRecordsCallStack
        Hooks.customCaptureSubscriptionCallstack = previous.previousCapture
        Hooks.defaultErrorHandler = previous.previousHandler
        installed.store(false, ordering: .relaxed)
    }
}
