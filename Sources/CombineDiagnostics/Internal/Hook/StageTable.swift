import OpenCombineShim
import ReactiveDiagnostics
import Synchronization
import _ReactiveDiagnosticsSupport

/// The stages global instrumentation knows, by subscriber and by subscription.
///
/// One short lock guards dictionaries and nothing else: no Combine call, no user code and no
/// weak-reference load (whose temporary strong reference could run a `deinit`) happens while
/// it is held. Stages that finished stay until their identifying object is gone, so a value
/// sent after completion is still seen; ``prune()`` forgets the rest.
final class StageTable: Sendable {
    struct State {
        var stages: [StageKey: StageSlot] = [:]
        var subscriptions: [SubscriptionKey: SubscriptionLinks] = [:]
        var publishers: [ObjectIdentifier: PublisherTypeInfo] = [:]
        var subscribers: [ObjectIdentifier: SubscriberTypeInfo] = [:]
        var subscriptionClasses: [ObjectIdentifier: Bool] = [:]
        var nextSerial: UInt64 = 0
        var pruneThreshold = StageTable.minimumPruneThreshold
    }

    /// Stage count above which a subscribe call prunes the table (then twice what is left).
    static let minimumPruneThreshold = 4096

    private let state = LockedValue(State())

    /// The tables are keyed by `CombineIdentifier`s, which are the subscribers' and
    /// subscriptions' addresses: the retain-path walk's memory scan finds them there, and must
    /// know they are the library's own bookkeeping (reading the whole table per hit to find the
    /// address is no reference was most of an explanation's cost in OpenCombine's suite).
    private static let registerBookkeeping: Void = {
        DiagnosticsEngine.registerBookkeeping([StageKey: StageSlot].self)
        DiagnosticsEngine.registerBookkeeping([SubscriptionKey: SubscriptionLinks].self)
    }()

    init() {
        _ = Self.registerBookkeeping
    }
    private let changes = Atomic<UInt64>(0)

    /// Changes whenever an active stage leaves the table (replaced, pruned, removed), so a
    /// thread's cache of stages found before is known to be stale. Read it before looking a
    /// stage up, and cache the stage under the value read.
    var generation: UInt64 {
        changes.load(ordering: .acquiring)
    }

    /// Called under the lock, after an active stage was replaced or removed.
    private func bumpGeneration() {
        changes.add(1, ordering: .releasing)
    }

    // MARK: Publisher types

    /// The cached facts about publisher type `P` and subscriber type `S` (one lock; a type
    /// seen for the first time is examined outside it).
    func typeInfo<P: Publisher, S: Subscriber>(
        _ publisher: P.Type, _ subscriber: S.Type
    ) -> (PublisherTypeInfo, SubscriberTypeInfo) {
        let publisherID = ObjectIdentifier(publisher)
        let subscriberID = ObjectIdentifier(subscriber)
        let (known, knownSubscriber) = state.withLock { ($0.publishers[publisherID], $0.subscribers[subscriberID]) }
        if let known, let knownSubscriber {
            return (known, knownSubscriber)
        }
        let info = known ?? PublisherTypeInfo(publisher)
        let subscriberInfo = knownSubscriber ?? SubscriberTypeInfo(subscriber)
        state.withLock { state in
            state.publishers[publisherID] = info
            state.subscribers[subscriberID] = subscriberInfo
        }
        return (info, subscriberInfo)
    }

    // MARK: Subscribe calls

    /// Records a subscribe call for `key`. Returns `true` when the table has grown enough to
    /// be pruned.
    func announce(
        _ key: StageKey, info: PublisherTypeInfo, stack: StackID, test: TestIdentity, subscriber: WeakObject,
        hasFrameworkSubscriber: Bool, operatorID: OperatorNames.ID
    ) -> Bool {
        func insert(_ state: inout State) {
            state.nextSerial &+= 1
            state.stages[key] = .pending(
                PendingStage(
                    label: info.label, kind: info.kind, stack: stack, test: test, subscriber: subscriber,
                    hasFrameworkSubscriber: hasFrameworkSubscriber, operatorID: operatorID,
                    serial: state.nextSerial))
        }
        let (existing, shouldPrune) = state.withLock { state -> (StageSlot?, Bool) in
            if let slot = state.stages[key] {
                return (slot, false)
            }
            insert(&state)
            return (nil, state.stages.count > state.pruneThreshold)
        }
        // A subscriber subscribing again: after it finished (Retry, Catch, Concatenate), or a
        // new object at a reused address (judged here, outside the lock). A live, active stage
        // keeps its entry, and its second subscription is a duplicate-subscription finding; a
        // live pending one (announced again before its subscription came) keeps its own too.
        switch existing {
        case .active(let stage)? where stage.isFinished || stage.isStale:
            state.withLock { state in
                if case .active(let current)? = state.stages[key], current === stage {
                    insert(&state)
                    bumpGeneration()
                }
            }
        case .pending(let pending)? where pending.subscriber.isGone:
            state.withLock { state in
                if case .pending(let current)? = state.stages[key], current.serial == pending.serial {
                    insert(&state)
                }
            }
        default:
            break
        }
        return shouldPrune
    }

    /// A forwarding publisher (`AnyPublisher`, `Deferred`) revealed the publisher that really
    /// serves a pending stage: label it with that one.
    func relabel(_ key: StageKey, info: PublisherTypeInfo) {
        state.withLock { state in
            if case .pending(var pending)? = state.stages[key] {
                pending.label = info.label
                pending.kind = info.kind
                state.stages[key] = .pending(pending)
            }
        }
    }

    /// Forgets a pending stage that turned out to be a `.diagnosed()` stage.
    func withdraw(_ key: StageKey) {
        state.withLock { state in
            if case .pending? = state.stages[key] {
                state.stages[key] = nil
            }
        }
    }

    // MARK: Stages

    /// What is known about `key`.
    func slot(_ key: StageKey) -> StageSlot? {
        state.withLock { $0.stages[key] }
    }

    /// What is known about `key`, and whether subscriptions of `subscription`'s dynamic type
    /// are classes (`nil` when that type was never seen).
    func slot(_ key: StageKey, subscription: SubscriptionKey) -> (StageSlot?, Bool?) {
        state.withLock { ($0.stages[key], $0.subscriptionClasses[subscription.type]) }
    }

    /// Remembers whether subscriptions of a type are classes.
    func noteSubscriptionType(_ type: ObjectIdentifier, isClass: Bool) {
        state.withLock { $0.subscriptionClasses[type] = isClass }
    }

    /// The active stage of `key`, if any (the per-value lookup).
    @inline(__always)
    func activeStage(_ key: StageKey) -> Stage? {
        state.withLock { state in
            if case .active(let stage)? = state.stages[key] {
                return stage
            }
            return nil
        }
    }

    /// Replaces the pending stage `serial` of `stage.key` with `stage`, linking it to
    /// `subscription`. Returns `false` when another thread got there first.
    func install(_ stage: Stage, replacing serial: UInt64, subscription: SubscriptionKey?) -> Bool {
        state.withLock { state in
            guard case .pending(let pending)? = state.stages[stage.key], pending.serial == serial else {
                return false
            }
            state.stages[stage.key] = .active(stage)
            if let subscription {
                Self.link(stage, to: subscription, in: &state)
            }
            return true
        }
    }

    /// Links an active stage that has no subscription yet (it saw a value first).
    func linkIfUnlinked(_ stage: Stage, to subscription: SubscriptionKey) {
        state.withLock { state in
            if stage.subscription == nil {
                Self.link(stage, to: subscription, in: &state)
            }
        }
    }

    private static func link(_ stage: Stage, to subscription: SubscriptionKey, in state: inout State) {
        stage.subscription = subscription
        // In place (no copy of the list), and for the common new subscription with nothing to
        // look through: this runs under the lock for every stage.
        state.subscriptions[subscription, default: SubscriptionLinks(stages: [])].add(stage)
    }

    // MARK: Subscriptions

    /// The stages a request on `subscription` reaches.
    @inline(__always)
    func stages(of subscription: SubscriptionKey) -> [Stage]? {
        state.withLock { $0.subscriptions[subscription]?.stages }
    }

    /// Removes and returns the stages a cancel of `subscription` ends.
    func cancel(_ subscription: SubscriptionKey) -> [Stage]? {
        state.withLock { $0.subscriptions.removeValue(forKey: subscription)?.stages }
    }

    // MARK: Housekeeping

    /// Number of stages (pending and active) in the table.
    var count: Int {
        state.withLock { $0.stages.count }
    }

    /// Forgets stages that can no longer be reached and links whose stages all finished.
    /// Returns how many stages were forgotten.
    @discardableResult
    func prune() -> Int {
        let (stages, subscriptions) = state.withLock { ($0.stages, $0.subscriptions) }
        // Judged outside the lock: weak loads may end the last strong reference.
        var dead: [(StageKey, UInt64?, Stage?)] = []
        for (key, slot) in stages {
            switch slot {
            case .pending(let pending) where pending.subscriber.isGone:
                dead.append((key, pending.serial, nil))
            case .active(let stage) where stage.isDisposable:
                dead.append((key, nil, stage))
            default:
                break
            }
        }
        let deadLinks = subscriptions.compactMap { key, links in
            links.stages.allSatisfy { $0.isFinished || $0.isStale } ? (key, links.stages) : nil
        }
        let removed = state.withLock { state -> [StageSlot] in
            var removed: [StageSlot] = []
            for (key, serial, stage) in dead {
                switch state.stages[key] {
                case .pending(let pending)? where pending.serial == serial:
                    removed.append(state.stages.removeValue(forKey: key)!)
                case .active(let current)? where current === stage:
                    removed.append(state.stages.removeValue(forKey: key)!)
                default:
                    break
                }
            }
            for (key, judged) in deadLinks {
                // Only if nothing was linked since it was judged.
                if let links = state.subscriptions[key], links.stages.count == judged.count,
                    zip(links.stages, judged).allSatisfy({ $0 === $1 })
                {
                    state.subscriptions[key] = nil
                }
            }
            state.pruneThreshold = max(Self.minimumPruneThreshold, state.stages.count * 2)
            if !removed.isEmpty {
                bumpGeneration()
            }
            return removed
        }
        // Stages (and their monitors) are released here, outside the lock.
        return withExtendedLifetime(removed) { removed.count }
    }

    /// Empties the table and returns every stage that was active.
    func removeAll() -> [Stage] {
        let stages = state.withLock { state -> [StageKey: StageSlot] in
            let stages = state.stages
            state.stages = [:]
            state.subscriptions = [:]
            state.pruneThreshold = Self.minimumPruneThreshold
            bumpGeneration()
            return stages
        }
        return stages.values.compactMap { slot in
            if case .active(let stage) = slot { return stage }
            return nil
        }
    }
}
