import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One live (or reusable) resource slot of the ledger: 20 bytes.
///
/// The fields are written under the shard's mutex before the state word publishes them; the
/// state word is the only part touched without the mutex (ending a resource is one
/// compare-and-swap on it).
struct LedgerSlot: ~Copyable {
    var stack: UInt32 = 0
    var label: UInt32 = 0
    var test: UInt32 = 0
    var epoch: UInt32 = 0
    /// ``LedgerState``, packed.
    let state = Atomic<UInt32>(0)
}

/// A slot's state word: generation (16 bits), kind (8 bits), phase (free, live or ended).
struct LedgerState: Equatable {
    static let free: UInt32 = 0
    static let live: UInt32 = 1
    static let ended: UInt32 = 2

    var raw: UInt32

    init(raw: UInt32) {
        self.raw = raw
    }

    init(generation: UInt16, kind: UInt8, phase: UInt32) {
        raw = UInt32(generation) << 16 | UInt32(kind) << 8 | phase
    }

    var generation: UInt16 { UInt16(truncatingIfNeeded: raw >> 16) }
    var kind: UInt8 { UInt8(truncatingIfNeeded: raw >> 8) }
    var phase: UInt32 { raw & 0xff }

    func with(phase: UInt32) -> LedgerState {
        LedgerState(raw: raw & ~0xff | phase)
    }
}

/// One shard of the ledger, reached through a pointer (no reference counting, no exclusivity
/// or copy-on-write checks): its mutex, its slots in chunks that never move (so a resource can
/// be ended without the mutex), and its counts.
///
/// Registering takes the mutex (one thread's registrations share a shard, so it is rarely
/// contended). Ending a resource does not: a compare-and-swap on the slot's state and an add
/// to the shard's count of ended resources, which lives on cache lines of its own, so the
/// thread that ends resources (a scheduler's queue, say) never writes what the registering
/// thread writes. Ended slots are reclaimed for reuse in sweeps, amortized O(1).
struct LedgerShard: ~Copyable {
    static let chunkBits = 10
    static let chunkSize = 1 << chunkBits

    /// Tests share per-test counts by their id's low bits: a test whose bucket another test's
    /// live resources also count is only scanned for, never missed.
    static let testBuckets = 64

    /// The bucket of the per-test counts that `test` (a ``TestIdentity`` raw value) uses.
    @inline(__always)
    static func testBucket(_ test: UInt32) -> Int {
        Int(test) & (testBuckets - 1)
    }

    var mutex = pthread_mutex_t()
    /// The chunk table; replaced (never freed before the shard) when it grows.
    let table: Atomic<UnsafeMutablePointer<UnsafeMutablePointer<LedgerSlot>?>>
    var tableCapacity = 4
    var retiredTables: [UnsafeMutablePointer<UnsafeMutablePointer<LedgerSlot>?>] = []
    /// Slots handed out so far (indices below it are in allocated chunks).
    let count = Atomic<Int>(0)
    /// Reclaimed slots, a stack.
    var free: UnsafeMutablePointer<UInt32>
    var freeCount = 0
    var freeCapacity = 64
    var nextSweep = 64
    /// Per kind, under the mutex: registered, the most alive at once, and the ended count as
    /// last read (it only grows, so an older value can only overstate what is alive).
    let registered: UnsafeMutablePointer<Int>
    let peak: UnsafeMutablePointer<Int>
    let endedSeen: UnsafeMutablePointer<Int>
    /// Per kind, by any thread: resources ended.
    let ended: AtomicCounters
    /// Per test bucket (``testBucket(_:)``): resources registered, written under the mutex
    /// (a store, read without it), and resources ended, by any thread. A bucket whose ended
    /// count equals its registered count in every shard has nothing alive, so a test's
    /// checkpoint need not scan the slots (see ``ResourceLedger/mayHaveLive(test:)``).
    let registeredByTest: AtomicCounters
    let endedByTest: AtomicCounters
    /// Objects held for resources of this shard (``ResourceLedger/hold(_:object:pool:)``).
    var held: [HeldEntry] = []
    /// Released held objects kept for reuse (``ResourceLedger/recycle(_:keeping:)``), one list
    /// per pool.
    var pools: [HeldPool] = []
    /// Per slot, the address of the object that explains its resource's lifetime
    /// (``ResourceLedger/setAnchor(_:object:)``); allocated with the first anchor.
    var anchors = LedgerAnchors()

    init() {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<LedgerSlot>?>.allocate(capacity: 4)
        table.initialize(repeating: nil, count: 4)
        self.table = Atomic(table)
        registered = .allocate(capacity: ResourceKind.maximumCount)
        registered.initialize(repeating: 0, count: ResourceKind.maximumCount)
        peak = .allocate(capacity: ResourceKind.maximumCount)
        peak.initialize(repeating: 0, count: ResourceKind.maximumCount)
        endedSeen = .allocate(capacity: ResourceKind.maximumCount)
        endedSeen.initialize(repeating: 0, count: ResourceKind.maximumCount)
        ended = AtomicCounters(count: ResourceKind.maximumCount, isolated: true)
        registeredByTest = AtomicCounters(count: Self.testBuckets, isolated: true)
        endedByTest = AtomicCounters(count: Self.testBuckets, isolated: true)
        free = .allocate(capacity: 64)
    }

    deinit {
        let table = table.load(ordering: .relaxed)
        let chunks = (count.load(ordering: .relaxed) + Self.chunkSize - 1) >> Self.chunkBits
        for index in 0..<chunks {
            if let chunk = table[index] {
                chunk.deinitialize(count: Self.chunkSize)
                chunk.deallocate()
            }
        }
        table.deallocate()
        for retired in retiredTables {
            retired.deallocate()
        }
        free.deallocate()
        registered.deallocate()
        peak.deallocate()
        endedSeen.deallocate()
    }

    /// The slot at `index` (below ``count``).
    @inline(__always)
    func slot(_ index: Int) -> UnsafeMutablePointer<LedgerSlot> {
        table.load(ordering: .acquiring)[index >> Self.chunkBits].unsafelyUnwrapped + (index & (Self.chunkSize - 1))
    }

    // MARK: Under the mutex

    /// A slot to register into: a reclaimed one, or a new one.
    @inline(__always)
    mutating func takeSlot() -> Int {
        if freeCount > 0 {
            freeCount -= 1
            return Int(free[freeCount])
        }
        let used = count.load(ordering: .relaxed)
        if used >= nextSweep {
            reclaimEnded(used)
            if freeCount > 0 {
                freeCount -= 1
                return Int(free[freeCount])
            }
        }
        return appendSlot(used)
    }

    /// Puts every ended slot on the free list; sweeps again only once the shard has doubled
    /// when few were ended (so sweeps cost O(1) per registration, amortized).
    private mutating func reclaimEnded(_ used: Int) {
        for index in 0..<used {
            let slot = slot(index)
            let state = LedgerState(raw: slot.pointee.state.load(ordering: .acquiring))
            if state.phase == LedgerState.ended {
                slot.pointee.state.store(state.with(phase: LedgerState.free).raw, ordering: .relaxed)
                if !anchors.isEmpty {
                    anchors.clear(index)
                }
                if freeCount == freeCapacity {
                    let bigger = UnsafeMutablePointer<UInt32>.allocate(capacity: freeCapacity * 2)
                    bigger.moveInitialize(from: free, count: freeCount)
                    free.deallocate()
                    free = bigger
                    freeCapacity *= 2
                }
                free[freeCount] = UInt32(index)
                freeCount += 1
            }
        }
        nextSweep = freeCount >= used / 4 ? used : used * 2
    }

    private mutating func appendSlot(_ used: Int) -> Int {
        let chunkIndex = used >> Self.chunkBits
        if used & (Self.chunkSize - 1) == 0 {
            var table = table.load(ordering: .relaxed)
            if chunkIndex == tableCapacity {
                let bigger = UnsafeMutablePointer<UnsafeMutablePointer<LedgerSlot>?>.allocate(
                    capacity: tableCapacity * 2)
                bigger.initialize(from: table, count: tableCapacity)
                (bigger + tableCapacity).initialize(repeating: nil, count: tableCapacity)
                retiredTables.append(table)
                tableCapacity *= 2
                table = bigger
            }
            let chunk = UnsafeMutablePointer<LedgerSlot>.allocate(capacity: Self.chunkSize)
            for index in 0..<Self.chunkSize {
                (chunk + index).initialize(to: LedgerSlot())
            }
            table[chunkIndex] = chunk
            self.table.store(table, ordering: .releasing)
        }
        count.store(used + 1, ordering: .releasing)
        return used
    }

    /// Counts a registration of `kind` for `test` and raises its peak if it may have been passed.
    mutating func noteRegistered(_ kind: Int, test: UInt32) {
        let bucket = Self.testBucket(test)
        // Only this shard's mutex holder writes it: a store, published before the slot is.
        registeredByTest.storeReleasing(bucket, registeredByTest.load(bucket) + 1)
        registered[kind] += 1
        if registered[kind] - endedSeen[kind] > peak[kind] {
            endedSeen[kind] = ended.load(kind)
            peak[kind] = max(peak[kind], registered[kind] - endedSeen[kind])
        }
    }
}
