public import OpenCombineShim
import ReactiveDiagnostics
import Synchronization
import _ReactiveDiagnosticsSupport

/// Checks and counts every Combine subscription in the process, through the framework's
/// `_Introspection` hook: one call in a test's set-up, no change to the code under test.
///
/// ```swift
/// @Suite(.serialized) struct FeedViewModelTests {
///     @Test func refreshDoesNotLeak() {
///         let instrumentation = CombineInstrumentation.start()     // the shared engine
///         defer { instrumentation.stop() }
///         let checkpoint = instrumentation.engine.beginTest(named: "refreshDoesNotLeak", serial: false)
///         TestIdentity.$current.withValue(checkpoint.test) {
///             let model = FeedViewModel(api: .mock)
///             model.refresh()
///         }
///         let outcome = instrumentation.engine.finishTest(checkpoint)
///         #expect(outcome.failures.isEmpty)
///     }
/// }
/// ```
///
/// Every subscriber a publisher receives becomes a *stage*, labelled with the publisher's
/// type (`_typeName(P.self, qualified: false)`, for example `Map<PassthroughSubject<Int, Never>, String>`)
/// and tracked by its own `StreamMonitor`: its allocation stack is the subscribe call,
/// it is a live `ResourceKind.subscription` (`ResourceKind.timer` for a
/// `Timer.TimerPublisher`) until it finishes, fails or is cancelled, and the grammar checker
/// sees its values, completion, requests and cancel. A chain of operators is one stage per
/// operator: a leaked `subject.map { … }.sink { … }` reports both stages.
///
/// What it cannot see: subscriptions made before ``start(engine:)`` or after ``stop()-type.method``;
/// delivery-thread expectations and contracts (use `.diagnosed(contract:)` /
/// `.expectDelivery(on:)` on the streams that have them); deallocation (the hook has none:
/// a stage whose subscription object is deallocated without finishing ends at the ledger's
/// next sweep, through a weak reference). Stages that are also `.diagnosed()` are left to
/// that stage, so each stream is counted once. The hook is process-wide: while it runs it
/// also sees tests running in parallel, each stage attributed to the test that subscribed.
///
/// On Linux this is OpenCombine 0.14's hook; with Apple's Combine (macOS 11, iOS 14 and
/// later) the same protocol is used, but this package's tests run on OpenCombine only.
public final class CombineInstrumentation: Sendable {
    /// The engine stages report to.
    public let engine: DiagnosticsEngine
    let hook: IntrospectionHook

    private static let running = LockedValue<CombineInstrumentation?>(nil)
    private static let sessions = Atomic<UInt64>(0)
    private static let installed = Atomic<Bool>(false)

    /// Whether an instrumentation runs (one relaxed load, for `.diagnosed()` stages).
    @usableFromInline
    static var isHookInstalled: Bool {
        installed.load(ordering: .relaxed)
    }

    /// A `.diagnosed()` stage is about to serve `subscriber`: the running hook must not
    /// count the stage it may have announced for it.
    @usableFromInline
    static func diagnosedStageReceives<S: Subscriber>(_ subscriber: S) {
        current?.hook.diagnosedStageReceives(subscriber.combineIdentifier)
    }

    private init(engine: DiagnosticsEngine) {
        self.engine = engine
        hook = IntrospectionHook(engine: engine, session: Self.sessions.add(1, ordering: .relaxed).newValue)
    }

    /// Starts instrumenting every subscription made from now on; returns the running
    /// instrumentation. Already running for `engine`: returns it unchanged. Running for
    /// another engine: that one is stopped first.
    @discardableResult
    public static func start(engine: DiagnosticsEngine = .shared) -> CombineInstrumentation {
        let (instrumentation, replaced) = running.withLock {
            running -> (CombineInstrumentation, CombineInstrumentation?) in
            if let current = running, current.engine === engine {
                return (current, nil)
            }
            let previous = running
            let started = CombineInstrumentation(engine: engine)
            running = started
            installed.store(true, ordering: .relaxed)
            return (started, previous)
        }
        if let replaced {
            replaced.shutDown()
        }
        if !instrumentation.hook.isEnabled {
            instrumentation.hook.enable()
        }
        return instrumentation
    }

    /// The running instrumentation, if any.
    public static var current: CombineInstrumentation? {
        running.withLock { $0 }
    }

    /// Stops the running instrumentation, if any (see ``stop()``).
    public static func stop() {
        current?.stop()
    }

    /// Stops instrumenting: no new subscription is counted, and the stages still running are
    /// retired from the ledger (they are neither leaks nor cancels: nobody watches them any
    /// more). Deliveries in progress on other threads are given up to a second to return
    /// first, so that none keeps its stream's test bound to its thread. Subscriptions made
    /// while it ran keep OpenCombine's (inert) taps.
    public func stop() {
        let wasRunning = Self.running.withLock { running -> Bool in
            guard running === self else { return false }
            running = nil
            Self.installed.store(false, ordering: .relaxed)
            return true
        }
        if wasRunning {
            shutDown()
        }
    }

    /// How long ``stop()`` waits for deliveries in progress on other threads.
    static let drainLimit = Duration.seconds(1)

    private func shutDown() {
        hook.drain(limit: Self.drainLimit)
        hook.disable()
        hook.retireAll()
    }

    /// Whether this instrumentation is the running one.
    public var isRunning: Bool {
        Self.running.withLock { $0 === self }
    }

    /// Counts since it started.
    public var statistics: Statistics {
        Statistics(
            subscriptionsTracked: hook.tracked.load(ordering: .relaxed),
            diagnosedStagesSkipped: hook.skipped.load(ordering: .relaxed),
            stagesRemembered: hook.table.count)
    }

    /// Forgets stages whose subscriber or subscription was deallocated and ends, in the
    /// ledger, the resources whose objects are gone. Test checkpoints sweep the ledger
    /// themselves; call this to reclaim memory in long runs. Returns how many stages it forgot.
    @discardableResult
    public func sweep() -> Int {
        hook.sweep()
    }
}
