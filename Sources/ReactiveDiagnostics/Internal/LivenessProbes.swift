import Synchronization
import _ReactiveDiagnosticsSupport

/// Weak references from resources to the objects whose lifetime defines them.
final class LivenessProbes: Sendable {
    // Unchecked: the object is only compared with nil, or handed out strong while alive.
    private struct Weak: @unchecked Sendable {
        weak var object: AnyObject?
    }

    private let state = LockedValue([ResourceToken: Weak]())
    private let watched = Atomic<Int>(0)
    /// Watched and held objects left by the last sweep.
    private let afterLastSweep = Atomic<Int>(0)

    /// The fewest watched resources worth a sweep from ``ResourceLedger/sweepIfDue()``.
    static let sweepFloor = 1_024

    func add(_ token: ResourceToken, object: AnyObject) {
        let probe = Weak(object: object)
        let count = state.withLock { probes in
            probes[token] = probe
            return probes.count
        }
        watched.store(count, ordering: .relaxed)
    }

    func remove(_ token: ResourceToken) {
        let count = state.withLock { probes in
            probes.removeValue(forKey: token)
            return probes.count
        }
        watched.store(count, ordering: .relaxed)
    }

    func object(_ token: ResourceToken) -> AnyObject? {
        let probe = state.withLock { $0[token] }
        return probe?.object
    }

    var count: Int {
        watched.load(ordering: .relaxed)
    }

    /// After a sweep: what is left is the base the next sweep waits to double.
    func noteSwept(held: Int) {
        afterLastSweep.store(watched.load(ordering: .relaxed) + held, ordering: .relaxed)
    }

    /// Whether a sweep is due with `held` objects held besides the watched ones; when it is,
    /// only one caller is told so.
    func claimSweep(held: Int) -> Bool {
        let count = watched.load(ordering: .relaxed) + held
        let last = afterLastSweep.load(ordering: .relaxed)
        guard count >= Self.sweepFloor, count >= 2 * last else { return false }
        return afterLastSweep.compareExchange(expected: last, desired: count, ordering: .relaxed).exchanged
    }

    func collectDeallocated() -> [ResourceToken] {
        // Loading a weak reference makes a temporary strong one; releasing it can be the last
        // release and run a deinit (user code), so the references are read outside the lock.
        let snapshot = state.withLock { $0 }
        var gone: [ResourceToken] = []
        for (token, probe) in snapshot where probe.object == nil {
            gone.append(token)
        }
        guard !gone.isEmpty else { return [] }
        let count = state.withLock { probes in
            for token in gone {
                probes.removeValue(forKey: token)
            }
            return probes.count
        }
        watched.store(count, ordering: .relaxed)
        return gone
    }
}
