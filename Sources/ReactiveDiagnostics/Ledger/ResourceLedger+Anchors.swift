import Synchronization
package import ReactiveDiagnosticsRetainPaths

/// Where the engine starts looking for why a leaked resource is still alive.
extension ResourceLedger {
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
    ///
    /// - Complexity: O(1); one shard lock.
    package func setAnchor(_ token: ResourceToken, holderOf object: AnyObject) {
        storeAnchor(token, Self.address(of: object) | 1)
    }

    /// The anchor set for a live resource, if any; for a resource tied to an object the ledger
    /// holds (``hold(_:object:pool:)``) and without one, the holder of that object (what keeps
    /// it alive besides the ledger). Its address may no longer be an object: only a fault-free
    /// reader may look at it.
    ///
    /// - Complexity: O(1), or O(held resources of the shard) for a held one.
    package func anchor(of token: ResourceToken) -> ResourceAnchor? {
        guard token.isValid, token.shard < Self.shardCount else { return nil }
        let word = withShard(token.shard) { shard -> UInt in
            guard Self.isLive(token, in: shard) else { return 0 }
            let word = shard.anchors.word(token.index)
            if word == 0, let held = shard.held.first(where: { $0.token == token }) {
                return Self.address(of: held.object) | 1
            }
            return word
        }
        guard word != 0 else { return nil }
        return word & 1 == 0 ? .object(word) : .holderOf(word & ~1)
    }

    @inline(__always)
    static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    private func storeAnchor(_ token: ResourceToken, _ word: UInt) {
        guard token.isValid, token.shard < Self.shardCount else { return }
        withShard(token.shard) { shard in
            // A resource ending now (without the lock) may leave its word behind: the sweep
            // that frees its slot, under this lock, clears it.
            guard Self.isLive(token, in: shard) else { return }
            shard.anchors.set(token.index, to: word)
        }
    }

    /// Whether `token`'s resource is live; under the shard's lock.
    private static func isLive(_ token: ResourceToken, in shard: borrowing LedgerShard) -> Bool {
        guard token.index < shard.count.load(ordering: .relaxed) else { return false }
        let state = LedgerState(raw: shard.slot(token.index).pointee.state.load(ordering: .acquiring))
        return state.phase == LedgerState.live && state.generation == token.generation
    }
}
