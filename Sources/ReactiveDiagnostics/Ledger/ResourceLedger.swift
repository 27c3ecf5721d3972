import CReactiveDiagnostics
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts live resources and remembers where each was allocated.
///
/// Adapters register a resource when it comes alive (a subscription at subscribe time, a
/// scheduled action at schedule time) and unregister it when it ends. The ledger keeps, per
/// resource, 20 bytes: kind, label, allocation stack, test and epoch. Slots live in 16
/// shards chosen by the registering thread, so threads registering at once rarely share a
/// lock; a resource is ended from any thread without a lock (see `LedgerShard`). Counts are
/// kept per shard and summed when asked for.
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
public final class ResourceLedger: @unchecked Sendable {
    // Unchecked: a shard's fields are touched under its mutex, except its slots' state words
    // and its ended counts, which are atomics.

    /// What a query sees of one live resource.
    struct Slot {
        var stack: UInt32
        var label: UInt32
        var test: UInt32
        var epoch: UInt32
        var kind: UInt8
    }

    static let shardCount = 16

    /// The shards, each padded to its own cache lines.
    private let shards: UnsafeMutableRawPointer
    private static let shardStride = (MemoryLayout<LedgerShard>.stride + 127) & ~127
    private let epoch = Atomic<UInt32>(0)
    private let probes = LivenessProbes()

    /// Creates an empty ledger.
    public init() {
        shards = .allocate(byteCount: Self.shardStride * Self.shardCount, alignment: 128)
        for index in 0..<Self.shardCount {
            let shard = shard(index)
            shard.initialize(to: LedgerShard())
            let result = pthread_mutex_init(&shard.pointee.mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed with \(result)")
        }
    }

    deinit {
        for index in 0..<Self.shardCount {
            let shard = shard(index)
            pthread_mutex_destroy(&shard.pointee.mutex)
            shard.deinitialize(count: 1)
        }
        shards.deallocate()
    }

    @inline(__always)
    private func shard(_ index: Int) -> UnsafeMutablePointer<LedgerShard> {
        (shards + index * Self.shardStride).assumingMemoryBound(to: LedgerShard.self)
    }

    /// Runs `body` on shard `index` under its mutex.
    @inline(__always)
    private func withShard<Result>(_ index: Int, _ body: (inout LedgerShard) -> Result) -> Result {
        let shard = shard(index)
        pthread_mutex_lock(&shard.pointee.mutex)
        defer { pthread_mutex_unlock(&shard.pointee.mutex) }
        return body(&shard.pointee)
    }

    @inline(__always)
    private func shardForCurrentThread() -> Int {
        Int(rdiag_thread_shard()) & (Self.shardCount - 1)
    }

    /// Registers a live resource.
    ///
    /// - Returns: The token to unregister it with.
    /// - Complexity: O(1) amortized; one shard lock, rarely contended (the calling thread's).
    public func register(kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity) -> ResourceToken {
        let shardIndex = shardForCurrentThread()
        let currentEpoch = epoch.load(ordering: .relaxed)
        let (index, generation) = withShard(shardIndex) { shard -> (Int, UInt16) in
            let index = shard.takeSlot()
            let slot = shard.slot(index)
            let generation = LedgerState(raw: slot.pointee.state.load(ordering: .relaxed)).generation &+ 1
            slot.pointee.stack = stack.rawValue
            slot.pointee.label = label.id
            slot.pointee.test = test.rawValue
            slot.pointee.epoch = currentEpoch
            slot.pointee.state.store(
                LedgerState(generation: generation, kind: kind.index, phase: LedgerState.live).raw, ordering: .releasing)
            shard.noteRegistered(Int(kind.index))
            return (index, generation)
        }
        return ResourceToken(shard: shardIndex, index: index, generation: generation)
    }

    /// Unregisters a resource: one compare-and-swap, from any thread, without a lock.
    ///
    /// - Returns: `false` when the token was already unregistered (or is ``ResourceToken/none``).
    @discardableResult
    public func unregister(_ token: ResourceToken) -> Bool {
        guard let slot = slot(of: token) else { return false }
        var current = LedgerState(raw: slot.pointee.state.load(ordering: .acquiring))
        while current.phase == LedgerState.live && current.generation == token.generation {
            let (exchanged, original) = slot.pointee.state.compareExchange(
                expected: current.raw, desired: current.with(phase: LedgerState.ended).raw, ordering: .acquiringAndReleasing)
            if exchanged {
                shard(token.shard).pointee.ended.add(Int(current.kind), 1)
                return true
            }
            current = LedgerState(raw: original)
        }
        return false
    }

    /// The slot `token` names, if it is one of this ledger's.
    @inline(__always)
    private func slot(of token: ResourceToken) -> UnsafeMutablePointer<LedgerSlot>? {
        guard token.isValid, token.shard < Self.shardCount else { return nil }
        let shard = shard(token.shard)
        guard token.index < shard.pointee.count.load(ordering: .acquiring) else { return nil }
        return shard.pointee.slot(token.index)
    }

    /// Whether the resource behind `token` is still registered.
    public func isLive(_ token: ResourceToken) -> Bool {
        guard let slot = slot(of: token) else { return false }
        let state = LedgerState(raw: slot.pointee.state.load(ordering: .acquiring))
        return state.phase == LedgerState.live && state.generation == token.generation
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
        let kind = Int(kind.index)
        return (0..<Self.shardCount).reduce(0) { total, index in
            total + withShard(index) { $0.registered[kind] - $0.ended.load(kind) }
        }
    }

    /// Resources alive now, all kinds.
    public var liveCount: Int {
        (0..<ResourceKind.maximumCount).reduce(0) { $0 + liveCount(of: ResourceKind(index: UInt8($1))) }
    }

    /// The most resources of `kind` alive at once: exact for resources made on one thread;
    /// summed over the threads that made them otherwise (so never less than the true peak).
    public func peakCount(of kind: ResourceKind) -> Int {
        (0..<Self.shardCount).reduce(0) { total, index in
            total + withShard(index) { $0.peak[Int(kind.index)] }
        }
    }

    /// Resources of `kind` ever registered.
    public func registeredCount(of kind: ResourceKind) -> Int {
        (0..<Self.shardCount).reduce(0) { total, index in
            total + withShard(index) { $0.registered[Int(kind.index)] }
        }
    }

    // MARK: Queries

    /// Every live resource matching `include` (evaluated under the shard locks: keep it pure).
    func liveResources(where include: (Slot) -> Bool) -> [LiveResource] {
        var result: [LiveResource] = []
        for shardIndex in 0..<Self.shardCount {
            withShard(shardIndex) { shard in
                for index in 0..<shard.count.load(ordering: .relaxed) {
                    let pointer = shard.slot(index)
                    let state = LedgerState(raw: pointer.pointee.state.load(ordering: .acquiring))
                    guard state.phase == LedgerState.live else { continue }
                    let slot = Slot(
                        stack: pointer.pointee.stack, label: pointer.pointee.label, test: pointer.pointee.test,
                        epoch: pointer.pointee.epoch, kind: state.kind)
                    guard include(slot) else { continue }
                    result.append(LiveResource(
                        token: ResourceToken(shard: shardIndex, index: index, generation: state.generation),
                        kind: ResourceKind(index: slot.kind), label: DiagnosticLabel(id: slot.label),
                        stack: StackID(rawValue: slot.stack), test: TestIdentity(rawValue: slot.test),
                        epoch: slot.epoch))
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
        liveResources(where: { $0.epoch >= epoch })
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
