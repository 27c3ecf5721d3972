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

    struct ShardState {
        var slots: [Slot] = []
        /// Per slot, the address of the object that explains the resource's lifetime (see
        /// ``setAnchor(_:object:)``), or 0. Beside the slots so that a slot stays 20 bytes.
        var anchors: [UInt] = []
        var freeHead: UInt32 = .max
        /// Objects held for resources of this shard (``hold(_:object:pool:)``).
        var held: [HeldEntry] = []
        /// Released held objects kept for reuse (``recycle(_:keeping:)``), one list per pool.
        var pools: [HeldPool] = []
    }

    final class Shard: Sendable {
        let state = LockedValue(ShardState())
    }

    static let shardCount = 16

    let shards: [Shard] = (0..<ResourceLedger.shardCount).map { _ in Shard() }
    let live = AtomicCounters(count: ResourceKind.maximumCount)
    private let peaks = AtomicCounters(count: ResourceKind.maximumCount)
    private let registered = AtomicCounters(count: ResourceKind.maximumCount)
    private let epoch = Atomic<UInt32>(0)
    let probes = LivenessProbes()
    /// Held objects in all shards.
    let heldCount = Atomic<Int>(0)

    /// Creates an empty ledger.
    package init() {}

    @inline(__always)
    func shardForCurrentThread() -> Int {
        Int(rdiag_thread_shard()) & (Self.shardCount - 1)
    }

    /// Registers a live resource.
    ///
    /// - Parameters:
    ///   - kind: What the resource is (subscription, timer…).
    ///   - label: The name findings show for it.
    ///   - stack: Where it was allocated.
    ///   - test: The test it belongs to.
    ///   - anchor: The object that explains the resource's lifetime, when it is known
    ///     already (see ``setAnchor(_:object:)``): stored under the same lock, at no extra cost.
    /// - Returns: The token to unregister it with.
    /// - Complexity: O(1) amortized; one shard lock and three relaxed atomics.
    package func register(
        kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity, anchor: AnyObject? = nil
    ) -> ResourceToken {
        let anchorWord = anchor.map(Self.address) ?? 0
        let shardIndex = shardForCurrentThread()
        let slot = newSlot(kind: kind, label: label, stack: stack, test: test)
        let token = shards[shardIndex].state.withLock { state in
            Self.occupy(&state, with: slot, anchor: anchorWord, shard: shardIndex)
        }
        counted(kind)
        return token
    }

    /// A live slot for a resource registered now.
    @inline(__always)
    func newSlot(kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity) -> Slot {
        Slot(stack: stack.rawValue, label: label.id, test: test.rawValue, epochOrNextFree: epoch.load(ordering: .relaxed),
             generation: 0, kind: kind.index, isLive: true)
    }

    /// Stores `slot` (and its anchor word, see ``setAnchor(_:object:)``) in a free slot of the
    /// shard (or a new one); under the shard's lock.
    @inline(__always)
    static func occupy(_ state: inout ShardState, with slot: Slot, anchor: UInt = 0, shard: Int) -> ResourceToken {
        var slot = slot
        if state.freeHead != .max {
            let index = Int(state.freeHead)
            state.freeHead = state.slots[index].epochOrNextFree
            slot.generation = state.slots[index].generation &+ 1
            state.slots[index] = slot
            state.anchors[index] = anchor
            return ResourceToken(shard: shard, index: index, generation: slot.generation)
        }
        state.slots.append(slot)
        state.anchors.append(anchor)
        return ResourceToken(shard: shard, index: state.slots.count - 1, generation: 0)
    }

    /// Counts a registration of `kind` (after its slot was stored).
    @inline(__always)
    func counted(_ kind: ResourceKind) {
        let kindIndex = Int(kind.index)
        registered.add(kindIndex, 1)
        peaks.raise(kindIndex, to: live.add(kindIndex, 1))
    }

    /// Unregisters a resource.
    ///
    /// - Returns: `false` when the token was already unregistered (or is ``ResourceToken/none``).
    @discardableResult
    package func unregister(_ token: ResourceToken) -> Bool {
        guard token.isValid, token.shard < Self.shardCount else { return false }
        let kind: Int? = shards[token.shard].state.withLock { state in
            Self.vacate(&state, token)
        }
        guard let kind else { return false }
        live.add(kind, -1)
        return true
    }

    /// Frees the slot of `token` if it is still its live resource; returns the kind's index.
    /// Under the shard's lock.
    @inline(__always)
    static func vacate(_ state: inout ShardState, _ token: ResourceToken) -> Int? {
        guard token.index < state.slots.count else { return nil }
        let slot = state.slots[token.index]
        guard slot.isLive, slot.generation == token.generation else { return nil }
        state.slots[token.index].isLive = false
        state.slots[token.index].epochOrNextFree = state.freeHead
        state.freeHead = UInt32(token.index)
        return Int(slot.kind)
    }

    /// Remembers the object that explains the resource's lifetime (a subscriber, a diagnosed
    /// stage): when the resource leaks, the engine walks the references it holds to find the
    /// retain cycle it belongs to. Only its address is kept: the object is not retained, and
    /// the walk reads memory without trusting it.
    ///
    /// - Complexity: O(1); one shard lock.
    package func setAnchor(_ token: ResourceToken, object: AnyObject) {
        storeAnchor(token, Self.address(of: object))
    }

    /// Remembers that the object holding `object` explains the resource's lifetime (it is
    /// found, at the checkpoint, by scanning memory for references to `object`).
    package func setAnchor(_ token: ResourceToken, holderOf object: AnyObject) {
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

    /// The anchor set for a live resource, if any; for a resource tied to an object the ledger
    /// holds (``hold(_:object:pool:)``) and without one, the holder of that object (what keeps
    /// it alive besides the ledger). Its address may no longer be an object: only a fault-free
    /// reader may look at it.
    ///
    /// - Complexity: O(1), or O(held resources of the shard) for a held one.
    package func anchor(of token: ResourceToken) -> ResourceAnchor? {
        guard token.isValid, token.shard < Self.shardCount else { return nil }
        let word = shards[token.shard].state.withLock { state -> UInt in
            guard token.index < state.slots.count, state.slots[token.index].isLive,
                  state.slots[token.index].generation == token.generation
            else { return 0 }
            if state.anchors[token.index] == 0, let held = state.held.first(where: { $0.token == token }) {
                return Self.address(of: held.object) | 1
            }
            return state.anchors[token.index]
        }
        guard word != 0 else { return nil }
        return word & 1 == 0 ? .object(word) : .holderOf(word & ~1)
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
}
