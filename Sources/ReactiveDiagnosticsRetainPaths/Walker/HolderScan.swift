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
    /// Whether a scan stopped at its limit of hits (holders may have been left unseen).
    private(set) var reachedHitLimit = false
    /// Bytes of address space left unscanned as reservations (see ``largestScannedRegion``).
    private(set) var reservedBytesSkipped: UInt = 0

    /// Whether the first scan's copy of memory is kept for the next ones (``keepsCopy``).
    let keepsCopy: Bool
    /// That copy, once made, and whether it was tried (it is not tried again when it could not be made).
    private var copy: MemoryCopySnapshot?
    private var triedCopy = false

    /// A scan of `walker`'s memory until `deadline`. With `keepsCopy` (a search of several
    /// levels), the first ``holders(of:hitLimit:)`` copies the memory it reads and the next
    /// ones scan that copy: reading it through the kernel again was most of a level's cost (in
    /// OpenCombine's suite, three times what scanning it took). The copy is freed with the scan.
    init(walker: HeapWalker, deadline: ContinuousClock.Instant, keepsCopy: Bool = false) {
        self.walker = walker
        self.deadline = deadline
        self.keepsCopy = keepsCopy
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
    /// The most address space a kept copy reserves (the scanned regions' sizes; only what is
    /// resident is copied): beyond it, each scan reads memory again.
    static let largestCopy: UInt = 16 << 30

    /// The holders of each of `targets`, from at most `hitLimit` hits (more targets, more hits:
    /// a scan for several searches at once raises it).
    mutating func holders(of targets: [UInt], hitLimit: Int = HolderScan.hitLimit) -> [UInt: [Holder]] {
        guard !targets.isEmpty else { return [:] }
        if keepsCopy, !triedCopy {
            triedCopy = true
            copy = takeCopy()
        }
        let hits: [UInt]
        if let copy {
            hits = copy.scan(for: targets, hitLimit: hitLimit, bytesScanned: &bytesScanned)
            if hits.count >= hitLimit {
                reachedHitLimit = true
            }
        } else {
            hits = scanMemory(for: targets, hitLimit: hitLimit)
        }
        return holders(of: targets, hits: hits)
    }

    /// Calls `body` with each scanned region's slices of ``slice`` bytes, in order, until it
    /// returns `false` or the deadline passes (``wasCut``). Regions larger than
    /// ``largestScannedRegion`` are skipped and counted in ``reservedBytesSkipped``.
    private mutating func forEachSlice(_ body: (Range<UInt>) -> Bool) {
        let clock = ContinuousClock()
        reservedBytesSkipped = 0
        for region in walker.regions.regions where Self.isScanned(region) {
            guard region.end - region.start <= Self.largestScannedRegion else {
                reservedBytesSkipped += region.end - region.start
                continue
            }
            var start = region.start
            while start < region.end {
                guard clock.now < deadline else {
                    wasCut = true
                    return
                }
                let end = min(region.end, start &+ UInt(Self.slice))
                guard body(start..<end) else { return }
                start = end
            }
        }
    }

    /// The copy of every scanned region; `nil` when none could be made (then each scan reads
    /// memory again). Stops at the deadline like a scan (what was copied is kept).
    private mutating func takeCopy() -> MemoryCopySnapshot? {
        let capacity = walker.regions.regions.reduce(UInt(0)) { total, region in
            let size = region.end - region.start
            return Self.isScanned(region) && size <= Self.largestScannedRegion ? total + size : total
        }
        guard capacity <= Self.largestCopy, let copy = MemoryCopySnapshot(capacity: capacity) else { return nil }
        forEachSlice { copy.add($0) }
        return copy
    }

    /// The hits of one scan of the process's memory for `targets`.
    private mutating func scanMemory(for targets: [UInt], hitLimit: Int) -> [UInt] {
        var hits: [UInt] = []
        var buffer = [UInt](repeating: 0, count: hitLimit)
        var read = 0
        forEachSlice { slice in
            var scanned = 0
            let found = targets.withUnsafeBufferPointer { pointer in
                buffer.withUnsafeMutableBufferPointer { output in
                    rdiag_scan_words(
                        slice.lowerBound, slice.upperBound, pointer.baseAddress!, pointer.count,
                        output.baseAddress!, hitLimit - hits.count, &scanned)
                }
            }
            read += scanned
            // Copies of memory (this walk's and any other's) show the same words: they hold nothing.
            hits += buffer.prefix(found).lazy.filter { !CopiedMemory.contains($0) }
            return hits.count < hitLimit
        }
        bytesScanned += read
        if hits.count >= hitLimit {
            reachedHitLimit = true
        }
        return hits
    }

    /// The holders the hits of a scan for `targets` show.
    private func holders(of targets: [UInt], hits: [UInt]) -> [UInt: [Holder]] {
        var result: [UInt: [Holder]] = [:]
        let wanted = Set(targets)
        // glibc keeps a size word before each allocation; a sanitizer's allocator does not.
        let headers = HeapWalker.allocatorHasChunkHeaders
        walker.stopAt.formUnion(wanted)
        let below = headers ? BelowHit() : nil
        defer { below?.release() }
        let validation = Validation()
        for hit in hits {
            guard let word = walker.memory.word(at: hit), wanted.contains(word) else { continue }
            guard let region = walker.regions.region(containing: hit) else { continue }
            if region.image != nil {
                // The library's own tables of raw addresses (stale ones among them) hold nothing.
                guard !Self.ownTables.contains(where: { $0.contains(hit) }) else { continue }
                result[word, default: []].append(.global(hit))
            } else if let object = object(
                holding: hit, target: word, region: region, below: below, validation: validation),
                object != word, result[word]?.contains(.object(object)) != true
            {
                result[word, default: []].append(.object(object))
            }
        }
        return result
    }

    /// What the objects around one scan's hits strongly hold, each read once: many hits fall
    /// in one object (a collection's storage holding several of the targets, or the same
    /// holder met again for each of them), and reading a large collection whole for every hit
    /// was most of what an explanation cost late in a long suite (measured). One per scan,
    /// since the walker's `stopAt` (what a record lists as a reference rather than reading
    /// inline) grows between them.
    private final class Validation {
        /// Object → the targets of its strong references; `nil` for one that is no holder
        /// (a copy of memory, the ledger's own bookkeeping, or not readable).
        var strongTargets: [UInt: Set<UInt>?] = [:]
    }

    /// A copy of the memory below one hit at a time, read in one call: the chunk headers the
    /// search for the object around a hit looks at (up to ``objectSearchDistance`` bytes).
    /// Listed in ``CopiedMemory`` while it exists, and erased when released.
    private final class BelowHit {
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: HolderScan.objectSearchDistance + 2 * RuntimeLayout.word, alignment: 16)
        /// Room for the candidate object starts `rdiag_covering_chunks` gives at a time.
        let candidates = UnsafeMutablePointer<UInt>.allocate(capacity: BelowHit.candidateCount)
        static let candidateCount = 16
        private let range: Range<UInt>

        init() {
            range = CopiedMemory.range(of: buffer)
            CopiedMemory.add(range)
        }

        /// Copies the memory from `start` (8-aligned) up to `end`; the number of words copied.
        func read(from start: UInt, to end: UInt) -> Int {
            guard end > start else { return 0 }
            let count = Int(min(end - start, UInt(buffer.count)))
            return rdiag_read_memory(start, buffer.baseAddress!, count) / RuntimeLayout.word
        }

        var words: UnsafePointer<UInt> {
            UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt.self))
        }

        func release() {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            CopiedMemory.remove(range)
            buffer.deallocate()
            candidates.deallocate()
        }
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
    private func object(
        holding address: UInt, target: UInt, region: MemoryRegions.Region, below: BelowHit?, validation: Validation
    ) -> UInt? {
        if let below {
            return objectByChunkHeaders(
                holding: address, target: target, region: region, below: below, validation: validation)
        }
        if HeapWalker.sanitizerKnowsAllocations {
            guard let allocation = HeapWalker.sanitizerAllocation(containing: address),
                walker.classifier.classify(allocation.start) != nil
            else { return nil }
            return validated(allocation.start, holding: target, validation: validation)
        }
        var start = address & ~UInt(0xF)
        let lowest = address > UInt(Self.objectSearchDistance) ? address &- UInt(Self.objectSearchDistance) : 0
        while start >= lowest, start > 0 {
            if walker.classifier.classify(start) != nil {
                return validated(start, holding: target, validation: validation)
            }
            start &-= 16
        }
        return nil
    }

    /// The object around `address` by the allocator's chunk headers: the nearest start below
    /// it whose header covers it and which reads as an object. The memory below the hit is
    /// copied once and its headers looked at in C; only the starts they allow are classified.
    private func objectByChunkHeaders(
        holding address: UInt, target: UInt, region: MemoryRegions.Region, below: BelowHit, validation: Validation
    ) -> UInt? {
        let distance = UInt(Self.objectSearchDistance)
        let lowest = max(address > distance ? address &- distance : 0, region.start &+ UInt(RuntimeLayout.word))
        let window = (lowest &- UInt(RuntimeLayout.word)) & ~UInt(RuntimeLayout.word - 1)
        let words = below.read(from: window, to: address & ~UInt(0xF))
        guard words > 0 else { return nil }
        var from = address
        while from != 0 {
            var resume: UInt = 0
            let found = rdiag_covering_chunks(
                below.words, words, window, address, from, lowest, below.candidates, BelowHit.candidateCount, &resume)
            for start in UnsafeBufferPointer(start: below.candidates, count: found)
            where walker.classifier.classify(start) != nil {
                return validated(start, holding: target, validation: validation)
            }
            from = resume
        }
        return nil
    }

    /// `object`, the object that contains a hit, if it really holds `target` (else the hit is
    /// stale), and is neither a copy of memory nor the ledger's own bookkeeping (looked at
    /// first: they are never read).
    private func validated(_ object: UInt, holding target: UInt, validation: Validation) -> UInt? {
        let targets: Set<UInt>?
        if let known = validation.strongTargets[object] {
            targets = known
        } else {
            if CopiedMemory.contains(object) || isBookkeeping(object) {
                targets = nil
            } else if let record = walker.quietly({ walker.record(of: object) }) {
                targets = Set(record.references.lazy.filter { $0.strength != .weak }.map(\.target))
            } else {
                targets = nil
            }
            validation.strongTargets[object] = .some(targets)
        }
        return targets?.contains(target) == true ? object : nil
    }

    /// The library's C tables of raw addresses (the stream hook's): words there are no references.
    static let ownTables: [Range<UInt>] = {
        var starts = [UnsafeRawPointer?](repeating: nil, count: 8)
        var sizes = [UInt](repeating: 0, count: 8)
        let count = starts.withUnsafeMutableBufferPointer { starts in
            sizes.withUnsafeMutableBufferPointer { sizes in
                Int(
                    rdiag_stream_hook_tables(
                        UnsafeMutableRawPointer(starts.baseAddress!).assumingMemoryBound(to: UnsafeRawPointer.self),
                        sizes.baseAddress!, Int32(starts.count)))
            }
        }
        return (0..<count).compactMap { index in
            starts[index].map { UInt(bitPattern: $0)..<(UInt(bitPattern: $0) + sizes[index]) }
        }
    }()

    /// Whether `object` is one of the ledger's own stores of held objects.
    private func isBookkeeping(_ object: UInt) -> Bool {
        guard case .instance(let metadata)? = walker.classifier.classify(object) else { return false }
        return RetainPathBookkeeping.contains(metadata)
    }
}
