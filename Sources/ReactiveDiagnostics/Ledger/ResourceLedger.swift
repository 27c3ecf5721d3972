import CReactiveDiagnostics
import Synchronization

/// Counts live resources and remembers where each was allocated.
///
/// Adapters register a resource when it comes alive (a subscription at subscribe time, a
/// scheduled action at schedule time) and unregister it when it ends. The ledger keeps, per
/// resource, 20 bytes: kind, label, allocation stack, test and epoch. Slots live in 16
/// shards chosen by the calling thread, so threads registering at once rarely share a lock;
/// per-kind live counts, peaks and totals are atomics.
///
/// "Allocated after checkpoint C and still alive" is one query: ``liveResources(since:)``
/// for a serial runner, ``liveResources(test:)`` when tests run in parallel.
///
/// ```swift
/// let ledger = ResourceLedger()
/// let token = ledger.register(kind: .subscription, label: DiagnosticLabel("feed"), stack: .none, test: .none)
/// assert(ledger.liveCount(of: .subscription) == 1)
/// ledger.unregister(token)
/// assert(ledger.liveCount(of: .subscription) == 0)
/// ```
package final class ResourceLedger: Sendable {
    struct Slot {
        var stack: UInt32
        var label: UInt32
        var test: UInt32
        /// Epoch while live; next free slot while free.
        var epochOrNextFree: UInt32
        var generation: UInt16
        var kind: UInt8
        var isLive: Bool
    }

    private struct ShardState {
        var slots: [Slot] = []
        var freeHead: UInt32 = .max
    }

    private final class Shard: Sendable {
        let state = LockedValue(ShardState())
    }

    static let shardCount = 16

    private let shards: [Shard] = (0..<ResourceLedger.shardCount).map { _ in Shard() }
    private let live = AtomicCounters(count: ResourceKind.maximumCount)
    private let peaks = AtomicCounters(count: ResourceKind.maximumCount)
    private let registered = AtomicCounters(count: ResourceKind.maximumCount)
    private let epoch = Atomic<UInt32>(0)
    private let probes = LivenessProbes()

    /// Creates an empty ledger.
    package init() {}

    @inline(__always)
    private func shardForCurrentThread() -> Int {
        Int(rdiag_thread_shard()) & (Self.shardCount - 1)
    }

    /// Registers a live resource.
    ///
    /// - Returns: The token to unregister it with.
    /// - Complexity: O(1) amortized; one shard lock and three relaxed atomics.
    package func register(kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity) -> ResourceToken {
        let shardIndex = shardForCurrentThread()
        let currentEpoch = epoch.load(ordering: .relaxed)
        let (index, generation) = shards[shardIndex].state.withLock { state -> (Int, UInt16) in
            if state.freeHead != .max {
                let index = Int(state.freeHead)
                state.freeHead = state.slots[index].epochOrNextFree
                let generation = state.slots[index].generation &+ 1
                state.slots[index] = Slot(
                    stack: stack.rawValue, label: label.id, test: test.rawValue, epochOrNextFree: currentEpoch,
                    generation: generation, kind: kind.index, isLive: true)
                return (index, generation)
            }
            state.slots.append(Slot(
                stack: stack.rawValue, label: label.id, test: test.rawValue, epochOrNextFree: currentEpoch,
                generation: 0, kind: kind.index, isLive: true))
            return (state.slots.count - 1, 0)
        }
        let kindIndex = Int(kind.index)
        registered.add(kindIndex, 1)
        peaks.raise(kindIndex, to: live.add(kindIndex, 1))
        return ResourceToken(shard: shardIndex, index: index, generation: generation)
    }

    /// Unregisters a resource.
    ///
    /// - Returns: `false` when the token was already unregistered (or is ``ResourceToken/none``).
    @discardableResult
    package func unregister(_ token: ResourceToken) -> Bool {
        guard token.isValid, token.shard < Self.shardCount else { return false }
        let kind: Int? = shards[token.shard].state.withLock { state in
            guard token.index < state.slots.count else { return nil }
            let slot = state.slots[token.index]
            guard slot.isLive, slot.generation == token.generation else { return nil }
            state.slots[token.index].isLive = false
            state.slots[token.index].epochOrNextFree = state.freeHead
            state.freeHead = UInt32(token.index)
            return Int(slot.kind)
        }
        guard let kind else { return false }
        live.add(kind, -1)
        return true
    }

    /// Whether the resource behind `token` is still registered.
    package func isLive(_ token: ResourceToken) -> Bool {
        guard token.isValid, token.shard < Self.shardCount else { return false }
        return shards[token.shard].state.withLock { state in
            token.index < state.slots.count && state.slots[token.index].isLive
                && state.slots[token.index].generation == token.generation
        }
    }

    /// Starts a new epoch and returns it: resources registered from now on carry it.
    package func advanceEpoch() -> UInt32 {
        epoch.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The current epoch.
    package var currentEpoch: UInt32 {
        epoch.load(ordering: .relaxed)
    }

    // MARK: Counts

    /// Resources of `kind` alive now.
    package func liveCount(of kind: ResourceKind) -> Int {
        live.load(Int(kind.index))
    }

    /// Resources alive now, all kinds.
    package var liveCount: Int {
        (0..<ResourceKind.maximumCount).reduce(0) { $0 + live.load($1) }
    }

    /// The most resources of `kind` alive at once.
    package func peakCount(of kind: ResourceKind) -> Int {
        peaks.load(Int(kind.index))
    }

    /// Resources of `kind` ever registered.
    package func registeredCount(of kind: ResourceKind) -> Int {
        registered.load(Int(kind.index))
    }

    // MARK: Queries

    /// Every live resource matching `include` (evaluated under the shard locks: keep it pure).
    func liveResources(where include: (Slot) -> Bool) -> [LiveResource] {
        var result: [LiveResource] = []
        for (shardIndex, shard) in shards.enumerated() {
            shard.state.withLock { state in
                for (index, slot) in state.slots.enumerated() where slot.isLive && include(slot) {
                    result.append(LiveResource(
                        token: ResourceToken(shard: shardIndex, index: index, generation: slot.generation),
                        kind: ResourceKind(index: slot.kind), label: DiagnosticLabel(id: slot.label),
                        stack: StackID(rawValue: slot.stack), test: TestIdentity(rawValue: slot.test),
                        epoch: slot.epochOrNextFree))
                }
            }
        }
        return result
    }

    /// Every live resource.
    package func liveResources() -> [LiveResource] {
        liveResources(where: { _ in true })
    }

    /// Live resources registered at or after `epoch` (serial runners: one epoch per test).
    package func liveResources(since epoch: UInt32) -> [LiveResource] {
        liveResources(where: { $0.epochOrNextFree >= epoch })
    }

    /// Live resources attributed to `test` (parallel runners).
    package func liveResources(test: TestIdentity) -> [LiveResource] {
        liveResources(where: { $0.test == test.rawValue })
    }

    // MARK: Liveness probes

    /// Ties a registered resource to `object`: when the object is deallocated the resource
    /// is unregistered at the next ``sweep()``. For frameworks that report no deallocation.
    package func watch(_ token: ResourceToken, object: AnyObject) {
        probes.add(token, object: object)
    }

    /// Stops watching `token` (after it was unregistered explicitly).
    package func unwatch(_ token: ResourceToken) {
        probes.remove(token)
    }

    /// Unregisters watched resources whose objects are gone. Returns how many.
    @discardableResult
    package func sweep() -> Int {
        var swept = 0
        for token in probes.collectDeallocated() where unregister(token) {
            swept += 1
        }
        return swept
    }
}

/// Weak references from resources to the objects whose lifetime defines them.
private final class LivenessProbes: Sendable {
    // Unchecked: the object is only ever compared with nil, never used.
    private struct Weak: @unchecked Sendable {
        weak var object: AnyObject?
    }

    private let state = LockedValue([ResourceToken: Weak]())

    func add(_ token: ResourceToken, object: AnyObject) {
        let probe = Weak(object: object)
        state.withLock { $0[token] = probe }
    }

    func remove(_ token: ResourceToken) {
        _ = state.withLock { $0.removeValue(forKey: token) }
    }

    func collectDeallocated() -> [ResourceToken] {
        // Loading a weak reference makes a temporary strong one; releasing it can be the last
        // release and run a deinit (user code), so the references are read outside the lock.
        let snapshot = state.withLock { $0 }
        let gone = snapshot.filter { $0.value.object == nil }.map(\.key)
        guard !gone.isEmpty else { return [] }
        state.withLock { probes in
            for token in gone {
                probes.removeValue(forKey: token)
            }
        }
        return gone
    }
}
