import CReactiveDiagnostics
import Synchronization
import _ReactiveDiagnosticsSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The scheduled actions of one thread: what checkpoints read to find the pending ones, and the
/// thread's pool of actions to fill again.
///
/// Only the thread that owns a lane writes it, and scheduling an action writes nothing shared:
/// no lock, no ledger slot, only the action itself and, for a new action, the end of the lane.
/// An action stays in its lane once it ended; a later action fills it again if nothing else
/// refers to it any more (the scheduler released its closure, no caller kept it). A cursor goes
/// round the lane, one action per take in the steady state:
///
/// - an action that ended and that nothing else refers to is filled again in place;
/// - one that ended but that someone still holds (a cancellable kept after its timer was
///   cancelled) is let go by the lane, and a new action takes its place;
/// - one still live while actions scheduled after it have ended (a timer, a delayed action,
///   an action stuck on a suspended queue) is parked: kept out of the ring until it ended, a
///   new action taking its place;
/// - one live with nothing newer ended is a backlog waiting its turn and is passed over; after
///   ``probes`` of them in a row, a new action is appended (the lane grows to hold the backlog,
///   so that it is filled again when it comes back).
///
/// So a warm scheduler allocates nothing per action, actions that stay live or held for long
/// neither slow the cursor down nor make the lane grow, and the lane holds about as many
/// actions as were pending at once lately: after two laps without appending, in which the
/// backlog never reached its last quarter, it gives that quarter back (a scheduler that
/// schedules the same burst again and again keeps the lane its burst needs, instead of giving
/// a quarter back and making it again).
///
/// A lane whose thread goes quiet gives back what a burst left without waiting for it: the
/// engine's checkpoints call ``reclaimQuietLanes()``, which works on a lane while its owner is
/// not taking (an access word the owner takes by one compare-exchange per take), takes the
/// probes of the ended actions only the lane holds, and lets a lane whose thread took nothing
/// since the previous pass go of such actions at its end, down to ``minimumCapacity``.
///
/// A checkpoint reads every lane under the lane's lock, which its owner takes only to grow it
/// (once per doubling), to replace or park an action, or to give back actions it no longer
/// needs (at most once per lap of the cursor), and reads each action as a seqlock
/// (``ScheduledAction/record(ledger:)``). A lane outlives its thread: a thread that ends leaves
/// its lane, pending actions and all, to the next thread that schedules.
///
/// ```swift
/// let action = ActionLane.take(filling, body: work)   // filled again, or new and appended
/// ```
final class ActionLane: @unchecked Sendable {
    // Unchecked: `owned`, `filledAt`, `cursor` and the counts below them are the owner's
    // alone, and a reclaiming pass's while it holds `access` (a lane changes owner only through
    // the registry's lock); `listed` and `capacity`
    // change under `lock`, by the owner, and the owner's stores below `count` are
    // published by `count`'s releasing store.
    /// Parked actions: still live after actions scheduled after them ended (timers, delayed
    /// actions, actions stuck on a suspended queue), taken out of the ring so that the cursor
    /// never meets them again; let go once they ended. Its lock also guards `listed` and
    /// `capacity`.
    private let lock = LockedValue<[ScheduledAction]>([])
    /// How many actions are parked, as the owner last left them.
    @exclusivity(unchecked) private var parkedCount = 0
    /// The lane's references to its actions, which only the owner reads or writes (so it can
    /// ask whether one is unique without a copy).
    @exclusivity(unchecked) private var owned: UnsafeMutablePointer<ScheduledAction>
    /// The take in which each action was last filled (or made): see ``takes``.
    @exclusivity(unchecked) private var filledAt: UnsafeMutablePointer<UInt64>
    /// The same actions for checkpoints, unretained: written when an action is put in a place.
    @exclusivity(unchecked) private var listed: UnsafeMutablePointer<Unmanaged<ScheduledAction>>
    @exclusivity(unchecked) private var capacity = ActionLane.minimumCapacity
    private let count = Atomic<Int>(0)
    @exclusivity(unchecked) private var cursor = 0
    /// Takes from this lane so far.
    @exclusivity(unchecked) private var takes: UInt64 = 0
    /// The newest action (by ``filledAt``) the cursor found ended: live actions older than it
    /// by more than ``outOfOrder`` are not a backlog draining in order.
    @exclusivity(unchecked) private var newestEnded: UInt64 = 0
    /// Takes since ended parked actions were last let go.
    @exclusivity(unchecked) private var takesSinceSweep = 0
    @exclusivity(unchecked) private var madeThisLap = 0
    /// Actions this lane made (appended, or put in the place of one it let go or parked).
    @exclusivity(unchecked) private var made = 0
    @exclusivity(unchecked) private var quietLaps = 0
    /// Whether the backlog reached the lane's last quarter in this lap (see ``backlogCheckEvery``).
    @exclusivity(unchecked) private var deepBacklogThisLap = false
    /// Its place in the registry: part of the tokens of its actions.
    let number: Int
    /// Who works on the owner's fields: ``free``, the owner (``owning``, in a take) or a
    /// checkpoint giving back what a quiet lane no longer needs (``reclaiming``).
    private let access = Atomic<UInt8>(ActionLane.free)
    private static let free: UInt8 = 0
    private static let owning: UInt8 = 1
    private static let reclaiming: UInt8 = 2
    /// Whether reclaiming passes leave the lane alone (``withCurrentLanePinned(_:)``).
    private let pinned = Atomic<Bool>(false)
    /// ``takes`` when a reclaiming pass last looked at the lane (under ``access``).
    @exclusivity(unchecked) private var takesAtLastLook: UInt64 = 0
    /// ``takes`` when a reclaiming pass last gave back what the lane held (under ``access``).
    @exclusivity(unchecked) private var takesAtLastReclaim: UInt64 = .max

    /// Actions a lane keeps however long it goes without needing them.
    static let minimumCapacity = 256
    /// How many takes ahead an action is prefetched.
    static let prefetchDistance = 8
    /// How many live actions a take passes over before it appends a new one.
    static let probes = 4
    /// How much older (in takes) than an ended action a live one may be and still count as a
    /// backlog: queues that run several actions at once end them a little out of order.
    static let outOfOrder: UInt64 = 256
    /// Every how many takes (a power of two) the lane checks whether its backlog reaches its
    /// last quarter: whether the action three quarters of a lap behind the cursor is still
    /// live (a load of an action the running thread wrote, so not on every take).
    static let backlogCheckEvery: UInt64 = 64

    private init(number: Int) {
        self.number = number
        owned = .allocate(capacity: Self.minimumCapacity)
        filledAt = .allocate(capacity: Self.minimumCapacity)
        listed = .allocate(capacity: Self.minimumCapacity)
    }

    deinit {
        // Lanes are never released (the registry keeps them).
        owned.deinitialize(count: count.load(ordering: .relaxed))
        owned.deallocate()
        filledAt.deallocate()
        listed.deallocate()
    }

    // MARK: The owner

    /// An action live with `filling`, from the calling thread's lane (see ``ActionLane`` for
    /// which one).
    @inline(__always)
    static func take(_ filling: borrowing ScheduledAction.Filling, body: @escaping () -> Void) -> ScheduledAction {
        current._withUnsafeGuaranteedRef { lane in
            let entered = lane.enter()
            defer {
                if entered { lane.access.store(Self.free, ordering: .releasing) }
            }
            lane.takes &+= 1
            lane.takesSinceSweep &+= 1
            if lane.takes & (Self.backlogCheckEvery - 1) == 0 {
                lane.checkBacklog()
            }
            // At most once round a small lane per take.
            for _ in 0..<min(Self.probes, lane.count.load(ordering: .relaxed)) {
                guard let index = lane.next() else { break }
                if lane.owned[index].isFinished {
                    lane.newestEnded = max(lane.newestEnded, lane.filledAt[index])
                    if isKnownUniquelyReferenced(&lane.owned[index]) {
                        let action = lane.owned[index]
                        action.fill(filling, body: body)
                        lane.filledAt[index] = lane.takes
                        return action
                    }
                    // Someone still holds it: the lane lets it go.
                    return lane.replace(at: index, parking: false, with: ScheduledAction(filling, body: body))
                }
                if lane.filledAt[index] &+ Self.outOfOrder < lane.newestEnded {
                    // Live while actions scheduled after it ended: not waiting its turn in a
                    // queue, so out of the ring.
                    return lane.replace(at: index, parking: true, with: ScheduledAction(filling, body: body))
                }
                // Live, with nothing newer ended: a backlog, which the lane grows to hold.
            }
            let action = ScheduledAction(filling, body: body)
            lane.append(action)
            return action
        }
    }

    /// Takes the owner's fields for a take: at once, unless a checkpoint is giving back what
    /// the lane held while its thread was quiet (a copy of the lane's ends, at most a few
    /// milliseconds for a lane a burst grew to hundreds of thousands of actions).
    ///
    /// - Returns: `false` for a take within a take of the same thread (a deinit that the first
    ///   one ran, of an action's work or a probe's recorder, scheduled an action): the outer
    ///   take holds the lane and gives it back.
    @inline(__always)
    private func enter() -> Bool {
        let (exchanged, held) = access.compareExchange(
            expected: Self.free, desired: Self.owning, ordering: .acquiring)
        return exchanged || waitForReclaim(held)
    }

    @inline(never)
    private func waitForReclaim(_ held: UInt8) -> Bool {
        // Only this thread takes from its lane: the lane held by its owner is held by this take.
        guard held != Self.owning else { return false }
        while true {
            sched_yield()
            let (exchanged, held) = access.compareExchange(
                expected: Self.free, desired: Self.owning, ordering: .acquiring)
            if exchanged { return true }
            if held == Self.owning { return false }
        }
    }

    /// The index under the cursor, which moves on (round the lane), or `nil` for an empty lane.
    @inline(__always)
    private func next() -> Int? {
        var used = count.load(ordering: .relaxed)
        if cursor >= used {
            lapEnded(used)
            cursor = 0
            used = count.load(ordering: .relaxed)
            guard used > 0 else { return nil }
        }
        // The action the cursor reaches a few takes from now was last written by the thread
        // that ran it, or a whole lap ago: ask for its lines now, so that filling it then
        // does not wait for them.
        let ahead = cursor + Self.prefetchDistance
        if ahead < used {
            rdiag_prefetch_range_for_write(listed[ahead].toOpaque(), ScheduledAction.instanceBytes)
        }
        defer { cursor += 1 }
        return cursor
    }

    /// Notes whether the action three quarters of a lap behind the cursor is still live: the
    /// backlog then fills more than three quarters of the lane, which must not shrink.
    private func checkBacklog() {
        let used = count.load(ordering: .relaxed)
        guard used > Self.minimumCapacity, !deepBacklogThisLap else { return }
        let behind = (cursor + used / 4) % used
        if !owned[behind].isFinished {
            deepBacklogThisLap = true
        }
    }

    /// Puts `action` in place `index`, instead of an ended action someone still holds (which
    /// the lane lets go, so it is never filled again) or of a live one (`parking`: kept, out of
    /// the ring, until it ended); the lane does not grow.
    @inline(never)
    private func replace(at index: Int, parking: Bool, with action: ScheduledAction) -> ScheduledAction {
        let old = owned[index]
        owned[index] = action
        made += 1
        filledAt[index] = takes
        // Kept alive until no checkpoint can read it where it was; released after the lock.
        withExtendedLifetime(old) {
            lock.withLock { parked in
                listed[index] = Unmanaged.passUnretained(action)
                if parking {
                    parked.append(old)
                    parkedCount = parked.count
                }
            }
        }
        return action
    }

    private func append(_ action: ScheduledAction) {
        let used = count.load(ordering: .relaxed)
        if used == capacity {
            let bigger = UnsafeMutablePointer<ScheduledAction>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: owned, count: used)
            owned.deallocate()
            owned = bigger
            let takesWhenFilled = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity * 2)
            takesWhenFilled.moveInitialize(from: filledAt, count: used)
            filledAt.deallocate()
            filledAt = takesWhenFilled
            lock.withLock { _ in
                let biggerList = UnsafeMutablePointer<Unmanaged<ScheduledAction>>.allocate(capacity: capacity * 2)
                biggerList.moveInitialize(from: listed, count: used)
                listed.deallocate()
                listed = biggerList
                capacity *= 2
            }
        }
        (owned + used).initialize(to: action)
        filledAt[used] = takes
        (listed + used).initialize(to: Unmanaged.passUnretained(action))
        count.store(used + 1, ordering: .releasing)
        madeThisLap += 1
        made += 1
    }

    /// The cursor went round: parked actions that ended are let go (at most once per as many
    /// takes as there are parked actions), and after two laps in a row without making an
    /// action, in which the backlog stayed within three quarters of the lane, the lane, larger
    /// than its thread needs, gives its last quarter back, as far as those actions ended and
    /// are referenced by nothing else (two laps, and a quarter, so that bursts of the same size
    /// do not make it shrink and grow in turn).
    private func lapEnded(_ used: Int) {
        if parkedCount > 0, takesSinceSweep >= parkedCount {
            takesSinceSweep = 0
            releaseEndedParkedActions()
        }
        quietLaps = madeThisLap == 0 && !deepBacklogThisLap ? quietLaps + 1 : 0
        madeThisLap = 0
        deepBacklogThisLap = false
        guard quietLaps >= 2, used > Self.minimumCapacity else { return }
        quietLaps = 0
        let keep = max(used - used / 4, Self.minimumCapacity)
        var end = used
        while end > keep, owned[end - 1].isFinished, isKnownUniquelyReferenced(&owned[end - 1]) {
            end -= 1
        }
        guard end < used else { return }
        // Unlisted first (no checkpoint reads them from then on), released after the lock.
        lock.withLock { _ in count.store(end, ordering: .releasing) }
        (owned + end).deinitialize(count: used - end)
    }

    private func releaseEndedParkedActions() {
        var ended: [ScheduledAction] = []
        lock.withLock { parked in
            ended = parked.filter(\.isFinished)
            if !ended.isEmpty {
                parked.removeAll(where: \.isFinished)
            }
            parkedCount = parked.count
        }
        // Released here, outside the lock.
        ended.removeAll()
    }

    /// How many actions the calling thread's lane holds (live and ended alike).
    static var currentSize: Int {
        current._withUnsafeGuaranteedRef { $0.count.load(ordering: .relaxed) }
    }

    /// Where the cursor of the calling thread's lane is: the place the next take looks at
    /// first (the lane's size when that take begins a lap).
    static var currentCursor: Int {
        current._withUnsafeGuaranteedRef { $0.cursor }
    }

    /// How many actions the calling thread's lane has made so far (allocations).
    static var currentMade: Int {
        current._withUnsafeGuaranteedRef { $0.made }
    }

    /// Runs `body` with the calling thread's lane left alone by reclaiming passes: for tests of
    /// a lane's own laps, which in a parallel run other tests' checkpoints would otherwise
    /// interleave with (two passes while the thread waits for its queue between two bursts take
    /// the lane for quiet and give back what the next burst needs).
    static func withCurrentLanePinned<Result>(_ body: () -> Result) -> Result {
        let lane = current.takeUnretainedValue()
        lane.pinned.store(true, ordering: .relaxed)
        defer { lane.pinned.store(false, ordering: .relaxed) }
        return body()
    }

    // MARK: Quiet lanes

    /// Gives back what the lanes no longer need. The ended actions that nothing but their lane
    /// refers to give their probes back (see ``ScheduledAction/probe``), so that dropped
    /// schedulers are released; a lane whose thread took no action since the previous pass
    /// also lets go of such actions beyond ``minimumCapacity`` at its end (what a burst left:
    /// about 110 bytes an action, with the lane's arrays), once per quiet period. Checkpoints
    /// call it; a lane its owner is taking from is passed over, and a pass already under way
    /// makes this one return at once.
    static func reclaimQuietLanes() {
        guard !passUnderWay.exchange(true, ordering: .acquiring) else { return }
        var released: [ScheduledAction] = []
        var probes: [UInt] = []
        for lane in registry.withLock({ $0.all }) {
            guard !lane.pinned.load(ordering: .relaxed),
                lane.access.compareExchange(expected: free, desired: reclaiming, ordering: .acquiring).exchanged
            else { continue }
            if lane.takes != lane.takesAtLastLook {
                // Busy since the last pass: its ended actions give their probes back only.
                lane.takeProbesOfEndedActions(below: lane.count.load(ordering: .relaxed), into: &probes)
            } else if lane.takes != lane.takesAtLastReclaim {
                lane.takesAtLastReclaim = lane.takes
                lane.reclaim(releasing: &released, probes: &probes)
            }
            lane.takesAtLastLook = lane.takes
            lane.access.store(free, ordering: .releasing)
        }
        passUnderWay.store(false, ordering: .releasing)
        // Outside every lane: releasing an action releases its work and its probe, whose
        // deinits may schedule (on this thread's lane too).
        for probe in probes {
            Unmanaged<SchedulerProbe>.fromOpaque(UnsafeRawPointer(bitPattern: probe).unsafelyUnwrapped).release()
        }
        released.removeAll()
    }

    /// Whether a reclaiming pass is under way (one at a time).
    private static let passUnderWay = Atomic<Bool>(false)

    /// Takes the probes of the ended actions before `end` that nothing else refers to (under
    /// ``access``): a lane that is filled for other schedulers would otherwise keep a dropped
    /// scheduler's probe until its cursor came round.
    private func takeProbesOfEndedActions(below end: Int, into probes: inout [UInt]) {
        for index in 0..<end where owned[index].isFinished && isKnownUniquelyReferenced(&owned[index]) {
            let probe = owned[index].takeProbe()
            if probe != 0 {
                probes.append(probe)
            }
        }
    }

    /// Lets go of the ended actions at the lane's end that nothing else refers to, down to
    /// ``minimumCapacity``, shrinks the lane's arrays to fit, and takes the probes of the ended
    /// actions it keeps (under ``access``: the owner is out).
    private func reclaim(releasing released: inout [ScheduledAction], probes: inout [UInt]) {
        if parkedCount > 0 {
            lock.withLock { parked in
                released.append(contentsOf: parked.lazy.filter(\.isFinished))
                parked.removeAll(where: \.isFinished)
                parkedCount = parked.count
            }
        }
        let used = count.load(ordering: .relaxed)
        var end = used
        while end > Self.minimumCapacity, owned[end - 1].isFinished, isKnownUniquelyReferenced(&owned[end - 1]) {
            end -= 1
        }
        takeProbesOfEndedActions(below: end, into: &probes)
        var fitting = Self.minimumCapacity
        while fitting < end {
            fitting *= 2
        }
        guard end < used || fitting < capacity else { return }
        released.reserveCapacity(released.count + used - end)
        for index in end..<used {
            released.append((owned + index).move())
        }
        if fitting < capacity {
            let smaller = UnsafeMutablePointer<ScheduledAction>.allocate(capacity: fitting)
            smaller.moveInitialize(from: owned, count: end)
            owned.deallocate()
            owned = smaller
            let takesWhenFilled = UnsafeMutablePointer<UInt64>.allocate(capacity: fitting)
            takesWhenFilled.moveInitialize(from: filledAt, count: end)
            filledAt.deallocate()
            filledAt = takesWhenFilled
        }
        // Unlisted under the lock: checkpoints read `listed` and `count` under it.
        lock.withLock { _ in
            count.store(end, ordering: .releasing)
            if fitting < capacity {
                let smallerList = UnsafeMutablePointer<Unmanaged<ScheduledAction>>.allocate(capacity: fitting)
                smallerList.moveInitialize(from: listed, count: end)
                listed.deallocate()
                listed = smallerList
                capacity = fitting
            }
        }
        if cursor > end {
            cursor = end
        }
        quietLaps = 0
        madeThisLap = 0
        deepBacklogThisLap = false
    }

    // MARK: Checkpoints

    /// Appends to `result` every live action of every lane that the ledger numbered `ledger`
    /// counts and that `include` accepts (evaluated under the lane's lock: keep it pure).
    static func collectLive(
        ledger: UInt32, where include: (ResourceLedger.Slot) -> Bool, into result: inout [LiveResource]
    ) {
        for lane in registry.withLock({ $0.all }) {
            lane.lock.withLock { parked in
                func collect(_ action: Unmanaged<ScheduledAction>, index: Int) {
                    guard let (slot, generation) = action._withUnsafeGuaranteedRef({ $0.record(ledger: ledger) }),
                        include(slot)
                    else { return }
                    result.append(
                        LiveResource(
                            token: ResourceLedger.laneToken(lane: lane.number, index: index, generation: generation),
                            kind: ResourceKind(index: slot.kind), label: DiagnosticLabel(id: slot.label),
                            stack: StackID(rawValue: slot.stack), test: TestIdentity(rawValue: slot.test),
                            epoch: slot.epoch))
                }
                let used = lane.count.load(ordering: .acquiring)
                for index in 0..<used {
                    collect(lane.listed[index], index: index)
                }
                // Parked actions are numbered after the ring's places.
                for (offset, action) in parked.enumerated() {
                    collect(Unmanaged.passUnretained(action), index: lane.capacity + offset)
                }
            }
        }
    }

    // MARK: Threads

    private struct Registry {
        var all: [ActionLane] = []
        /// Lanes whose threads ended, for the next threads that schedule.
        var idle: [ActionLane] = []
    }

    private static let registry = LockedValue(Registry())

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            let raw = pointer
            #else
            guard let raw = pointer else { return }
            #endif
            rdiag_action_lane_set(nil)
            let lane = Unmanaged<ActionLane>.fromOpaque(raw).takeUnretainedValue()
            ActionLane.registry.withLock { $0.idle.append(lane) }
        }
        precondition(status == 0, "ReactiveDiagnostics: pthread_key_create failed (\(status))")
        return key
    }()

    /// The calling thread's lane (lanes are never released).
    static var current: Unmanaged<ActionLane> {
        @inline(__always) get {
            if let raw = rdiag_action_lane_get() {
                return Unmanaged<ActionLane>.fromOpaque(raw)
            }
            return adopt()
        }
    }

    @inline(never)
    private static func adopt() -> Unmanaged<ActionLane> {
        let key = key
        let lane = registry.withLock { registry -> ActionLane in
            if let idle = registry.idle.popLast() {
                return idle
            }
            let lane = ActionLane(number: registry.all.count)
            registry.all.append(lane)
            return lane
        }
        let unmanaged = Unmanaged.passUnretained(lane)
        pthread_setspecific(key, unmanaged.toOpaque())
        rdiag_action_lane_set(unmanaged.toOpaque())
        return unmanaged
    }
}
