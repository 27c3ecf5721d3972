import _ReactiveDiagnosticsSupport
/// Where every walk under way in the process keeps copies of memory: their kept pages and the
/// copies they read objects into.
///
/// A scan for holders reads the whole heap, other walks' copies included (tests explain leaks
/// in parallel). Where the allocator's chunk headers can be read, a copy is never taken for an
/// object (it starts 8 bytes past a 16-byte boundary); with a sanitizer's allocator the scan
/// guesses object starts, and a guess inside a copy could be believed. So scans skip every hit
/// and every object start that lies in a range listed here.
enum CopiedMemory {
    private static let ranges = LockedValue<[Range<UInt>]>([])

    /// Lists `range` (until ``remove(_:)``).
    static func add(_ range: Range<UInt>) {
        ranges.withLock { $0.append(range) }
    }

    /// Unlists `range`.
    static func remove(_ range: Range<UInt>) {
        ranges.withLock { ranges in
            if let index = ranges.lastIndex(of: range) {
                ranges.remove(at: index)
            }
        }
    }

    /// Whether `address` lies in a copy some walk holds now.
    static func contains(_ address: UInt) -> Bool {
        ranges.withLock { $0.contains { $0.contains(address) } }
    }

    /// The range of `buffer`'s bytes.
    static func range(of buffer: UnsafeMutableRawBufferPointer) -> Range<UInt> {
        let start = UInt(bitPattern: buffer.baseAddress)
        return start..<(start + UInt(buffer.count))
    }
}
