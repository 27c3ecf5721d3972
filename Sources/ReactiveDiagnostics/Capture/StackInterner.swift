import CReactiveDiagnostics
import Foundation
import _ReactiveDiagnosticsSupport

/// Stores each distinct call stack once and hands out a ``StackID`` for it.
///
/// Interning runs on the hot path (every tracked allocation), so it hashes the raw
/// addresses and first asks the calling thread's cache of stacks it interned before (no lock:
/// the same code path captures the same stack again and again); otherwise it takes one of 16
/// shard locks chosen by the hash and compares against the stacks already stored in that
/// shard's arena: no allocation unless the stack is new. Stored frames never move (the arena
/// grows by chunks), so a thread's cache can point at them.
///
/// ```swift
/// let interner = StackInterner()
/// let id = interner.intern([0x1000, 0x2000])
/// assert(interner.intern([0x1000, 0x2000]) == id)   // identical stacks, one id
/// assert(interner.addresses(of: id) == [0x1000, 0x2000])
/// ```
///
/// Complexity: O(depth) per intern when the stack is known; amortized O(depth) when new.
/// Memory: the frames, 22 bytes of tables per distinct stack, and 8 KiB per thread that
/// captures or interns (its cache of 128 stacks and its capture buffer).
@_spi(Integration) public final class StackInterner: Sendable {
    static let shardBits: UInt32 = 4
    static let shardCount = 1 << shardBits

    private final class Shard: Sendable {
        let state = LockedValue(ShardState())

        deinit {
            state.withLock { $0.deallocate() }
        }
    }

    /// Unchecked: touched only under its shard's lock; the chunks it points into are its own.
    private struct ShardState: @unchecked Sendable {
        /// Open-addressing table of local index + 1 (0 = empty).
        var table = [UInt32](repeating: 0, count: 64)
        var hashes: [UInt64] = []
        /// Where each stack's frames are stored (in one of `chunks`; they never move).
        var stored: [UnsafeMutablePointer<UInt>] = []
        var lengths: [UInt16] = []
        /// The arena: chunks that are never reallocated, the last one being filled.
        var chunks: [(start: UnsafeMutablePointer<UInt>, capacity: Int)] = []
        var usedInLastChunk = 0

        static let firstChunkWords = 256
        static let largestChunkWords = 16_384

        mutating func intern(_ frames: UnsafeBufferPointer<UInt>, hash: UInt64) -> (UInt32, UnsafePointer<UInt>) {
            let mask = table.count - 1
            var slot = Int(truncatingIfNeeded: hash >> 7) & mask
            while true {
                let entry = table[slot]
                if entry == 0 {
                    break
                }
                let local = Int(entry - 1)
                if hashes[local] == hash && Int(lengths[local]) == frames.count,
                    memcmp(stored[local], frames.baseAddress!, frames.count * MemoryLayout<UInt>.stride) == 0
                {
                    return (UInt32(local), UnsafePointer(stored[local]))
                }
                slot = (slot + 1) & mask
            }
            let local = UInt32(hashes.count)
            let copy = store(frames)
            hashes.append(hash)
            stored.append(copy)
            lengths.append(UInt16(frames.count))
            table[slot] = local + 1
            if hashes.count * 2 > table.count {
                grow()
            }
            return (local, UnsafePointer(copy))
        }

        /// Copies `frames` into the arena, starting a new chunk (each twice the last, up to
        /// ``largestChunkWords``, or as large as the stack) when the last one is full.
        private mutating func store(_ frames: UnsafeBufferPointer<UInt>) -> UnsafeMutablePointer<UInt> {
            if chunks.isEmpty || chunks[chunks.count - 1].capacity - usedInLastChunk < frames.count {
                let next = chunks.last.map { min($0.capacity * 2, Self.largestChunkWords) } ?? Self.firstChunkWords
                let capacity = max(next, frames.count)
                chunks.append((UnsafeMutablePointer<UInt>.allocate(capacity: capacity), capacity))
                usedInLastChunk = 0
            }
            let destination = chunks[chunks.count - 1].start + usedInLastChunk
            destination.initialize(from: frames.baseAddress!, count: frames.count)
            usedInLastChunk += frames.count
            return destination
        }

        private mutating func grow() {
            var bigger = [UInt32](repeating: 0, count: table.count * 2)
            let mask = bigger.count - 1
            for local in 0..<hashes.count {
                var slot = Int(truncatingIfNeeded: hashes[local] >> 7) & mask
                while bigger[slot] != 0 {
                    slot = (slot + 1) & mask
                }
                bigger[slot] = UInt32(local + 1)
            }
            table = bigger
        }

        func addresses(of local: Int) -> [UInt] {
            guard local < stored.count else { return [] }
            return Array(UnsafeBufferPointer(start: stored[local], count: Int(lengths[local])))
        }

        var arenaWords: Int { chunks.reduce(0) { $0 + $1.capacity } }

        mutating func deallocate() {
            for chunk in chunks {
                chunk.start.deallocate()
            }
            chunks = []
            stored = []
        }
    }

    private let shards: [Shard] = (0..<StackInterner.shardCount).map { _ in Shard() }
    /// This interner's number in the threads' caches (never reused).
    let owner = rdiag_stack_cache_owner()

    /// Creates an empty interner.
    @_spi(Integration) public init() {}

    /// Interns a stack of raw return addresses, innermost first.
    ///
    /// - Returns: The id of the stored stack, or ``StackID/none`` for an empty stack.
    @_spi(Integration) public func intern(_ frames: UnsafeBufferPointer<UInt>) -> StackID {
        guard let start = frames.baseAddress, !frames.isEmpty else { return .none }
        let count = min(frames.count, Int(UInt16.max))
        var hash: UInt64 = 0
        let cached = rdiag_stack_cache_find(owner, start, count, &hash)
        if cached != 0 {
            return StackID(rawValue: cached)
        }
        return intern(UnsafeBufferPointer(start: start, count: count), hash: hash)
    }

    /// The id `rdiag_capture_stack_cached` (or `rdiag_async_chain_cached`) found in the thread's
    /// cache, else the frames it captured, interned under the hash it computed.
    func interned(cached: UInt32, frames: UnsafePointer<UInt>?, count: Int, hash: UInt64) -> StackID {
        cached != 0 ? StackID(rawValue: cached) : intern(UnsafeBufferPointer(start: frames, count: count), hash: hash)
    }

    /// Interns `frames` that the calling thread's cache does not hold, under their
    /// `rdiag_stack_hash`: one shard's lock, and the thread's cache remembers the stack.
    func intern(_ frames: UnsafeBufferPointer<UInt>, hash: UInt64) -> StackID {
        guard !frames.isEmpty else { return .none }
        let shardIndex = Int(truncatingIfNeeded: hash) & (Self.shardCount - 1)
        // The stored frames' address crosses the lock as a number (a pointer is not Sendable).
        let (local, stored) = shards[shardIndex].state.withLock { state -> (UInt32, UInt) in
            let (local, stored) = state.intern(frames, hash: hash)
            return (local, UInt(bitPattern: stored))
        }
        let id = ((local << Self.shardBits) | UInt32(shardIndex)) + 1
        rdiag_stack_cache_store(owner, hash, UnsafePointer(bitPattern: stored)!, frames.count, id)
        return StackID(rawValue: id)
    }

    /// Interns a stack given as an array (convenience for tests and tools).
    @_spi(Integration) public func intern(_ frames: [UInt]) -> StackID {
        frames.withUnsafeBufferPointer { intern($0) }
    }

    /// The raw addresses of a stack, innermost first; empty for ``StackID/none`` or an unknown id.
    package func addresses(of id: StackID) -> [UInt] {
        guard id.isCaptured else { return [] }
        let raw = id.rawValue - 1
        let shardIndex = Int(raw & UInt32(Self.shardCount - 1))
        let local = Int(raw >> Self.shardBits)
        return shards[shardIndex].state.withLock { $0.addresses(of: local) }
    }

    /// How many distinct stacks are stored.
    package var count: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.hashes.count } }
    }

    /// Bytes held by the stored stacks and their tables (for the memory benchmark).
    package var approximateBytes: Int {
        shards.reduce(0) { total, shard in
            total
                + shard.state.withLock { state in
                    state.arenaWords * MemoryLayout<UInt>.stride + state.table.capacity * 4
                        + state.hashes.capacity * 8 + state.stored.capacity * 8 + state.lengths.capacity * 2
                }
        }
    }
}
