import _ReactiveDiagnosticsSupport

/// Storage the diagnostics library itself holds objects in (the ledger's array of held
/// objects, an adapter's tables keyed by objects' identities): a reference found there is the
/// library's bookkeeping, never the holder that explains a leak. The engine registers its own
/// once.
///
/// ```swift
/// RetainPathBookkeeping.registerArrayStorage(of: HeldEntry.self)
/// ```
package enum RetainPathBookkeeping {
    private static let storageClasses = LockedValue(Set<UInt>())

    /// Registers the storage class of `[Element]` (the class every non-empty array of
    /// `Element` keeps its elements in).
    package static func registerArrayStorage<Element>(of element: Element.Type) {
        var array: [Element] = []
        array.reserveCapacity(1)
        registerStorage(of: array)
    }

    /// Registers the storage class of `[Key: Value]` (the class every non-empty dictionary of
    /// that type keeps its entries in): for tables keyed by objects' identities, whose keys a
    /// memory scan finds as the objects' addresses.
    package static func registerDictionaryStorage<Key: Hashable, Value>(of type: [Key: Value].Type) {
        var dictionary: [Key: Value] = [:]
        dictionary.reserveCapacity(1)
        registerStorage(of: dictionary)
    }

    /// Registers the class of the object a one-word collection value points at.
    private static func registerStorage<Collection>(of collection: Collection) {
        let storageClass = withUnsafeBytes(of: collection) { bytes -> UInt? in
            guard bytes.count == MemoryLayout<UInt>.size,
                let object = UnsafeRawPointer(bitPattern: bytes.load(as: UInt.self))
            else { return nil }
            return object.load(as: UInt.self)
        }
        withExtendedLifetime(collection) {}
        if let storageClass {
            storageClasses.withLock { _ = $0.insert(storageClass) }
        }
    }

    /// Whether `metadata` is the class of storage the library registered.
    package static func contains(_ metadata: UInt) -> Bool {
        storageClasses.withLock { $0.contains(metadata) }
    }
}
