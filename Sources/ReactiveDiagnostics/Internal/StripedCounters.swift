import CReactiveDiagnostics

/// Counters that several threads add to at once, one copy per stripe on cache lines of its
/// own: a thread adds to its stripe's copy (chosen by its thread number), readers combine
/// the stripes. Threads running a concurrent queue's actions at the same time then do not
/// write the same line.
///
/// ```swift
/// let runs = StripedCounters(count: 2)
/// runs.add(0, 1)                       // on any thread: one relaxed atomic add, its own line
/// assert(runs.sum(0) == 1)
/// ```
final class StripedCounters: Sendable {
    /// Stripes: threads beyond this many share them.
    static let stripes = 16
    private let storage: AtomicCounters
    /// Counters per stripe, padded to whole cache lines.
    private let stride: Int
    let count: Int

    /// `count` counters per stripe, each starting at 0.
    init(count: Int) {
        precondition(count > 0, "StripedCounters needs at least one counter")
        self.count = count
        stride = (count + 7) / 8 * 8
        storage = AtomicCounters(count: stride * Self.stripes, isolated: true)
    }

    /// Sets counter `index` of every stripe to `value` (before any thread adds to it).
    func setEveryStripe(_ index: Int, to value: Int) {
        for stripe in 0..<Self.stripes {
            storage.store(stripe * stride + index, value)
        }
    }

    /// The calling thread's stripe, as an offset into `storage`.
    @inline(__always)
    private var base: Int {
        Int(rdiag_thread_shard() & UInt32(Self.stripes - 1)) * stride
    }

    /// Adds `delta` to counter `index` of the calling thread's stripe.
    @inline(__always)
    func add(_ index: Int, _ delta: Int) {
        storage.add(base + index, delta)
    }

    /// Lowers counter `index` of the calling thread's stripe to `value` if it is higher.
    @inline(__always)
    func lower(_ index: Int, to value: Int) {
        let slot = base + index
        if value < storage.load(slot) { storage.lower(slot, to: value) }
    }

    /// Raises counter `index` of the calling thread's stripe to `value` if it is lower.
    @inline(__always)
    func raise(_ index: Int, to value: Int) {
        let slot = base + index
        if value > storage.load(slot) { storage.raise(slot, to: value) }
    }

    /// Counter `index` summed over the stripes.
    func sum(_ index: Int) -> Int {
        (0..<Self.stripes).reduce(0) { $0 + storage.load($1 * stride + index) }
    }

    /// The smallest of counter `index` over the stripes.
    func minimum(_ index: Int) -> Int {
        (0..<Self.stripes).reduce(Int.max) { min($0, storage.load($1 * stride + index)) }
    }

    /// The largest of counter `index` over the stripes.
    func maximum(_ index: Int) -> Int {
        (0..<Self.stripes).reduce(Int.min) { max($0, storage.load($1 * stride + index)) }
    }
}
