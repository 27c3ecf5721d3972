import _ReactiveDiagnosticsSupport

/// Storage the diagnostics library itself holds objects in (the ledger's array of held
/// objects): a reference found there is the library's bookkeeping, never the holder that
/// explains a leak. The engine registers its own once.
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
        let storageClass = withUnsafeBytes(of: array) { bytes -> UInt? in
            guard bytes.count == MemoryLayout<UInt>.size,
                let object = UnsafeRawPointer(bitPattern: bytes.load(as: UInt.self))
            else { return nil }
            return object.load(as: UInt.self)
        }
        withExtendedLifetime(array) {}
        if let storageClass {
            storageClasses.withLock { _ = $0.insert(storageClass) }
        }
    }

    /// Whether `metadata` is the class of storage the library registered.
    package static func contains(_ metadata: UInt) -> Bool {
        storageClasses.withLock { $0.contains(metadata) }
    }
}
