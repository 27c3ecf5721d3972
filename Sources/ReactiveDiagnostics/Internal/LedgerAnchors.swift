/// A shard's anchor words (see ``ResourceLedger/setAnchor(_:object:)``), beside its slots so
/// that a slot stays 20 bytes and a shard that never sees an anchor never pays for one.
///
/// Words are kept in chunks of ``LedgerShard/chunkSize`` that mirror the slot chunks, each
/// allocated (zeroed) the first time an anchor is set for one of its slots. Everything is
/// touched under the shard's mutex. A word is cleared when its slot is reclaimed, not when it
/// is taken again (in the shard's sweep of ended slots): registering without an anchor writes
/// nothing here.
struct LedgerAnchors: ~Copyable {
    /// Per chunk of slots, its words, or `nil` while no anchor was set in it.
    private var chunks: UnsafeMutablePointer<UnsafeMutablePointer<UInt>?>?
    private var capacity = 0

    init() {}

    deinit {
        guard let chunks else { return }
        for index in 0..<capacity {
            chunks[index]?.deallocate()
        }
        chunks.deallocate()
    }

    /// Whether any anchor was ever set in this shard.
    var isEmpty: Bool {
        chunks == nil
    }

    /// The word of slot `index`, or 0.
    func word(_ index: Int) -> UInt {
        let chunkIndex = index >> LedgerShard.chunkBits
        guard let chunks, chunkIndex < capacity, let chunk = chunks[chunkIndex] else { return 0 }
        return chunk[index & (LedgerShard.chunkSize - 1)]
    }

    /// Sets the word of slot `index`.
    mutating func set(_ index: Int, to word: UInt) {
        let chunkIndex = index >> LedgerShard.chunkBits
        if chunkIndex >= capacity {
            grow(toHold: chunkIndex)
        }
        let chunk: UnsafeMutablePointer<UInt>
        if let existing = chunks.unsafelyUnwrapped[chunkIndex] {
            chunk = existing
        } else {
            chunk = .allocate(capacity: LedgerShard.chunkSize)
            chunk.initialize(repeating: 0, count: LedgerShard.chunkSize)
            chunks.unsafelyUnwrapped[chunkIndex] = chunk
        }
        chunk[index & (LedgerShard.chunkSize - 1)] = word
    }

    /// Clears the word of slot `index` (a slot being reclaimed).
    @inline(__always)
    mutating func clear(_ index: Int) {
        let chunkIndex = index >> LedgerShard.chunkBits
        guard let chunks, chunkIndex < capacity, let chunk = chunks[chunkIndex] else { return }
        chunk[index & (LedgerShard.chunkSize - 1)] = 0
    }

    private mutating func grow(toHold chunkIndex: Int) {
        var newCapacity = max(capacity, 4)
        while newCapacity <= chunkIndex {
            newCapacity *= 2
        }
        let bigger = UnsafeMutablePointer<UnsafeMutablePointer<UInt>?>.allocate(capacity: newCapacity)
        if let chunks {
            bigger.moveInitialize(from: chunks, count: capacity)
            chunks.deallocate()
        }
        (bigger + capacity).initialize(repeating: nil, count: newCapacity - capacity)
        chunks = bigger
        capacity = newCapacity
    }
}
