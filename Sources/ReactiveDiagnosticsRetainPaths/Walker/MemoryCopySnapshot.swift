import CReactiveDiagnostics

/// A copy of the process's writable memory that one search for holders keeps for its levels
/// (``HolderScan/keepsCopy``): resident pages only, read fault-free; listed in ``CopiedMemory``
/// while it exists, since its words are no references; freed (unmapped) with it. Linux only.
final class MemoryCopySnapshot {
    private let snapshot: OpaquePointer
    private let range: Range<UInt>

    /// A copy that can hold `capacity` bytes (address space is reserved; only what is copied
    /// takes memory); `nil` where none can be made.
    init?(capacity: UInt) {
        guard let snapshot = rdiag_snapshot_create(Int(capacity)) else { return nil }
        self.snapshot = snapshot
        var start: UInt = 0
        var length = 0
        rdiag_snapshot_range(snapshot, &start, &length)
        range = start..<(start + UInt(length))
        CopiedMemory.add(range)
    }

    deinit {
        CopiedMemory.remove(range)
        rdiag_snapshot_destroy(snapshot)
    }

    /// Copies the resident pages of `region` (page-aligned); `false` once the copy is full.
    func add(_ region: Range<UInt>) -> Bool {
        var copied = 0
        return rdiag_snapshot_add(snapshot, region.lowerBound, region.upperBound, &copied) != 0
    }

    /// Where (in the process) the copied words equal to one of `targets` were: at most `hitLimit`.
    func scan(for targets: [UInt], hitLimit: Int, bytesScanned: inout Int) -> [UInt] {
        var hits = [UInt](repeating: 0, count: hitLimit)
        var scanned = 0
        let found = targets.withUnsafeBufferPointer { targets in
            hits.withUnsafeMutableBufferPointer { hits in
                rdiag_snapshot_scan(
                    snapshot, targets.baseAddress!, targets.count, hits.baseAddress!, hits.count, &scanned)
            }
        }
        bytesScanned += scanned
        hits.removeSubrange(found...)
        return hits.filter { !CopiedMemory.contains($0) }
    }
}
