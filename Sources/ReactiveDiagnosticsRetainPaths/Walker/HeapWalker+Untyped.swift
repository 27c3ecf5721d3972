import CReactiveDiagnostics

extension HeapWalker {
    /// The largest object an untyped scan reads.
    static let untypedScanLimit = 4096

    /// Scans the words of `object` from `offset` to its end for what looks like a closure (a
    /// function pointer followed by a context) or a heap object: for captures the walker could
    /// not type. Such references are `unknown`: whether they are strong cannot be told.
    /// Returns `false` when the object's size is unknown (an allocator without glibc's chunk
    /// headers, such as a sanitizer's): then nothing is scanned.
    @discardableResult
    func scanUntyped(
        _ object: UInt, from offset: Int, path: [PathStep], depth: Int,
        into references: inout [HeapReference]
    ) -> Bool {
        guard let size = allocationSize(of: object), let bytes = memory.bytes(at: object, count: size) else {
            return false
        }
        guard size > offset else { return true }
        bytes.withUnsafeBytes { buffer in
            var cursor = (offset + RuntimeLayout.word - 1) & ~(RuntimeLayout.word - 1)
            while cursor + RuntimeLayout.word <= size {
                let value = word(buffer, cursor)
                let step = PathStep.untypedWord(offset: cursor)
                let next = cursor + RuntimeLayout.word < size ? word(buffer, cursor + RuntimeLayout.word) : 0
                if value >= 4096, regions.isExecutable(value), next == 0 || classifier.classify(next) != nil {
                    visitFunction(value, context: next, path: path + [step], depth: depth + 1, into: &references)
                    cursor += 2 * RuntimeLayout.word
                    continue
                }
                if value >= 4096, value & 0x7 == 0, classifier.classify(value) != nil {
                    visitObject(value, strength: .unknown, path: path + [step], depth: depth + 1, into: &references)
                }
                cursor += RuntimeLayout.word
            }
        }
        return true
    }

    /// The usable size of the allocation that starts at `object`, from the allocator's chunk
    /// header (glibc: the size word before the allocation), when it is plausible.
    func allocationSize(of object: UInt) -> Int? {
        #if os(Linux)
        let usable: Int
        if Self.allocatorHasChunkHeaders {
            guard let size = Self.usableSize(chunkHeader: memory.word(at: object &- UInt(RuntimeLayout.word))) else {
                return nil
            }
            usable = size
        } else {
            guard let allocation = Self.sanitizerAllocation(containing: object), allocation.start == object else {
                return nil
            }
            usable = allocation.size
        }
        guard usable >= RuntimeLayout.heapObjectSize, usable <= Self.untypedScanLimit else { return nil }
        return usable
        #else
        return nil
        #endif
    }

    /// Whether the allocator keeps glibc's size word before each allocation, probed once
    /// (a sanitizer's allocator does not: a word there is the end of another allocation, and
    /// may look like a size by chance).
    static var allocatorHasChunkHeaders: Bool { rdiag_allocator_has_chunk_headers() != 0 }

    /// Whether a sanitizer's runtime says which allocation contains an address (its allocator
    /// keeps no chunk headers; its interface, `__sanitizer_get_allocated_begin`, answers).
    static var sanitizerKnowsAllocations: Bool { rdiag_sanitizer_knows_allocations() != 0 }

    /// The live heap allocation containing `address`, as a sanitizer's runtime knows it.
    static func sanitizerAllocation(containing address: UInt) -> (start: UInt, size: Int)? {
        var start: UInt = 0
        var size = 0
        guard rdiag_sanitizer_allocation(address, &start, &size) != 0 else { return nil }
        return (start, size)
    }

    /// The usable size a glibc chunk header (the word before an allocation) says, when it
    /// is plausible (`rdiag_chunk_usable_size`: a multiple of 16, at least 32 bytes, under 64 MB).
    static func usableSize(chunkHeader: UInt?) -> Int? {
        guard let header = chunkHeader else { return nil }
        let usable = rdiag_chunk_usable_size(header)
        return usable == 0 ? nil : usable
    }
}
