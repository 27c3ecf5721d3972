import Foundation
import OpenCombineShim
@_spi(Integration) import ReactiveDiagnostics
import Synchronization

/// The `_Introspection` handler behind ``CombineInstrumentation``: turns hook events into
/// stages (one per subscriber) and feeds each stage's ``StreamMonitor``.
///
/// What the hook reports, and how it is used:
/// - `willReceive(publisher:subscriber:)` is the subscribe call, in the subscriber's own call
///   stack: the stage is announced there with its allocation stack and test, but counted only
///   when its subscription arrives, because `AnyPublisher` and `Deferred` forward the same
///   subscriber (wrapped in `AnySubscriber`) to the publisher that really serves it.
/// - `willReceive(subscriber:subscription:)` links a stage to its subscription object.
/// - Values and completion carry only the subscriber; requests and cancels only the
///   subscription, which fused operators (`map`, `filter` on a subject) share: demand and
///   cancel reach every stage linked to it.
/// - `did…` events arrive after the call returned (for a subscribe call, after every
///   synchronous value): only the value's resulting demand and the end of deliveries are
///   taken from them.
final class IntrospectionHook: _Introspection, Sendable {
    let engine: DiagnosticsEngine
    let session: UInt64
    let table = StageTable()
    let tracked = Atomic<Int>(0)
    let skipped = Atomic<Int>(0)
    let isActive = Atomic<Bool>(true)
    /// Deliveries that entered a monitor (which binds the stage's test to the thread) and
    /// have not returned yet, on all threads.
    let openDeliveries = Atomic<Int>(0)

    static let timerOptions = StreamMonitor.Options(
        tracksDemand: true, expectsSubscription: true, resourceKind: .timer,
        prematureCancellationMarkers: StreamMonitor.Options.combinePrematureCancellationMarkers)

    init(engine: DiagnosticsEngine, session: UInt64) {
        self.engine = engine
        self.session = session
    }

    // MARK: Subscribe calls

    func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        let thread = HookThreadState.current(session: session)
        let key = StageKey(subscriber)
        let (info, subscriberInfo) = table.typeInfo(Upstream.self, Downstream.self)
        if subscriberInfo.isAnySubscriber, let outer = thread.pointee.subscribes.last, outer.key.id == key.id {
            forward(outer, to: info, thread: thread)
            return
        }
        guard isActive.load(ordering: .relaxed), engine.isEnabled else {
            thread.pointee.subscribes.append(.init(key: key, skipped: true))
            return
        }
        if info.isDiagnosed || subscriberInfo.isDiagnosed {
            // A `.diagnosed()` stage checks this stream itself: count it once.
            skipped.add(1, ordering: .relaxed)
            thread.pointee.subscribes.append(.init(key: key, skipped: true))
            return
        }
        // An operator subscribing while a value or completion is delivered to it (a `flatMap`'s
        // inner publisher, a `switchToLatest`'s, a `catch`'s replacement, a `append`'s suffix):
        // the new stage is alive because the operator's chain is.
        let nesting = subscriberInfo.operatorID == OperatorNames.none ? nil : thread.pointee.nestingOperator()
        thread.pointee.subscribes.append(.init(key: key, skipped: false))
        let stack = engine.captureAllocationStack()
        let test = engine.currentTest()
        let object = WeakObject.of(subscriber, isClass: subscriberInfo.isClass)
        if let nesting {
            engine.nestLeaks(
                allocatedAt: stack, inside: nesting.monitor.allocationStack,
                operatorName: OperatorNames.name(nesting.operatorID), test: test)
        }
        if table.announce(
            key, info: info, stack: stack, test: test, subscriber: object,
            hasFrameworkSubscriber: subscriberInfo.isFrameworkType, operatorID: subscriberInfo.operatorID
        ) {
            sweep()
        }
    }

    /// `AnyPublisher` or `Deferred` handing the subscriber of `outer` to the publisher `info`
    /// describes.
    private func forward(
        _ outer: HookThreadState.SubscribeFrame, to info: PublisherTypeInfo,
        thread: UnsafeMutablePointer<HookThreadState>
    ) {
        guard !outer.skipped else {
            thread.pointee.subscribes.append(outer)
            return
        }
        if info.isDiagnosed {
            table.withdraw(outer.key)
            skipped.add(1, ordering: .relaxed)
        } else {
            table.relabel(outer.key, info: info)
        }
        thread.pointee.subscribes.append(.init(key: outer.key, skipped: info.isDiagnosed))
    }

    /// A `.diagnosed()` stage received the subscriber of the innermost subscribe call on
    /// this thread without a subscribe call of its own (`AnyPublisher`'s box calls
    /// `receive(subscriber:)` directly): that stage is the diagnosed one's.
    func diagnosedStageReceives(_ id: CombineIdentifier) {
        let thread = HookThreadState.current(session: session)
        guard let index = thread.pointee.subscribes.indices.last else { return }
        let outer = thread.pointee.subscribes[index]
        guard outer.key.id == id, !outer.skipped else { return }
        table.withdraw(outer.key)
        skipped.add(1, ordering: .relaxed)
        thread.pointee.subscribes[index] = .init(key: outer.key, skipped: true)
    }

    func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        _ = HookThreadState.current(session: session).pointee.subscribes.popLast()
    }

    // MARK: Subscriptions

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {
        let key = StageKey(subscriber)
        let subscriptionKey = SubscriptionKey(subscription)
        let (found, knownClass) = table.slot(key, subscription: subscriptionKey)
        guard let slot = found else { return }
        switch slot {
        case .pending(let pending):
            let isClass =
                knownClass
                ?? {
                    let isClass = type(of: subscription) is AnyObject.Type
                    table.noteSubscriptionType(subscriptionKey.type, isClass: isClass)
                    return isClass
                }()
            let object = WeakObject.of(subscription: subscription, isClass: isClass)
            activate(pending, key: key, subscriptionObject: object, subscription: subscriptionKey)
        case .active(let stage):
            // A second subscription, or the first one after an early value.
            stage.monitor.receivedSubscription()
            table.linkIfUnlinked(stage, to: subscriptionKey)
        }
    }

    /// Creates the stage's monitor with the stack and test captured at the subscribe call
    /// and makes it the active stage of `key`.
    @discardableResult
    func activate(
        _ pending: PendingStage, key: StageKey, subscriptionObject: WeakObject, subscription: SubscriptionKey?
    ) -> Stage? {
        // If it leaks, the retain cycle is looked for from the subscriber (a `Sink`, whose
        // closures are the user's), else from the subscription.
        let subscriber = pending.subscriber.object
        let subscriptionAnchor = subscriber == nil ? subscriptionObject.object : nil
        let monitor = engine.makeStreamMonitor(
            label: pending.label, contract: nil, options: pending.kind == .timer ? Self.timerOptions : .combine,
            allocationStack: pending.stack, test: pending.test, anchor: subscriber ?? subscriptionAnchor)
        if subscription != nil {
            monitor.receivedSubscription()
        }
        let stage = Stage(
            monitor: monitor, key: key, subscriber: pending.subscriber, subscriptionObject: subscriptionObject,
            hasFrameworkSubscriber: pending.hasFrameworkSubscriber, operatorID: pending.operatorID)
        guard table.install(stage, replacing: pending.serial, subscription: subscription) else {
            // Another thread activated it first; this monitor never existed for anyone.
            monitor.cancelled(checkPremature: false)
            return table.activeStage(key)
        }
        tracked.add(1, ordering: .relaxed)
        // There is no deallocation event: the ledger watches the subscription (or subscriber).
        if let watched = subscriptionAnchor ?? subscriptionObject.object ?? subscriber {
            engine.ledger.watch(monitor.token, object: watched)
        }
        return stage
    }

    // MARK: Housekeeping

    /// Forgets unreachable stages and lets the ledger end resources whose objects are gone.
    @discardableResult
    func sweep() -> Int {
        let pruned = table.prune()
        engine.ledger.sweep()
        return pruned
    }

    /// Stops tracking new stages and new deliveries, then waits (at most `limit`) for the
    /// deliveries in progress on other threads to return: once the hook is disabled their
    /// `did…` half would never arrive, and the thread would keep the stage's test bound.
    func drain(limit: Duration) {
        isActive.store(false, ordering: .relaxed)
        let own = HookThreadState.current(session: session).pointee.deliveries.count { $0.monitor != nil }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while openDeliveries.load(ordering: .acquiring) > own, clock.now < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    /// Forgets every stage; those still running are retired (not a leak, not a cancel).
    func retireAll() {
        for stage in table.removeAll() where !stage.isFinished {
            stage.monitor.cancelled(checkPremature: false)
        }
    }
}
