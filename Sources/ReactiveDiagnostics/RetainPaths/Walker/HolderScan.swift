import CReactiveDiagnostics

/// Who holds given heap objects, found the way LeakSanitizer finds roots: a scan of the
/// process's writable memory for their addresses (fault-free, resident pages only), each hit
/// believed only when the heap object around it, read through its metadata, really holds the
/// target, or when it lies in an image's data (a global or static variable). The walk's own
/// copies of memory, and every other walk's under way (``CopiedMemory``), are never hits.
struct HolderScan {
    /// What holds a target.
    enum Holder: Equatable {
        /// A heap object that holds it (validated).
        case object(UInt)
        /// A word in an image's writable data: a global or static variable.
        case global(UInt)
    }

    let walker: HeapWalker
    let deadline: ContinuousClock.Instant
    /// Bytes read so far.
    private(set) var bytesScanned = 0
    /// Whether the deadline cut the scan short.
    private(set) var wasCut = false
    /// Bytes of address space left unscanned as reservations (see ``largestScannedRegion``).
    private(set) var reservedBytesSkipped: UInt = 0

    init(walker: HeapWalker, deadline: ContinuousClock.Instant) {
        self.walker = walker
        self.deadline = deadline
    }

    /// How far back from a hit the object holding it is looked for.
    static let objectSearchDistance = 1 << 16
    /// Hits looked at, at most, per scan.
    static let hitLimit = 512
    /// Bytes scanned per call into the scanner (the deadline is checked between them).
    static let slice = 1 << 24
    /// The largest mapping scanned: a bigger one is a reservation, not data (a sanitizer's
    /// shadow memory is several mappings of 5 to 20 TiB); asking the kernel which of its pages
    /// are resident alone would take minutes.
    static let largestScannedRegion: UInt = 64 << 30

    /// The holders of each of `targets`.
    mutating func holders(of targets: [UInt]) -> [UInt: [Holder]] {
        guard !targets.isEmpty else { return [:] }
        let clock = ContinuousClock()
        var hits: [UInt] = []
        var buffer = [UInt](repeating: 0, count: Self.hitLimit)
        reservedBytesSkipped = 0
        scan: for region in walker.regions.regions where Self.isScanned(region) {
            guard region.end - region.start <= Self.largestScannedRegion else {
                reservedBytesSkipped += region.end - region.start
                continue
            }
            var start = region.start
            while start < region.end {
                guard clock.now < deadline else {
                    wasCut = true
                    break scan
                }
                let end = min(region.end, start &+ UInt(Self.slice))
                var scanned = 0
                let found = targets.withUnsafeBufferPointer { pointer in
                    buffer.withUnsafeMutableBufferPointer { output in
                        rdiag_scan_words(
                            start, end, pointer.baseAddress!, pointer.count, output.baseAddress!,
                            Self.hitLimit - hits.count, &scanned)
                    }
                }
                bytesScanned += scanned
                // Copies of memory (this walk's and any other's) show the same words: they hold nothing.
                hits += buffer.prefix(found).lazy.filter { !CopiedMemory.contains($0) }
                if hits.count >= Self.hitLimit { break scan }
                start = end
            }
        }
        var result: [UInt: [Holder]] = [:]
        let wanted = Set(targets)
        // glibc keeps a size word before each allocation; a sanitizer's allocator does not.
        let headers = HeapWalker.allocatorHasChunkHeaders
        walker.stopAt.formUnion(wanted)
        for hit in hits {
            guard let word = walker.memory.word(at: hit), wanted.contains(word) else { continue }
            guard let region = walker.regions.region(containing: hit) else { continue }
            if region.image != nil {
                result[word, default: []].append(.global(hit))
            } else if let object = object(holding: hit, target: word, headers: headers), object != word,
                      !CopiedMemory.contains(object),
                      !isBookkeeping(object), result[word]?.contains(.object(object)) != true {
                result[word, default: []].append(.object(object))
            }
        }
        return result
    }

    /// Writable memory that may hold references: the heap, anonymous mappings and images'
    /// data; not the kernel's pages.
    static func isScanned(_ region: MemoryRegions.Region) -> Bool {
        guard region.readable, region.writable, region.end > region.start else { return false }
        if let path = region.path, path.hasPrefix("["), path != "[heap]", !path.hasPrefix("[anon") {
            return false
        }
        return true
    }

    /// The heap object whose memory contains `address`, if it really holds `target`: the
    /// nearest object start below the address whose allocation covers it, read through its
    /// metadata. With a sanitizer's allocator (no chunk headers), the allocation its runtime
    /// says contains the address; without either, the nearest object start.
    private func object(holding address: UInt, target: UInt, headers: Bool) -> UInt? {
        if !headers, HeapWalker.sanitizerKnowsAllocations {
            guard let allocation = HeapWalker.sanitizerAllocation(containing: address),
                  walker.classifier.classify(allocation.start) != nil,
                  let record = walker.quietly({ walker.record(of: allocation.start) }),
                  record.references.contains(where: { $0.target == target && $0.strength != .weak })
            else { return nil }
            return allocation.start
        }
        var start = address & ~UInt(0xF)
        let lowest = address > UInt(Self.objectSearchDistance) ? address &- UInt(Self.objectSearchDistance) : 0
        while start >= lowest, start > 0 {
            let covers = headers ? chunkSize(of: start).map { start &+ UInt($0) > address } ?? false : true
            if covers, walker.classifier.classify(start) != nil {
                // The object that contains the word: it holds the target, or the hit is stale.
                guard let record = walker.quietly({ walker.record(of: start) }),
                      record.references.contains(where: { $0.target == target && $0.strength != .weak })
                else { return nil }
                return start
            }
            start &-= 16
        }
        return nil
    }

    /// Whether `object` is one of the ledger's own stores of held objects.
    private func isBookkeeping(_ object: UInt) -> Bool {
        guard case .instance(let metadata)? = walker.classifier.classify(object) else { return false }
        return walker.types.known.bookkeeping.contains(metadata)
    }

    /// The usable size of the allocation starting at `object`, from the allocator's chunk
    /// header (glibc), when plausible; `nil` with another allocator (a sanitizer's).
    private func chunkSize(of object: UInt) -> Int? {
        #if os(Linux)
        return HeapWalker.usableSize(chunkHeader: walker.memory.word(at: object &- UInt(RuntimeLayout.word)))
        #else
        return nil
        #endif
    }
}
