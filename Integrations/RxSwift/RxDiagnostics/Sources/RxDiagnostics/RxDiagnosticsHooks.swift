#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
import Foundation
public import ReactiveDiagnostics
@preconcurrency import RxSwift
import Synchronization

/// Checks every closure-based RxSwift subscription through RxSwift's global `Hooks`: one call,
/// no change to the code under test.
///
/// After ``install(engine:forwardingToPreviousHandler:)``, every
/// `subscribe(onNext:onError:onCompleted:onDisposed:)` — and what is built on it:
/// `subscribe(with:onNext:…)`, `Infallible.subscribe(onNext:…)`, RxCocoa's `bind(onNext:)`,
/// `drive(onNext:)` and `emit(onNext:)` — is a live `subscription` labelled
/// `subscribe(onNext:)`, with the subscribing stack and the running test, until its observer
/// is released (the subscription was disposed, its bag released, or it completed or failed).
/// One still alive when its test ends is a `leakedSubscription` of that test, placed at the
/// subscribing line; the report lists the live ones per allocation site. An error that
/// reaches such a subscription without `onError` (RxSwift only prints it, and only in debug
/// builds) is an `unhandledError` finding whose allocation stack is the `subscribe` call.
///
/// ```swift
/// final class FeedViewModelTests: DiagnosedTestCase {
///     override class func setUp() {
///         super.setUp()
///         RxDiagnosticsHooks.install()             // once; later calls change nothing
///     }
///
///     func testRefreshShowsTheHeadlines() {
///         let model = FeedViewModel(api: .fake)    // subscribes with subscribe(onNext: { self.… })
///         model.refresh()
///         XCTAssertEqual(model.headlines, ["Swift 6.3 released"])
///     }                                            // a subscription still alive fails the test here
/// }
/// ```
///
/// What it cannot see: subscriptions made with an observer (`subscribe(_:)`, `bind(to:)`,
/// `drive(_:)` with an observer) and `Single` / `Maybe` / `Completable` closure
/// subscriptions, which do not call the hook (use `.diagnosed()` on those streams); the
/// stream grammar and threads (use `.diagnosed()` or `Observable.create(diagnosed:)`). It
/// turns `Hooks.recordCallStackOnError` on, which makes RxSwift's *debug* builds capture
/// `Thread.callStackSymbols` at every `Single`/`Maybe`/`Completable` closure subscribe
/// (Docs/RxSwift.md gives the cost).
public enum RxDiagnosticsHooks {
    /// What was installed before, and what is installed now. Unchecked: RxSwift's hook
    /// closures are not `Sendable` in its API, yet RxSwift itself calls them from any thread.
    private struct Installation: @unchecked Sendable {
        var hook: SubscriptionHook
        var previousRecordsCallStack: Bool
        var previousCapture: Hooks.CustomCaptureSubscriptionCallstack
        var previousHandler: Hooks.DefaultErrorHandler
    }

    /// The installation, under a lock Thread Sanitizer understands (`NSLock` is a
    /// `pthread_mutex_t`; on Linux the futex of `Synchronization.Mutex` is invisible to it,
    /// so every access under one is reported as a race when `install` runs on two threads).
    private final class Guarded: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Installation?

        func withLock<Result>(_ body: (inout Installation?) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    private static let installation = Guarded()
    private static let installed = Atomic<Bool>(false)

    /// Whether the hooks are installed.
    public static var isInstalled: Bool {
        installed.load(ordering: .relaxed)
    }

    /// Whether this platform's arrays have the layout the subscription count relies on
    /// (checked once at run time). Where they do not, the hooks still report unhandled
    /// errors but count no subscription.
    public static var countsSubscriptions: Bool {
        ArrayStorage.isSupported
    }

    /// Closure-based subscriptions counted since the hooks were installed.
    public static var subscriptionsCounted: Int {
        installation.withLock { $0?.hook.subscriptionsCounted } ?? 0
    }

    /// Whether RxSwift counts closure-based subscriptions through the installed hooks now:
    /// installed, and neither `Hooks.recordCallStackOnError` turned off nor
    /// `Hooks.customCaptureSubscriptionCallstack` replaced since (a test that sets hooks of its
    /// own stops the counting). ``install(engine:forwardingToPreviousHandler:)`` again puts
    /// them back.
    ///
    /// ```swift
    /// Hooks.customCaptureSubscriptionCallstack = { [] }   // some test's own hook
    /// assert(!RxDiagnosticsHooks.isActive)
    /// RxDiagnosticsHooks.install()                         // counting again
    /// assert(RxDiagnosticsHooks.isActive)
    /// ```
    public static var isActive: Bool {
        installation.withLock { $0?.hook }?.isInstalledInRxSwift ?? false
    }

    /// Installs the hooks. Safe to call at process start, from any thread, any number of
    /// times: installed already with the same arguments and still in RxSwift's `Hooks`, it
    /// changes nothing; replaced in `Hooks` since (see ``isActive``), it puts them back; with
    /// other arguments, it replaces that installation (RxSwift's own hooks stay the ones to
    /// restore).
    ///
    /// - Parameters:
    ///   - engine: Where subscriptions and unhandled-error findings are recorded.
    ///   - forwardingToPreviousHandler: Also call the error handler that was installed
    ///     before (RxSwift's prints to standard output in debug builds), handing it the
    ///     subscription's symbolized frames so that its message points at the `subscribe`
    ///     call. Symbolizing costs time at every closure-based `subscribe`; off by default.
    public static func install(engine: DiagnosticsEngine = .shared, forwardingToPreviousHandler: Bool = false) {
        func isSame(_ hook: SubscriptionHook) -> Bool {
            hook.engine === engine && hook.forwardsToPreviousHandler == forwardingToPreviousHandler
        }
        // Asked outside the lock: what is in RxSwift's `Hooks` may be anyone's code.
        if let hook = installation.withLock({ $0?.hook }), isSame(hook), hook.isInstalledInRxSwift {
            return
        }
        installation.withLock { current in
            let sameArguments = current.map { isSame($0.hook) } ?? false
            // Replaced in RxSwift's `Hooks` since: the same hook (and its count) goes back in.
            let previous =
                current.map { restored -> Installation in
                    var next = restored
                    if !sameArguments {
                        next.hook = SubscriptionHook(
                            engine: engine, forwardsToPreviousHandler: forwardingToPreviousHandler)
                    }
                    return next
                }
                ?? Installation(
                    hook: SubscriptionHook(engine: engine, forwardsToPreviousHandler: forwardingToPreviousHandler),
                    previousRecordsCallStack: Hooks.recordCallStackOnError,
                    previousCapture: Hooks.customCaptureSubscriptionCallstack,
                    previousHandler: Hooks.defaultErrorHandler)
            let hook = previous.hook
            let previousHandler = previous.previousHandler
            Hooks.customCaptureSubscriptionCallstack = { hook.capture() }
            Hooks.defaultErrorHandler = { callStack, error in
                let readable = hook.unhandledError(callStack, error)
                if hook.forwardsToPreviousHandler {
                    previousHandler(readable, error)
                }
            }
            if !Hooks.recordCallStackOnError {
                Hooks.recordCallStackOnError = true
            }
            current = previous
            installed.store(true, ordering: .relaxed)
        }
    }

    /// Restores the hooks that were installed before the first
    /// ``install(engine:forwardingToPreviousHandler:)``. Subscriptions already counted stay
    /// counted until their observers are released.
    public static func uninstall() {
        installation.withLock { current in
            guard let previous = current else { return }
            Hooks.recordCallStackOnError = previous.previousRecordsCallStack
            Hooks.customCaptureSubscriptionCallstack = previous.previousCapture
            Hooks.defaultErrorHandler = previous.previousHandler
            current = nil
            installed.store(false, ordering: .relaxed)
        }
    }
}
#endif
