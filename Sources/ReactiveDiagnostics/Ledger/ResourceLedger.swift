import CReactiveDiagnostics
import Synchronization
import _ReactiveDiagnosticsSupport
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
/// Scheduled actions of an engine's probes are not given slots: they are kept in lanes of the
/// threads that schedule them and counted by their probes (see `ResourceLedger+Lanes.swift`);
/// the queries and counts below include them.
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
@_spi(Integration) public final class ResourceLedger: @unchecked Sendable {
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
    let probes = LivenessProbes()
    /// Held objects in all shards.
    let heldCount = Atomic<Int>(0)
    /// This ledger's number (from 1), which the scheduled actions it counts carry.
    let id: UInt32
    private static let ids = Atomic<UInt32>(0)
    /// The counts of resources kept outside the slots that count for this ledger
    /// (see `ResourceLedger+Lanes.swift`).
    let laneSources = LockedValue<[any ExternalResourceSource]>([])
    /// What keeps resources of this ledger outside its slots, asked by the queries.
    let external = LockedValue<[any ExternalLiveResources]>([])

    /// Creates an empty ledger.
    @_spi(Integration) public init() {
        id = Self.ids.wrappingAdd(1, ordering: .relaxed).newValue
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
    func withShard<Result>(_ index: Int, _ body: (inout LedgerShard) -> Result) -> Result {
        let shard = shard(index)
        pthread_mutex_lock(&shard.pointee.mutex)
        defer { pthread_mutex_unlock(&shard.pointee.mutex) }
        return body(&shard.pointee)
    }

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
    ///     already (see ``setAnchor(_:object:)``): stored under the same lock. Without one,
    ///     registering touches no anchor storage at all.
    /// - Returns: The token to unregister it with.
    /// - Complexity: O(1) amortized; one shard lock, rarely contended (the calling thread's).
    @_spi(Integration) public func register(
        kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity, anchor: AnyObject? = nil
    ) -> ResourceToken {
        let shardIndex = shardForCurrentThread()
        let currentEpoch = epoch.load(ordering: .relaxed)
        let anchorWord = anchor.map(Self.address(of:)) ?? 0
        return withShard(shardIndex) { shard in
            let token = Self.occupy(
                &shard, shard: shardIndex, kind: kind, label: label, stack: stack, test: test, epoch: currentEpoch)
            if anchorWord != 0 {
                shard.anchors.set(token.index, to: anchorWord)
            }
            return token
        }
    }

    /// Stores a live resource in a free slot of `shard` (or a new one) and counts it; under
    /// the shard's lock.
    @inline(__always)
    static func occupy(
        _ shard: inout LedgerShard, shard shardIndex: Int, kind: ResourceKind, label: DiagnosticLabel, stack: StackID,
        test: TestIdentity, epoch: UInt32
    ) -> ResourceToken {
        let index = shard.takeSlot()
        let slot = shard.slot(index)
        let generation = LedgerState(raw: slot.pointee.state.load(ordering: .relaxed)).generation &+ 1
        slot.pointee.stack = stack.rawValue
        slot.pointee.label = label.id
        slot.pointee.test = test.rawValue
        slot.pointee.epoch = epoch
        slot.pointee.state.store(
            LedgerState(generation: generation, kind: kind.index, phase: LedgerState.live).raw, ordering: .releasing)
        shard.noteRegistered(Int(kind.index), test: test.rawValue)
        return ResourceToken(shard: shardIndex, index: index, generation: generation)
    }

    /// The epoch resources registered now carry.
    var epochNow: UInt32 {
        epoch.load(ordering: .relaxed)
    }

    /// Unregisters a resource: one compare-and-swap, from any thread, without a lock.
    ///
    /// - Returns: `false` when the token was already unregistered (or is ``ResourceToken/none``).
    @discardableResult
    @_spi(Integration) public func unregister(_ token: ResourceToken) -> Bool {
        guard let slot = slot(of: token) else { return false }
        var current = LedgerState(raw: slot.pointee.state.load(ordering: .acquiring))
        while current.phase == LedgerState.live && current.generation == token.generation {
            // Read after the state that published it: while the exchange below can succeed
            // the slot is this resource's (a slot is reused only once ended).
            let test = slot.pointee.test
            let (exchanged, original) = slot.pointee.state.compareExchange(
                expected: current.raw, desired: current.with(phase: LedgerState.ended).raw,
                ordering: .acquiringAndReleasing)
            if exchanged {
                let shard = shard(token.shard)
                shard.pointee.ended.add(Int(current.kind), 1)
                shard.pointee.endedByTest.addReleasing(LedgerShard.testBucket(test), 1)
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
    package func isLive(_ token: ResourceToken) -> Bool {
        guard let slot = slot(of: token) else { return false }
        let state = LedgerState(raw: slot.pointee.state.load(ordering: .acquiring))
        return state.phase == LedgerState.live && state.generation == token.generation
    }

    /// The resource behind `token`, while it is live.
    package func liveResource(_ token: ResourceToken) -> LiveResource? {
        guard slot(of: token) != nil else { return nil }
        return withShard(token.shard) { shard in
            let pointer = shard.slot(token.index)
            let state = LedgerState(raw: pointer.pointee.state.load(ordering: .acquiring))
            guard state.phase == LedgerState.live, state.generation == token.generation else { return nil }
            return LiveResource(
                token: token, kind: ResourceKind(index: state.kind), label: DiagnosticLabel(id: pointer.pointee.label),
                stack: StackID(rawValue: pointer.pointee.stack), test: TestIdentity(rawValue: pointer.pointee.test),
                epoch: pointer.pointee.epoch)
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
        let inLanes = laneCounts(of: kind).live
        let kind = Int(kind.index)
        return (0..<Self.shardCount).reduce(inLanes) { total, index in
            total + withShard(index) { $0.registered[kind] - $0.ended.load(kind) }
        }
    }

    /// Resources alive now, all kinds.
    package var liveCount: Int {
        (0..<ResourceKind.maximumCount).reduce(0) { $0 + liveCount(of: ResourceKind(index: UInt8($1))) }
    }

    /// The most resources of `kind` alive at once: exact for resources made on one thread;
    /// summed over the threads that made them otherwise (so never less than the true peak).
    package func peakCount(of kind: ResourceKind) -> Int {
        (0..<Self.shardCount).reduce(laneCounts(of: kind).peak) { total, index in
            total + withShard(index) { $0.peak[Int(kind.index)] }
        }
    }

    /// Resources of `kind` ever registered.
    package func registeredCount(of kind: ResourceKind) -> Int {
        (0..<Self.shardCount).reduce(laneCounts(of: kind).registered) { total, index in
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
                    result.append(
                        LiveResource(
                            token: ResourceToken(shard: shardIndex, index: index, generation: state.generation),
                            kind: ResourceKind(index: slot.kind), label: DiagnosticLabel(id: slot.label),
                            stack: StackID(rawValue: slot.stack), test: TestIdentity(rawValue: slot.test),
                            epoch: slot.epoch))
                }
            }
        }
        for keeper in external.withLock({ $0 }) {
            keeper.collectLive(ledger: id, where: include, into: &result)
        }
        return result
    }

    /// Every live resource.
    package func liveResources() -> [LiveResource] {
        liveResources(where: { _ in true })
    }

    /// Live resources registered at or after `epoch` (serial runners: one epoch per test).
    package func liveResources(since epoch: UInt32) -> [LiveResource] {
        liveResources(where: { $0.epoch >= epoch })
    }

    /// Live resources attributed to `test` (parallel runners). Scans nothing when
    /// ``mayHaveLive(test:)`` says `false`, as it does at the end of most correct tests.
    package func liveResources(test: TestIdentity) -> [LiveResource] {
        guard mayHaveLive(test: test) else { return [] }
        return liveResources(where: { $0.test == test.rawValue })
    }

    /// Whether `test` may have a resource alive: `false` only when none of its resources is,
    /// in the slots and in the sources counted outside them. `true` also when resources of
    /// another test that shares its counts are alive (see `LedgerShard.testBuckets`), or some
    /// of a scheduler's actions (which are not counted per test).
    ///
    /// - Complexity: two loads per shard and four per source outside the slots; no lock but
    ///   the sources' list's.
    package func mayHaveLive(test: TestIdentity) -> Bool {
        let bucket = LedgerShard.testBucket(test.rawValue)
        // Ended counts first: a resource counted there was registered before, so the
        // registered counts read after include it, and alive is never understated.
        var alive = 0
        for index in 0..<Self.shardCount {
            alive -= shard(index).pointee.endedByTest.loadAcquiring(bucket)
        }
        for index in 0..<Self.shardCount {
            alive += shard(index).pointee.registeredByTest.loadAcquiring(bucket)
        }
        return alive > 0 || laneSources.withLock { $0.contains { $0.mayHaveLive() } }
    }
}
