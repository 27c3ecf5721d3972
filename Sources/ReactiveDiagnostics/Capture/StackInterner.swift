import Foundation

/// Stores each distinct call stack once and hands out a ``StackID`` for it.
///
/// Interning runs on the hot path (every tracked allocation), so it hashes the raw
/// addresses, takes one of 16 shard locks chosen by the hash, and compares against the
/// stacks already stored in that shard's arena: no allocation unless the stack is new.
///
/// ```swift
/// let interner = StackInterner()
/// let id = interner.intern([0x1000, 0x2000])
/// assert(interner.intern([0x1000, 0x2000]) == id)   // identical stacks, one id
/// assert(interner.addresses(of: id) == [0x1000, 0x2000])
/// ```
///
/// Complexity: O(depth) per intern when the stack is known; amortized O(depth) when new.
package final class StackInterner: Sendable {
    static let shardBits: UInt32 = 4
    static let shardCount = 1 << shardBits

    private final class Shard: Sendable {
        let state = LockedValue(ShardState())
    }

    private struct ShardState {
        /// Open-addressing table of local index + 1 (0 = empty).
        var table = [UInt32](repeating: 0, count: 64)
        var hashes: [UInt64] = []
        var starts: [UInt32] = []
        var lengths: [UInt16] = []
        var arena: [UInt] = []

        mutating func intern(_ frames: UnsafeBufferPointer<UInt>, hash: UInt64) -> UInt32 {
            let mask = table.count - 1
            var slot = Int(truncatingIfNeeded: hash >> 7) & mask
            while true {
                let entry = table[slot]
                if entry == 0 {
                    break
                }
                let local = Int(entry - 1)
                if hashes[local] == hash && Int(lengths[local]) == frames.count {
                    let start = Int(starts[local])
                    let equal = arena.withUnsafeBufferPointer { stored in
                        memcmp(stored.baseAddress! + start, frames.baseAddress!, frames.count * MemoryLayout<UInt>.stride) == 0
                    }
                    if equal {
                        return UInt32(local)
                    }
                }
                slot = (slot + 1) & mask
            }
            let local = UInt32(hashes.count)
            hashes.append(hash)
            starts.append(UInt32(arena.count))
            lengths.append(UInt16(frames.count))
            arena.append(contentsOf: frames)
            table[slot] = local + 1
            if hashes.count * 2 > table.count {
                grow()
            }
            return local
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
            guard local < starts.count else { return [] }
            let start = Int(starts[local])
            return Array(arena[start..<start + Int(lengths[local])])
        }
    }

    private let shards: [Shard] = (0..<StackInterner.shardCount).map { _ in Shard() }

    /// Creates an empty interner.
    package init() {}

    /// Interns a stack of raw return addresses, innermost first.
    ///
    /// - Returns: The id of the stored stack, or ``StackID/none`` for an empty stack.
    package func intern(_ frames: UnsafeBufferPointer<UInt>) -> StackID {
        guard !frames.isEmpty else { return .none }
        let frames = UnsafeBufferPointer(rebasing: frames[0..<min(frames.count, Int(UInt16.max))])
        let hash = mixAddresses(frames)
        let shardIndex = Int(truncatingIfNeeded: hash) & (Self.shardCount - 1)
        let local = shards[shardIndex].state.withLock { $0.intern(frames, hash: hash) }
        return StackID(rawValue: ((local << Self.shardBits) | UInt32(shardIndex)) + 1)
    }

    /// Interns a stack given as an array (convenience for tests and tools).
    package func intern(_ frames: [UInt]) -> StackID {
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
            total + shard.state.withLock { state in
                state.arena.capacity * MemoryLayout<UInt>.stride + state.table.capacity * 4
                    + state.hashes.capacity * 8 + state.starts.capacity * 4 + state.lengths.capacity * 2
            }
        }
    }
}
