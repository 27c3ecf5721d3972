#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CReactiveDiagnostics
import OpenCombineShim
import ReactiveDiagnostics

/// Per-thread bookkeeping of global instrumentation: the hook reports `will…` and `did…`
/// around each call, strictly nested on one thread, and the two halves must meet; and a
/// small cache of recently used stages, so a value costs no lock and no hashing.
///
/// Reached through a pointer (``current(session:)``): accesses through it carry no dynamic
/// exclusivity checks, which a class's stored properties would cost on every event.
struct HookThreadState {
    /// A subscribe call in progress (`willReceive(publisher:subscriber:)` … `didReceive`).
    struct SubscribeFrame {
        let key: StageKey
        let skipped: Bool
    }

    /// A value or completion delivery in progress; `monitor` is nil for untracked stages.
    struct DeliveryFrame {
        let monitor: StreamMonitor?
        let delivery: StreamMonitor.Delivery?
        /// How many subscribe calls were in progress on the thread when it began: a subscribe
        /// call made at that depth is the receiving stage's own (a `flatMap`'s inner publisher).
        let subscribeDepth: Int32
        /// The receiving stage's operator (``OperatorNames``), when it is an operator's.
        let operatorID: OperatorNames.ID
    }

    /// One cached stage, valid while the stage table's generation is the one it was found at.
    struct CacheEntry {
        let key: StageKey
        let stage: Stage
        let generation: UInt64
    }

    /// Entries in the stage cache (a power of two).
    static let cacheSize = 8

    /// The instrumentation session the frames belong to; a new session starts clean (a
    /// `did…` half lost to `stop()` must not pair with a later `will…`).
    var session: UInt64 = 0
    var subscribes: [SubscribeFrame] = []
    var deliveries: [DeliveryFrame] = []
    var cancelDepth = 0
    var cache = [CacheEntry?](repeating: nil, count: HookThreadState.cacheSize)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            let state = pointer.assumingMemoryBound(to: HookThreadState.self)
            #else
            guard let state = pointer?.assumingMemoryBound(to: HookThreadState.self) else { return }
            #endif
            rdiag_hook_state_set(nil)
            state.deinitialize(count: 1)
            state.deallocate()
        }
        precondition(status == 0, "CombineDiagnostics: pthread_key_create failed (\(status))")
        return key
    }()

    /// The calling thread's state for `session`, created on first use and freed when the
    /// thread exits (the pthread key's destructor; reads go through a plain thread-local).
    @inline(__always)
    static func current(session: UInt64) -> UnsafeMutablePointer<HookThreadState> {
        let state: UnsafeMutablePointer<HookThreadState>
        if let raw = rdiag_hook_state_get() {
            state = raw.assumingMemoryBound(to: HookThreadState.self)
        } else {
            state = .allocate(capacity: 1)
            state.initialize(to: HookThreadState())
            pthread_setspecific(key, state)
            rdiag_hook_state_set(state)
        }
        if state.pointee.session != session {
            state.pointee.reset(session: session)
        }
        return state
    }

    /// The operator stage a subscribe call made now belongs to: the stage receiving the
    /// innermost delivery, when it is an operator's and the call is its own (no other
    /// subscribe call was begun inside that delivery).
    func nestingOperator() -> (monitor: StreamMonitor, operatorID: OperatorNames.ID)? {
        guard let frame = deliveries.last, let monitor = frame.monitor, frame.operatorID != OperatorNames.none,
            Int(frame.subscribeDepth) == subscribes.count
        else { return nil }
        return (monitor, frame.operatorID)
    }

    private mutating func reset(session: UInt64) {
        self.session = session
        subscribes.removeAll(keepingCapacity: true)
        deliveries.removeAll(keepingCapacity: true)
        cancelDepth = 0
        for index in cache.indices {
            cache[index] = nil
        }
    }

    // MARK: Stage cache

    @inline(__always)
    private static func slot(of key: StageKey) -> Int {
        var id: UInt64 = 0
        if MemoryLayout<CombineIdentifier>.size == MemoryLayout<UInt64>.size {
            id = withUnsafeBytes(of: key.id) { $0.loadUnaligned(as: UInt64.self) }
        }
        let type = UInt64(UInt(bitPattern: key.type))
        // Fibonacci hashing: identifiers are consecutive counters or aligned addresses, type
        // metadata is aligned; the multiplication spreads them over the top bits.
        let mixed = (id ^ (type &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> UInt64(UInt64.bitWidth - cacheSize.trailingZeroBitCount))
    }

    /// The cached stage of `key`, if it was found at the table's current `generation`.
    ///
    /// An entry of an older generation is left in place (and replaced by the next stage cached
    /// in its slot): a generation changes whenever any stage leaves the table, at least once a
    /// test, and emptying the whole cache each time cost more than the lookups it saved.
    @inline(__always)
    func cachedStage(_ key: StageKey, generation: UInt64) -> Stage? {
        guard let entry = cache[Self.slot(of: key)], entry.generation == generation, entry.key == key else {
            return nil
        }
        return entry.stage
    }

    /// Remembers the active stage of `key` (found in the table at `generation`).
    @inline(__always)
    mutating func cache(_ stage: Stage, for key: StageKey, generation: UInt64) {
        cache[Self.slot(of: key)] = CacheEntry(key: key, stage: stage, generation: generation)
    }
}
