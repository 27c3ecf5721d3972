/// An object the ledger holds for a resource (``ResourceLedger/hold(_:object:pool:)``), in the
/// shard of the resource's slot, under the same lock.
struct HeldEntry: @unchecked Sendable {
    // Unchecked: entries are only touched under their shard's lock.
    var token: ResourceToken
    /// The object, statically typed as a native class it is not: `isKnownUniquelyReferenced`
    /// on an `AnyObject` existential answers `false` in Swift 6 language mode even for a
    /// uniquely referenced object, while on a concrete native class type it reads the object's
    /// reference count, which every native Swift object keeps the same way. The reference is
    /// only retained, released and checked for uniqueness, never used as a `NativeObject`.
    var object: NativeObject
    /// Where the object goes once released (``ResourceLedger/recycle(_:keeping:)``), if anywhere.
    var pool: ObjectIdentifier?

    init(token: ResourceToken, object: AnyObject, pool: ObjectIdentifier?) {
        self.token = token
        self.object = NativeObject.pun(object)
        self.pool = pool
    }
}

/// Never instantiated: the static type of held references (see ``HeldEntry/object``).
final class NativeObject {
    /// `object`, seen as a `NativeObject` (+0; the caller's own reference keeps it).
    @inline(__always)
    static func pun(_ object: AnyObject) -> NativeObject {
        Unmanaged<NativeObject>.fromOpaque(Unmanaged.passUnretained(object).toOpaque()).takeUnretainedValue()
    }
}

/// Released held objects of one pool, kept in one shard for reuse.
struct HeldPool: @unchecked Sendable {
    // Unchecked: only touched under its shard's lock.
    var key: ObjectIdentifier
    var capacity: Int
    var objects: [NativeObject] = []
}
