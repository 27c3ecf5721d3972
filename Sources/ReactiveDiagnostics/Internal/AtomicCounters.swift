import Synchronization

/// A fixed-size array of atomic integers (the standard library has no atomic arrays).
final class AtomicCounters: @unchecked Sendable {
    // Unchecked: the pointer is allocated once, never reassigned, and only ever accessed
    // through `Atomic`'s own synchronized operations.
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    let count: Int

    init(count: Int) {
        precondition(count > 0, "AtomicCounters needs at least one counter")
        self.count = count
        storage = .allocate(capacity: count)
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
}
