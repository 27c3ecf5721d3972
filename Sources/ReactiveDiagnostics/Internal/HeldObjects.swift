import Synchronization

/// Objects the ledger keeps for resources whose lifetime they define (see
/// ``ResourceLedger/hold(_:object:)``): a resource ends at the first sweep that finds the ledger
/// holding the last reference to its object. No weak reference, no side table: holding costs a
/// retain and an append under one of 16 shard locks.
final class HeldObjects: Sendable {
    // Unchecked: each entry is only touched under its shard's lock.
    private struct Entry: @unchecked Sendable {
        var token: ResourceToken
        /// The object, statically typed as a native class it is not: `isKnownUniquelyReferenced`
        /// on an `AnyObject` existential answers `false` in Swift 6 language mode even for a
        /// uniquely referenced object, while on a concrete native class type it reads the
        /// object's reference count, which every native Swift object keeps the same way. The
        /// reference is only retained, released and checked for uniqueness, never used as a
        /// `NativeObject`.
        var object: NativeObject
        /// Where the object goes once released (``ResourceLedger/recycle(_:keeping:)``), if anywhere.
        var pool: ObjectIdentifier?

        init(token: ResourceToken, object: AnyObject, pool: ObjectIdentifier?) {
            self.token = token
            self.object = Unmanaged<NativeObject>.fromOpaque(Unmanaged.passUnretained(object).toOpaque()).takeUnretainedValue()
            self.pool = pool
        }

        var anyObject: AnyObject {
            object
        }
    }

    /// Never instantiated: the static type of held references (see ``Entry/object``).
    private final class NativeObject {}

    /// Released objects kept for reuse: capacity and objects (a class, so that the objects
    /// are appended and taken in place, never copied with a collection's value).
    private final class Pool: @unchecked Sendable {
        // Unchecked: only touched under the `pools` lock.
        let key: ObjectIdentifier
        var capacity: Int
        var objects: [NativeObject] = []

        init(key: ObjectIdentifier, capacity: Int) {
            self.key = key
            self.capacity = capacity
        }
    }

    private let shards: [LockedValue<[Entry]>] = (0..<ResourceLedger.shardCount).map { _ in LockedValue([]) }
    private let held = Atomic<Int>(0)
    /// A few pools at most (one per adapter that recycles): a list is faster than hashing.
    private let pools = LockedValue([Pool]())

    func add(_ token: ResourceToken, object: AnyObject, pool: ObjectIdentifier?) {
        let entry = Entry(token: token, object: object, pool: pool)
        shards[token.shard & (ResourceLedger.shardCount - 1)].withLock { $0.append(entry) }
        held.add(1, ordering: .relaxed)
    }

    var count: Int {
        held.load(ordering: .relaxed)
    }

    /// The token of the resource `object` defines, while it is held.
    func token(of object: AnyObject) -> ResourceToken? {
        for shard in shards {
            if let token = shard.withLock({ entries in entries.first { $0.anyObject === object }?.token }) {
                return token
            }
        }
        return nil
    }

    /// The object held for `token`, if any.
    func object(_ token: ResourceToken) -> AnyObject? {
        guard token.isValid else { return nil }
        return shards[token.shard & (ResourceLedger.shardCount - 1)].withLock { entries in
            entries.first { $0.token == token }?.anyObject
        }
    }

    /// Lets go of the objects nobody else holds any more; returns their tokens.
    func collectReleased() -> [ResourceToken] {
        var gone: [ResourceToken] = []
        var released: [(object: NativeObject, pool: ObjectIdentifier?)] = []
        for shard in shards {
            shard.withLock { entries in
                var kept = 0
                for index in entries.indices {
                    if isKnownUniquelyReferenced(&entries[index].object) {
                        gone.append(entries[index].token)
                        released.append((entries[index].object, entries[index].pool))
                    } else {
                        if kept != index {
                            entries.swapAt(kept, index)
                        }
                        kept += 1
                    }
                }
                entries.removeLast(entries.count - kept)
            }
        }
        held.subtract(gone.count, ordering: .relaxed)
        if released.contains(where: { $0.pool != nil }) {
            pools.withLock { pools in
                released.removeAll { released in
                    guard let key = released.pool, let pool = pools.first(where: { $0.key == key }),
                          pool.objects.count < pool.capacity
                    else {
                        return false
                    }
                    pool.objects.append(released.object)
                    return true
                }
            }
        }
        // The last references to the others go here, outside every lock.
        released.removeAll()
        return gone
    }

    /// Keeps up to `capacity` released objects held for `pool`.
    func recycle(_ pool: ObjectIdentifier, capacity: Int) {
        pools.withLock { pools in
            if let existing = pools.first(where: { $0.key == pool }) {
                existing.capacity = capacity
            } else {
                pools.append(Pool(key: pool, capacity: capacity))
            }
        }
    }

    /// A released object of `pool` that nobody else references, if one was kept.
    func takeReleased(from pool: ObjectIdentifier) -> AnyObject? {
        pools.withLock { pools in
            pools.first { $0.key == pool }?.objects.popLast()
        }
    }
}
