#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
import Foundation
@_spi(Integration) import ReactiveDiagnostics
@preconcurrency import RxSwift
import Synchronization

/// What ``RxDiagnosticsHooks`` installs into RxSwift's `Hooks`.
///
/// RxSwift's closure-based `subscribe(onNext:onError:onCompleted:onDisposed:)` (and what is
/// built on it: `subscribe(with:…)`, `Infallible.subscribe(onNext:…)`, RxCocoa's
/// `bind(onNext:)`, `drive(onNext:)`, `emit(onNext:)`) calls
/// `Hooks.customCaptureSubscriptionCallstack` once, on the subscribing thread, when
/// `Hooks.recordCallStackOnError` is on, and its observer's closure captures the `[String]`
/// that comes back. That array's storage is therefore referenced by the observer for exactly
/// as long as the observer lives, and RxSwift releases the observer when the subscription is
/// disposed, completes or fails (a sink disposer drops its sink; a subject removes the
/// observer from its bag). So each call registers a live ``ResourceKind/subscription`` with
/// the subscribing stack and test, and the ledger holds that storage: at the first sweep
/// that finds the ledger holding its last reference, the subscription ends. A test's
/// checkpoint sweeps until its resources are gone (bounded by the settle time), so what is
/// still alive then is a leak of that test.
///
/// If the subscription leaks, the engine looks for the retain cycle from the object that
/// holds the storage besides the ledger: the observer's closure context
/// (the ledger anchors a resource tied to an object at whatever holds that object, found by
/// scanning memory at the checkpoint).
///
/// The same array comes back to `Hooks.defaultErrorHandler` with an unhandled error: its
/// storage names the subscription (``DiagnosticsEngine/heldResource(for:)``), hence its stack
/// and test.
final class SubscriptionHook: Sendable {
    /// The label of every subscription this hook counts.
    static let label = DiagnosticLabel("subscribe(onNext:)")

    /// What the array says to anyone who reads it (it is ours only by its storage).
    static let line = "RxDiagnostics"

    let engine: DiagnosticsEngine
    let forwardsToPreviousHandler: Bool
    private let counted = Atomic<Int>(0)

    /// The ledger pool of the arrays this hook hands out: once a subscription ends, its
    /// array's storage (which only the ledger still references) serves the next one.
    static let pool = ObjectIdentifier(SubscriptionHook.self)

    init(engine: DiagnosticsEngine, forwardsToPreviousHandler: Bool) {
        self.engine = engine
        self.forwardsToPreviousHandler = forwardsToPreviousHandler
        if !forwardsToPreviousHandler {
            // Up to a sweep's worth per shard: a thread that subscribes and disposes in a loop
            // then reuses every array a sweep releases.
            engine.recycleHeld(Self.pool, keeping: 16 * 1_024)
        }
        RxRetainPaths.registerPlumbing()
    }

    /// Subscriptions counted so far.
    var subscriptionsCounted: Int {
        counted.load(ordering: .relaxed)
    }

    /// `Hooks.customCaptureSubscriptionCallstack`: one closure-based `subscribe` is being made.
    func capture() -> [String] {
        // One relaxed load of a count that is not 0 only while some thread asks ``isInstalledInRxSwift``.
        if Self.probers.load(ordering: .relaxed) != 0, Thread.current.threadDictionary[Self.probeKey] != nil {
            return [probeAnswer]
        }
        guard engine.isEnabled, ArrayStorage.isSupported else { return [] }
        let stack = engine.captureAllocationStack()
        let lines =
            forwardsToPreviousHandler && stack.isCaptured
            ? engine.symbolize(stack).frames.map(\.displayName) : []
        // The array's storage: a released one of the pool (its one element is `line`), or a new one.
        let held = engine.registerHeld(
            kind: .subscription, label: Self.label, stack: stack, test: engine.currentTest(),
            pool: lines.isEmpty ? Self.pool : nil
        ) {
            ArrayStorage.object(of: lines.isEmpty ? ArrayStorage.unique(Self.line) : lines)!
        }
        engine.sweepTiedResourcesIfDue()
        counted.add(1, ordering: .relaxed)
        return ArrayStorage.array(ofStorage: held.object)
    }

    // MARK: Is it still RxSwift's hook?

    /// Threads asking ``isInstalledInRxSwift`` now; each marks itself in its thread dictionary.
    private static let probers = Atomic<Int>(0)
    private static let probeKey = "RxDiagnostics.probe"

    /// What ``capture()`` answers a thread that asks ``isInstalledInRxSwift``: this hook's own.
    private var probeAnswer: String {
        "\(Self.line) probe \(UInt(bitPattern: ObjectIdentifier(self).hashValue))"
    }

    /// Whether RxSwift still calls this hook at a closure-based `subscribe`: its
    /// `Hooks.recordCallStackOnError` is on and its `Hooks.customCaptureSubscriptionCallstack`
    /// is this hook's (code may have set its own since). Calls the installed closure while this
    /// hook answers the calling thread with a mark and registers nothing; other threads'
    /// subscriptions are counted as always. Any thread may ask, at any time, under no lock
    /// (the closure may be someone else's code).
    var isInstalledInRxSwift: Bool {
        guard Hooks.recordCallStackOnError else { return false }
        let thread = Thread.current
        thread.threadDictionary[Self.probeKey] = true
        Self.probers.add(1, ordering: .relaxed)
        defer {
            Self.probers.subtract(1, ordering: .relaxed)
            thread.threadDictionary.removeObject(forKey: Self.probeKey)
        }
        return Hooks.customCaptureSubscriptionCallstack() == [probeAnswer]
    }

    /// `Hooks.defaultErrorHandler`: an error reached a closure subscription without `onError`.
    /// Returns a copy of the frames for a human (a copy, so that a previous handler that keeps
    /// it cannot keep the subscription alive).
    func unhandledError(_ callStack: [String], _ error: any Error) -> [String] {
        let subscription = ArrayStorage.object(of: callStack).flatMap(engine.heldResource(for:))
        UnhandledErrors.record(
            String(describing: error), label: nil, recorder: engine, test: subscription?.test ?? .none,
            allocationStack: subscription?.stack ?? .none)
        return callStack == [Self.line] ? [] : callStack.map { $0 }
    }
}
#endif
