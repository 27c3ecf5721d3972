import CReactiveDiagnostics
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Scheduled actions that ran, kept for later actions, so a warm scheduler allocates nothing
/// per action of its own.
///
/// Each thread keeps two magazines of 32: the one it takes from and the one it returns to.
/// The thread that runs actions fills magazines and hands full ones to a shared depot; the
/// thread that schedules takes full ones from it: one lock per 32 actions, and the two threads
/// never write the same magazine. An action is used again only if nothing else refers to it
/// any more (the scheduler released its closure, no caller kept it); otherwise it is simply let go.
enum ScheduledActionPool {
    static let magazineSize = 32
    /// Full magazines the depot keeps at most (more are released).
    static let depotLimit = 64

    /// Room for ``magazineSize`` actions. Unchecked: a magazine belongs to one thread at a
    /// time, and changes hands only through the depot's lock.
    struct Magazine: @unchecked Sendable {
        let slots: UnsafeMutablePointer<Unmanaged<ScheduledAction>>

        static func make() -> Magazine {
            Magazine(slots: .allocate(capacity: ScheduledActionPool.magazineSize))
        }

        subscript(index: Int) -> Unmanaged<ScheduledAction> {
            get { slots[index] }
            nonmutating set { slots[index] = newValue }
        }
    }

    /// One thread's magazines, reached through a thread-local pointer.
    struct Magazines {
        var taking: Magazine
        var takingCount = 0
        var returning: Magazine
        var returningCount = 0
    }

    /// Full magazines and empty ones, shared.
    private struct Depot {
        var full: [Magazine] = []
        var empty: [Magazine] = []
    }

    private static let depot = LockedValue(Depot())
    /// How many full magazines the depot holds, read without its lock: a thread that
    /// schedules faster than actions run (a backlog) finds none, and takes no lock to learn it.
    private static let depotFullCount = Atomic<Int>(0)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            let magazines = pointer.assumingMemoryBound(to: Magazines.self)
            #else
            guard let magazines = pointer?.assumingMemoryBound(to: Magazines.self) else { return }
            #endif
            rdiag_action_pool_set(nil)
            ScheduledActionPool.release(magazines.pointee.taking, count: magazines.pointee.takingCount)
            ScheduledActionPool.release(magazines.pointee.returning, count: magazines.pointee.returningCount)
            magazines.pointee.taking.slots.deallocate()
            magazines.pointee.returning.slots.deallocate()
            magazines.deinitialize(count: 1)
            magazines.deallocate()
        }
        precondition(status == 0, "ReactiveDiagnostics: pthread_key_create failed (\(status))")
        return key
    }()

    @inline(__always)
    private static func current() -> UnsafeMutablePointer<Magazines> {
        if let raw = rdiag_action_pool_get() {
            return raw.assumingMemoryBound(to: Magazines.self)
        }
        let magazines = UnsafeMutablePointer<Magazines>.allocate(capacity: 1)
        magazines.initialize(to: Magazines(taking: .make(), returning: .make()))
        pthread_setspecific(key, magazines)
        rdiag_action_pool_set(magazines)
        return magazines
    }

    /// An action to use again, or `nil` (make a new one).
    static func take() -> ScheduledAction? {
        let magazines = current()
        while true {
            if magazines.pointee.takingCount == 0 {
                guard refill(magazines) else { return nil }
            }
            magazines.pointee.takingCount -= 1
            var action = magazines.pointee.taking[magazines.pointee.takingCount].takeRetainedValue()
            if isKnownUniquelyReferenced(&action) {
                return action
            }
            // Still referenced (its scheduler has not released it yet, or a caller kept it).
        }
    }

    /// Hands back an action that ran.
    static func recycle(_ action: ScheduledAction) {
        let magazines = current()
        if magazines.pointee.returningCount == magazineSize {
            let full = magazines.pointee.returning
            let fresh: Magazine?
            if depotFullCount.load(ordering: .relaxed) >= depotLimit {
                fresh = nil
            } else {
                fresh = depot.withLock { depot -> Magazine? in
                    guard depot.full.count < depotLimit else { return nil }
                    depot.full.append(full)
                    depotFullCount.store(depot.full.count, ordering: .relaxed)
                    return depot.empty.popLast() ?? .make()
                }
            }
            if let fresh {
                magazines.pointee.returning = fresh
            } else {
                // The depot is full: let this magazine's actions go and fill it again.
                release(full, count: magazineSize)
            }
            magazines.pointee.returningCount = 0
        }
        magazines.pointee.returning[magazines.pointee.returningCount] = Unmanaged.passRetained(action)
        magazines.pointee.returningCount += 1
    }

    /// Fills the empty taking magazine: from this thread's returns, else from the depot.
    private static func refill(_ magazines: UnsafeMutablePointer<Magazines>) -> Bool {
        if magazines.pointee.returningCount > 0 {
            swap(&magazines.pointee.taking, &magazines.pointee.returning)
            magazines.pointee.takingCount = magazines.pointee.returningCount
            magazines.pointee.returningCount = 0
            return true
        }
        guard depotFullCount.load(ordering: .relaxed) > 0 else { return false }
        let empty = magazines.pointee.taking
        guard let full = depot.withLock({ depot -> Magazine? in
            guard let full = depot.full.popLast() else { return nil }
            depotFullCount.store(depot.full.count, ordering: .relaxed)
            depot.empty.append(empty)
            return full
        }) else { return false }
        magazines.pointee.taking = full
        magazines.pointee.takingCount = magazineSize
        return true
    }

    private static func release(_ magazine: Magazine, count: Int) {
        for index in 0..<count {
            magazine[index].release()
        }
    }
}
