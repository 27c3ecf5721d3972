import Synchronization

/// Resources whose end no framework reports: tied to an object's lifetime, ended by sweeps.
extension ResourceLedger {
    // MARK: Watched (weak)

    /// Ties a registered resource to `object`: when the object is deallocated the resource
    /// is unregistered at the next ``sweep()``. For frameworks that report no deallocation.
    package func watch(_ token: ResourceToken, object: AnyObject) {
        probes.add(token, object: object)
    }

    /// Stops watching `token` (after it was unregistered explicitly).
    package func unwatch(_ token: ResourceToken) {
        probes.remove(token)
    }

    // MARK: Held (strong, until the ledger holds the last reference)

    /// Ties a registered resource to `object`, which the ledger keeps: the resource ends at
    /// the first ``sweep()`` that finds the ledger holding the last reference to it. The object
    /// must be a native Swift object (an instance of a Swift class, or an array's storage).
    ///
    /// Cheaper than ``watch(_:object:)`` (a retain instead of a weak reference), but the object
    /// lives until that sweep: only for objects whose deinit does nothing of consequence, such
    /// as the storage of an array a framework's closure captures (the RxSwift hooks' case).
    ///
    /// - Parameter pool: Where the object goes once released, if ``recycle(_:keeping:)`` asked
    ///   to keep that pool's objects (else it is released at the sweep).
    package func hold(_ token: ResourceToken, object: AnyObject, pool: ObjectIdentifier? = nil) {
        guard token.isValid, token.shard < Self.shardCount else { return }
        let entry = HeldEntry(token: token, object: object, pool: pool)
        withShard(token.shard) { $0.held.append(entry) }
        heldCount.add(1, ordering: .relaxed)
    }

    /// Registers a live resource held by an object (``hold(_:object:pool:)``) in one step, under
    /// one lock: the object is a released one of `pool` when one is kept in the calling thread's
    /// shard, else `make()`'s (called under the shard's lock: it must only allocate).
    ///
    /// - Returns: The token and the object, which the caller hands to whatever defines the
    ///   resource's lifetime.
    /// - Complexity: O(1) amortized; one shard lock and one relaxed atomic.
    package func registerHeld(
        kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity, pool: ObjectIdentifier?,
        make: () -> AnyObject
    ) -> (token: ResourceToken, object: AnyObject) {
        let shardIndex = shardForCurrentThread()
        let epoch = epochNow
        let result = withShard(shardIndex) { shard -> HeldObject in
            let token = Self.occupy(
                &shard, shard: shardIndex, kind: kind, label: label, stack: stack, test: test, epoch: epoch)
            var object: AnyObject?
            if let pool, let index = shard.pools.firstIndex(where: { $0.key == pool }) {
                object = shard.pools[index].objects.popLast()
            }
            let held = object ?? make()
            shard.held.append(HeldEntry(token: token, object: held, pool: pool))
            return HeldObject(token: token, object: held)
        }
        heldCount.add(1, ordering: .relaxed)
        return (result.token, result.object)
    }

    /// Keeps up to `capacity` objects held for `pool` once their resources end, instead of
    /// releasing them, for ``registerHeld(kind:label:stack:test:pool:make:)`` to hand out again:
    /// an adapter that makes one such object per resource saves an allocation and a
    /// deallocation each. A pool holds objects of one shape, the adapter's own.
    package func recycle(_ pool: ObjectIdentifier, keeping capacity: Int = 1_024) {
        let perShard = max(1, (capacity + Self.shardCount - 1) / Self.shardCount)
        for index in 0..<Self.shardCount {
            withShard(index) { shard in
                if let existing = shard.pools.firstIndex(where: { $0.key == pool }) {
                    shard.pools[existing].capacity = perShard
                } else {
                    shard.pools.append(HeldPool(key: pool, capacity: perShard))
                }
            }
        }
    }

    // MARK: Queries

    /// The object a live resource is tied to by ``watch(_:object:)`` or ``hold(_:object:pool:)``,
    /// while it is alive (for explaining what keeps a leaked resource alive; `nil` when it is
    /// gone or was never tied to one).
    package func watchedObject(_ token: ResourceToken) -> AnyObject? {
        guard token.isValid, token.shard < Self.shardCount else { return nil }
        let held = withShard(token.shard) { shard in
            shard.held.first { $0.token == token }.map { HeldObject(token: token, object: $0.object) }
        }
        return held?.object ?? probes.object(token)
    }

    /// The live resource that ``hold(_:object:pool:)`` tied to `object`, if any.
    ///
    /// - Complexity: O(held resources): for the slow path (an error report), not per event.
    package func heldResource(for object: AnyObject) -> LiveResource? {
        for index in 0..<Self.shardCount {
            let token: ResourceToken? = withShard(index) { shard in
                shard.held.first { $0.object === object }?.token
            }
            if let token {
                return liveResource(token)
            }
        }
        return nil
    }

    /// Resources tied to objects by ``watch(_:object:)`` or ``hold(_:object:pool:)`` and not swept yet.
    package var watchedCount: Int {
        probes.count + heldCount.load(ordering: .relaxed)
    }

    // MARK: Sweeping

    /// Unregisters the resources tied to objects that are gone (watched) or that only the
    /// ledger still holds (held). Returns how many.
    ///
    /// Test checkpoints and report building sweep; between them, the live counts of such
    /// resources include those whose objects are already gone.
    @discardableResult
    package func sweep() -> Int {
        var swept = 0
        // Most checkpoints of a suite that holds nothing find nothing to sweep: no lock then.
        if probes.count > 0 {
            for token in probes.collectDeallocated() where unregister(token) {
                swept += 1
            }
        }
        if heldCount.load(ordering: .relaxed) > 0 {
            swept += sweepHeld()
        }
        probes.noteSwept(held: heldCount.load(ordering: .relaxed))
        return swept
    }

    /// Sweeps when the resources tied to objects doubled since the last sweep (and are at
    /// least 1,024): call it after ``watch(_:object:)`` or ``hold(_:object:pool:)`` to keep
    /// their memory bounded at an amortized O(1) per resource.
    ///
    /// - Complexity: O(1) unless it sweeps; O(tied resources) when it does.
    @discardableResult
    package func sweepIfDue() -> Int {
        probes.claimSweep(held: heldCount.load(ordering: .relaxed)) ? sweep() : 0
    }

    /// Ends, shard by shard under one lock each, the held resources whose objects only the
    /// ledger still references; keeps those objects for their pool or releases them (outside
    /// every lock).
    private func sweepHeld() -> Int {
        var released: [NativeObject] = []
        var endedHeld = 0
        var ended = 0
        for index in 0..<Self.shardCount {
            withShard(index) { shard in
                var kept = 0
                for entryIndex in shard.held.indices {
                    guard isKnownUniquelyReferenced(&shard.held[entryIndex].object) else {
                        if kept != entryIndex {
                            shard.held.swapAt(kept, entryIndex)
                        }
                        kept += 1
                        continue
                    }
                    let entry = shard.held[entryIndex]
                    endedHeld += 1
                    if unregister(entry.token) {
                        ended += 1
                    }
                    if let key = entry.pool, let pool = shard.pools.firstIndex(where: { $0.key == key }),
                        shard.pools[pool].objects.count < shard.pools[pool].capacity
                    {
                        shard.pools[pool].objects.append(entry.object)
                    } else {
                        released.append(entry.object)
                    }
                }
                shard.held.removeLast(shard.held.count - kept)
            }
        }
        heldCount.subtract(endedHeld, ordering: .relaxed)
        released.removeAll()
        return ended
    }

    /// An object out of a shard's lock. Unchecked: the caller owns its use, as with any
    /// reference it hands to the ledger.
    private struct HeldObject: @unchecked Sendable {
        var token: ResourceToken
        var object: AnyObject
    }
}
