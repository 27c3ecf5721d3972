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
public final class ResourceLedger: Sendable {
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
        /// Per slot, the address of the object that explains the resource's lifetime (see
        /// ``setAnchor(_:object:)``), or 0. Beside the slots so that a slot stays 20 bytes.
        var anchors: [UInt] = []
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
    public init() {}

    @inline(__always)
    private func shardForCurrentThread() -> Int {
        Int(rdiag_thread_shard()) & (Self.shardCount - 1)
    }

    /// Registers a live resource.
    ///
    /// - Parameter anchor: The object that explains the resource's lifetime, when it is known
    ///   already (see ``setAnchor(_:object:)``): stored under the same lock, at no extra cost.
    /// - Returns: The token to unregister it with.
    /// - Complexity: O(1) amortized; one shard lock and three relaxed atomics.
    public func register(
        kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity, anchor: AnyObject? = nil
    ) -> ResourceToken {
        let anchorWord = anchor.map(Self.address) ?? 0
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
                state.anchors[index] = anchorWord
                return (index, generation)
            }
            state.slots.append(Slot(
                stack: stack.rawValue, label: label.id, test: test.rawValue, epochOrNextFree: currentEpoch,
                generation: 0, kind: kind.index, isLive: true))
            state.anchors.append(anchorWord)
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
    public func unregister(_ token: ResourceToken) -> Bool {
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

    /// Remembers the object that explains the resource's lifetime (a subscriber, a diagnosed
    /// stage): when the resource leaks, the engine walks the references it holds to find the
    /// retain cycle it belongs to. Only its address is kept: the object is not retained, and
    /// the walk reads memory without trusting it.
    ///
    /// - Complexity: O(1); one shard lock.
    public func setAnchor(_ token: ResourceToken, object: AnyObject) {
        storeAnchor(token, Self.address(of: object))
    }

    /// Remembers that the object holding `object` explains the resource's lifetime (it is
    /// found, at the checkpoint, by scanning memory for references to `object`).
    public func setAnchor(_ token: ResourceToken, holderOf object: AnyObject) {
        storeAnchor(token, Self.address(of: object) | 1)
    }

    private static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    private func storeAnchor(_ token: ResourceToken, _ word: UInt) {
        guard token.isValid, token.shard < Self.shardCount else { return }
        shards[token.shard].state.withLock { state in
            guard token.index < state.slots.count, state.slots[token.index].isLive,
                  state.slots[token.index].generation == token.generation
            else { return }
            state.anchors[token.index] = word
        }
    }

    /// The anchor set for a live resource, if any. Its address may no longer be an object:
    /// only a fault-free reader may look at it.
    public func anchor(of token: ResourceToken) -> ResourceAnchor? {
        guard token.isValid, token.shard < Self.shardCount else { return nil }
        let word = shards[token.shard].state.withLock { state -> UInt in
            guard token.index < state.slots.count, state.slots[token.index].isLive,
                  state.slots[token.index].generation == token.generation
            else { return 0 }
            return state.anchors[token.index]
        }
        guard word != 0 else { return nil }
        return word & 1 == 0 ? .object(word) : .holderOf(word & ~1)
    }

    /// Whether the resource behind `token` is still registered.
    public func isLive(_ token: ResourceToken) -> Bool {
        guard token.isValid, token.shard < Self.shardCount else { return false }
        return shards[token.shard].state.withLock { state in
            token.index < state.slots.count && state.slots[token.index].isLive
                && state.slots[token.index].generation == token.generation
        }
    }

    /// Starts a new epoch and returns it: resources registered from now on carry it.
    public func advanceEpoch() -> UInt32 {
        epoch.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The current epoch.
    public var currentEpoch: UInt32 {
        epoch.load(ordering: .relaxed)
    }

    // MARK: Counts

    /// Resources of `kind` alive now.
    public func liveCount(of kind: ResourceKind) -> Int {
        live.load(Int(kind.index))
    }

    /// Resources alive now, all kinds.
    public var liveCount: Int {
        (0..<ResourceKind.maximumCount).reduce(0) { $0 + live.load($1) }
    }

    /// The most resources of `kind` alive at once.
    public func peakCount(of kind: ResourceKind) -> Int {
        peaks.load(Int(kind.index))
    }

    /// Resources of `kind` ever registered.
    public func registeredCount(of kind: ResourceKind) -> Int {
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
    public func liveResources() -> [LiveResource] {
        liveResources(where: { _ in true })
    }

    /// Live resources registered at or after `epoch` (serial runners: one epoch per test).
    public func liveResources(since epoch: UInt32) -> [LiveResource] {
        liveResources(where: { $0.epochOrNextFree >= epoch })
    }

    /// Live resources attributed to `test` (parallel runners).
    public func liveResources(test: TestIdentity) -> [LiveResource] {
        liveResources(where: { $0.test == test.rawValue })
    }

    // MARK: Liveness probes

    /// Ties a registered resource to `object`: when the object is deallocated the resource
    /// is unregistered at the next ``sweep()``. For frameworks that report no deallocation.
    public func watch(_ token: ResourceToken, object: AnyObject) {
        probes.add(token, object: object)
    }

    /// Stops watching `token` (after it was unregistered explicitly).
    public func unwatch(_ token: ResourceToken) {
        probes.remove(token)
    }

    /// The object a live resource is tied to by ``watch(_:object:)``, while it is alive (for
    /// explaining what keeps a leaked resource alive; `nil` when it is gone or never watched).
    public func watchedObject(_ token: ResourceToken) -> AnyObject? {
        probes.object(token)
    }

    /// Resources tied to objects by ``watch(_:object:)`` and not swept yet.
    public var watchedCount: Int {
        probes.count
    }

    /// Unregisters watched resources whose objects are gone. Returns how many.
    ///
    /// Test checkpoints and report building sweep; between them, the live counts of watched
    /// resources include those whose objects are already gone.
    @discardableResult
    public func sweep() -> Int {
        var swept = 0
        for token in probes.collectDeallocated() where unregister(token) {
            swept += 1
        }
        return swept
    }

    /// Sweeps when the watched resources doubled since the last sweep (and are at least
    /// 1,024): call it after ``watch(_:object:)`` to keep the probes' memory bounded at an
    /// amortized O(1) per watched resource.
    ///
    /// - Complexity: O(1) unless it sweeps; O(watched) when it does.
    @discardableResult
    public func sweepIfDue() -> Int {
        probes.claimSweep() ? sweep() : 0
    }
}

/// Weak references from resources to the objects whose lifetime defines them.
private final class LivenessProbes: Sendable {
    // Unchecked: the object is only compared with nil, or handed out strong while alive.
    private struct Weak: @unchecked Sendable {
        weak var object: AnyObject?
    }

    private let state = LockedValue([ResourceToken: Weak]())
    private let watched = Atomic<Int>(0)
    private let afterLastSweep = Atomic<Int>(0)

    /// The fewest watched resources worth a sweep from ``ResourceLedger/sweepIfDue()``.
    static let sweepFloor = 1_024

    func add(_ token: ResourceToken, object: AnyObject) {
        let probe = Weak(object: object)
        let count = state.withLock { probes in
            probes[token] = probe
            return probes.count
        }
        watched.store(count, ordering: .relaxed)
    }

    func remove(_ token: ResourceToken) {
        let count = state.withLock { probes in
            probes.removeValue(forKey: token)
            return probes.count
        }
        watched.store(count, ordering: .relaxed)
    }

    func object(_ token: ResourceToken) -> AnyObject? {
        let probe = state.withLock { $0[token] }
        return probe?.object
    }

    var count: Int {
        watched.load(ordering: .relaxed)
    }

    /// Whether a sweep is due; when it is, only one caller is told so.
    func claimSweep() -> Bool {
        let count = watched.load(ordering: .relaxed)
        let last = afterLastSweep.load(ordering: .relaxed)
        guard count >= Self.sweepFloor, count >= 2 * last else { return false }
        return afterLastSweep.compareExchange(expected: last, desired: count, ordering: .relaxed).exchanged
    }

    func collectDeallocated() -> [ResourceToken] {
        // Loading a weak reference makes a temporary strong one; releasing it can be the last
        // release and run a deinit (user code), so the references are read outside the lock.
        let snapshot = state.withLock { $0 }
        let gone = snapshot.filter { $0.value.object == nil }.map(\.key)
        let count = state.withLock { probes in
            for token in gone {
                probes.removeValue(forKey: token)
            }
            return probes.count
        }
        watched.store(count, ordering: .relaxed)
        afterLastSweep.store(count, ordering: .relaxed)
        return gone
    }
}
