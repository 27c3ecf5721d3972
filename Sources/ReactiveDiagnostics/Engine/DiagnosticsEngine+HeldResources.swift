/// Resources tied to an object the ledger holds, for adapters in other packages (the nested
/// RxSwift package's hooks) whose framework reports no end of a resource.
///
/// Not API (Docs/PublicAPI.md): `@_spi(Integration)`, a narrow door to the engine's ledger, which
/// is `package`. Import with `@_spi(Integration) import ReactiveDiagnostics`.
extension DiagnosticsEngine {
    /// Registers a live resource held by an object in one step, under one lock: the object is a
    /// released one of `pool` when one is kept in the calling thread's shard, else `make()`'s
    /// (called under the shard's lock: it must only allocate). The resource ends at the first
    /// sweep that finds the ledger holding the last reference to the object.
    ///
    /// - Returns: The token and the object, which the caller hands to whatever defines the
    ///   resource's lifetime.
    @_spi(Integration) public func registerHeld(
        kind: ResourceKind, label: DiagnosticLabel, stack: StackID, test: TestIdentity, pool: ObjectIdentifier?,
        make: () -> AnyObject
    ) -> (token: ResourceToken, object: AnyObject) {
        ledger.registerHeld(kind: kind, label: label, stack: stack, test: test, pool: pool, make: make)
    }

    /// Keeps up to `capacity` objects of `pool` once their resources end, for
    /// ``registerHeld(kind:label:stack:test:pool:make:)`` to hand out again.
    @_spi(Integration) public func recycleHeld(_ pool: ObjectIdentifier, keeping capacity: Int = 1_024) {
        ledger.recycle(pool, keeping: capacity)
    }

    /// Sweeps the resources tied to objects when they doubled since the last sweep (and are at
    /// least 1,024): amortized O(1) per resource. Returns how many ended.
    @_spi(Integration) @discardableResult
    public func sweepTiedResourcesIfDue() -> Int {
        ledger.sweepIfDue()
    }

    /// The live resource tied to `object` by ``registerHeld(kind:label:stack:test:pool:make:)``,
    /// if any. O(held resources): for the slow path (an error report), not per event.
    @_spi(Integration) public func heldResource(for object: AnyObject) -> LiveResource? {
        ledger.heldResource(for: object)
    }

    /// Resources tied to objects and not swept yet (for tests of adapters).
    @_spi(Testing) public var tiedResourceCount: Int {
        ledger.watchedCount
    }

    /// Ends the resources tied to objects that are gone or that only the ledger still holds, as
    /// test checkpoints and reports do (for tests of adapters). Returns how many.
    @_spi(Testing) @discardableResult
    public func sweepTiedResources() -> Int {
        ledger.sweep()
    }
}
