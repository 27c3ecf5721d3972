import OpenCombineShim
import ReactiveDiagnostics
import Synchronization

extension IntrospectionHook {
    /// The active stage for an event of `key`: from the thread's cache, else from the table.
    /// A pending one is activated without a subscription, so its monitor reports the event
    /// as arriving before the subscription.
    @inline(__always)
    private func stageForEvent(_ key: StageKey, thread: UnsafeMutablePointer<HookThreadState>) -> Stage? {
        let generation = table.generation
        if let stage = thread.pointee.cachedStage(key, generation: generation) {
            return stage
        }
        switch table.slot(key) {
        case .active(let stage)?:
            thread.pointee.cache(stage, for: key, generation: generation)
            return stage
        case .pending(let pending)?:
            return activate(pending, key: key, subscriptionObject: WeakObject(nil), subscription: nil)
        case nil:
            return nil
        }
    }

    /// The stage a delivery to `key` enters, counted as open until its `did…` half; none
    /// once the instrumentation is stopping.
    @inline(__always)
    private func trackedStage(_ key: StageKey, thread: UnsafeMutablePointer<HookThreadState>) -> Stage? {
        guard isActive.load(ordering: .relaxed), let stage = stageForEvent(key, thread: thread) else {
            return nil
        }
        openDeliveries.add(1, ordering: .relaxed)
        return stage
    }

    /// Enters a delivery frame on the thread: for `stage`, whose monitor `enter` returned
    /// `delivery`, or for an untracked stage (`nil`).
    @inline(__always)
    private func enter(
        _ stage: Stage?, thread: UnsafeMutablePointer<HookThreadState>,
        _ enter: (StreamMonitor) -> StreamMonitor.Delivery?
    ) {
        let depth = Int32(truncatingIfNeeded: thread.pointee.subscribes.count)
        guard let stage else {
            thread.pointee.deliveries.append(
                .init(monitor: nil, delivery: nil, subscribeDepth: depth, operatorID: OperatorNames.none))
            return
        }
        let monitor = stage.monitor
        let delivery = enter(monitor)
        thread.pointee.deliveries.append(
            .init(monitor: monitor, delivery: delivery, subscribeDepth: depth, operatorID: stage.operatorID))
    }

    // MARK: Values

    func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        let thread = HookThreadState.current(session: session)
        enter(trackedStage(StageKey(subscriber), thread: thread), thread: thread) { $0.willDeliverValue() }
    }

    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {
        let thread = HookThreadState.current(session: session)
        guard let frame = thread.pointee.deliveries.popLast(), let monitor = frame.monitor,
            let delivery = frame.delivery
        else {
            return
        }
        monitor.didDeliverValue(delivery, additionalDemand: StreamDemand(resultingDemand))
        openDeliveries.subtract(1, ordering: .releasing)
    }

    // MARK: Completion

    func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        let thread = HookThreadState.current(session: session)
        guard let stage = trackedStage(StageKey(subscriber), thread: thread) else {
            enter(nil, thread: thread) { _ in nil }
            return
        }
        let failure: String?
        switch completion {
        case .finished: failure = nil
        case .failure(let error): failure = String(describing: error)
        }
        enter(stage, thread: thread) { $0.willTerminate(failure: failure) }
    }

    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        let thread = HookThreadState.current(session: session)
        guard let frame = thread.pointee.deliveries.popLast(), let monitor = frame.monitor,
            let delivery = frame.delivery
        else {
            return
        }
        monitor.didTerminate(delivery)
        openDeliveries.subtract(1, ordering: .releasing)
    }

    // MARK: Demand and cancel (keyed by the subscription)

    func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {
        guard let stages = table.stages(of: SubscriptionKey(subscription)) else { return }
        let demand = StreamDemand(demand)
        for stage in stages {
            // Operators (Delay, ReceiveOn) hand their downstream's demand upstream even after
            // that upstream finished: Combine's own behaviour, a request that does nothing and
            // that the user cannot change. A zero or negative one is still reported.
            if stage.hasFrameworkSubscriber, stage.hasTerminated, Self.isPositive(demand) {
                continue
            }
            stage.monitor.requested(demand)
        }
    }

    func willCancel(subscription: any Subscription) {
        let thread = HookThreadState.current(session: session)
        let depth = thread.pointee.cancelDepth
        thread.pointee.cancelDepth += 1
        guard let stages = table.cancel(SubscriptionKey(subscription)) else { return }
        for (index, stage) in stages.enumerated() {
            // A released AnyCancellable cancels a whole chain: only its first, most downstream
            // stage is checked for a premature cancel, not every stage above it.
            stage.monitor.cancelled(checkPremature: depth == 0 && index == stages.count - 1)
        }
    }

    private static func isPositive(_ demand: StreamDemand) -> Bool {
        switch demand {
        case .unlimited: return true
        case .max(let count): return count > 0
        }
    }

    func didCancel(subscription: any Subscription) {
        let thread = HookThreadState.current(session: session)
        thread.pointee.cancelDepth = max(0, thread.pointee.cancelDepth - 1)
    }
}
