import Synchronization

/// A fixed-size array of atomic integers (the standard library has no atomic arrays).
final class AtomicCounters: @unchecked Sendable {
    // Unchecked: the pointer is allocated once, never reassigned, and only ever accessed
    // through `Atomic`'s own synchronized operations.
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    let count: Int

    /// - Parameter isolated: Give the counters cache lines of their own (aligned and padded to
    ///   128 bytes), for counters that one side of a hand-over writes and the other never does.
    init(count: Int, isolated: Bool = false) {
        precondition(count > 0, "AtomicCounters needs at least one counter")
        self.count = count
        if isolated {
            let bytes = (count * MemoryLayout<Atomic<Int>>.stride + 127) & ~127
            storage = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 128)
                .bindMemory(to: Atomic<Int>.self, capacity: count)
        } else {
            storage = .allocate(capacity: count)
        }
        for index in 0..<count {
            (storage + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    func load(_ index: Int) -> Int {
        storage[index].load(ordering: .relaxed)
    }

    @inline(__always)
    @discardableResult
    func add(_ index: Int, _ delta: Int) -> Int {
        storage[index].wrappingAdd(delta, ordering: .relaxed).newValue
    }

    /// Raises counter `index` to `value` if it is lower (a running maximum).
    @inline(__always)
    func raise(_ index: Int, to value: Int) {
        var current = storage[index].load(ordering: .relaxed)
        while value > current {
            let (exchanged, original) = storage[index].weakCompareExchange(
                expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Lowers counter `index` to `value` if it is higher (a running minimum).
    @inline(__always)
    func lower(_ index: Int, to value: Int) {
        var current = storage[index].load(ordering: .relaxed)
        while value < current {
            let (exchanged, original) = storage[index].weakCompareExchange(
                expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    func store(_ index: Int, _ value: Int) {
        storage[index].store(value, ordering: .relaxed)
    }

    /// Stores `value` so that a reader that loads it with ``loadAcquiring(_:)`` sees what the
    /// storing thread wrote before.
    @inline(__always)
    func storeReleasing(_ index: Int, _ value: Int) {
        storage[index].store(value, ordering: .releasing)
    }

    /// Adds `delta`, publishing what the adding thread wrote before (see ``loadAcquiring(_:)``).
    @inline(__always)
    func addReleasing(_ index: Int, _ delta: Int) {
        storage[index].wrappingAdd(delta, ordering: .releasing)
    }

    /// Loads counter `index`, seeing what the thread that stored or added it wrote before.
    @inline(__always)
    func loadAcquiring(_ index: Int) -> Int {
        storage[index].load(ordering: .acquiring)
    }
}
