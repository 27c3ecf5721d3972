/// What a probe counts, written where the work happens: the scheduling side by the threads that
/// schedule, the running side by the threads that run or cancel, each on cache lines of its own,
/// and each event counted by one atomic add. What only running threads read is kept per thread
/// stripe (a concurrent queue's threads run actions at the same time); the ended counts, which
/// the scheduling side reads for the peak, are one counter each.
///
/// An engine's ledger reads these counts for the actions its probes keep in lanes (see
/// `ActionLane`): registered, ended and the most alive at once, per kind.
///
/// ```swift
/// counts.noteScheduled(.scheduledAction)   // on the scheduling thread
/// counts.noteRanToEnd()                     // on the thread that ran it: it returned, and that ended it
/// ```
final class SchedulerCounts: ExternalResourceSource, Sendable {
    /// Written when scheduling, per side (one-shot, repeating): scheduled, the most alive at
    /// once, the ended count as the scheduling side last read it, and the most alive at once
    /// computed from a fresh read of it (see ``noteScheduled(_:)``).
    private let scheduling = AtomicCounters(count: 8, isolated: true)
    /// Written when running or cancelling, by every thread that runs the probe's actions: a
    /// stripe each.
    private let running = StripedCounters(count: Running.count)
    /// One-shot actions ended (run or cancelled) and repeating ones cancelled: one line, which
    /// the scheduling side reads in one load.
    private let ended = AtomicCounters(count: 2, isolated: true)

    /// Where each side's counters are in ``scheduling`` (add the side, 0 or 1).
    private enum Scheduling {
        static let scheduled = 0
        static let peak = 2
        static let endedSeen = 4
        static let peakRead = 6
    }

    /// The running side's striped counters.
    /// (Runs started are counted per thread by the probe, which names the threads.)
    private enum Running {
        static let cancelled = 0
        static let long = 1
        static let violations = 2
        static let count = 3
    }

    /// 0 for one-shot actions, 1 for repeating ones.
    @inline(__always)
    private static func side(_ kind: ResourceKind) -> Int {
        kind == .timer ? 1 : 0
    }

    /// How far above the most alive at once read afresh the peak may be raised from a stale
    /// read of the ended count, as a shift: 6 is 1/64 (below 64 alive, never).
    static let peakSlackShift = 6

    /// Counts an action scheduled now, and raises the most alive at once.
    ///
    /// Alive is scheduled minus ended, and the ended count is what the running threads write
    /// on every run: reading it on every schedule would move its cache line between the two
    /// threads for every action of a growing backlog. The scheduling side computes alive from
    /// the ended count as it last read it, which can only be lower than the true one, so the
    /// peak is never below the true peak. It reads the count afresh only when that estimate
    /// passes the most alive at once so far *read afresh* by more than 1/64 of it; the peak is
    /// therefore exact below 64 actions alive and at most 1/64 above the true one beyond, and a
    /// backlog growing to 100,000 reads the running side's line about once every 1,500 actions.
    ///
    /// - Returns: How many actions of this kind the probe has scheduled, this one included.
    @inline(__always)
    @discardableResult
    func noteScheduled(_ kind: ResourceKind) -> Int {
        let side = Self.side(kind)
        let scheduled = scheduling.add(Scheduling.scheduled + side, 1)
        let alive = scheduled - scheduling.load(Scheduling.endedSeen + side)
        guard alive > scheduling.load(Scheduling.peak + side) else { return scheduled }
        let read = scheduling.load(Scheduling.peakRead + side)
        if alive > read + read >> Self.peakSlackShift {
            readEndedAfresh(side, scheduled: scheduled)
        } else {
            scheduling.raise(Scheduling.peak + side, to: alive)
        }
        return scheduled
    }

    @inline(never)
    private func readEndedAfresh(_ side: Int, scheduled: Int) {
        let ended = endedCount(side)
        scheduling.store(Scheduling.endedSeen + side, ended)
        let alive = scheduled - ended
        scheduling.raise(Scheduling.peakRead + side, to: alive)
        scheduling.raise(Scheduling.peak + side, to: alive)
    }

    /// Counts a one-shot action ended by its run.
    @inline(__always)
    func noteRanToEnd() {
        ended.addReleasing(0, 1)
    }

    /// Counts a cancellation that ended an action.
    @inline(__always)
    func noteCancelled(_ kind: ResourceKind) {
        running.add(Running.cancelled, 1)
        ended.addReleasing(Self.side(kind), 1)
    }

    /// Counts an action that ran longer than its threshold.
    func noteLong() {
        running.add(Running.long, 1)
    }

    /// Counts a run off the expected thread.
    func noteViolation() {
        running.add(Running.violations, 1)
    }

    @inline(__always)
    private func endedCount(_ side: Int) -> Int {
        ended.load(side)
    }

    // MARK: Reading

    /// Actions scheduled, one-shot and repeating.
    var scheduled: Int { scheduling.load(Scheduling.scheduled) + scheduling.load(Scheduling.scheduled + 1) }
    /// Cancellations that ended an action.
    var cancelled: Int { running.sum(Running.cancelled) }
    /// One-shot actions neither run nor cancelled yet.
    var pending: Int { max(scheduling.load(Scheduling.scheduled) - endedCount(0), 0) }
    /// Repeating actions not cancelled yet.
    var activeRepeating: Int { max(scheduling.load(Scheduling.scheduled + 1) - endedCount(1), 0) }
    /// Actions that ran too long.
    var longActions: Int { running.sum(Running.long) }
    /// Runs off the expected thread.
    var threadViolations: Int { running.sum(Running.violations) }

    /// Whether an action or a repeating one may be alive: the ended counts are read first, so
    /// that the scheduled counts read after include every action they count.
    func mayHaveLive() -> Bool {
        let endedOneShot = ended.loadAcquiring(0)
        let endedRepeating = ended.loadAcquiring(1)
        return scheduling.loadAcquiring(Scheduling.scheduled) > endedOneShot
            || scheduling.loadAcquiring(Scheduling.scheduled + 1) > endedRepeating
    }

    /// Registered, ended and the most alive at once, of `kind` (zero for kinds probes do not make).
    func counts(of kind: ResourceKind) -> LaneCounts {
        guard kind == .scheduledAction || kind == .timer else { return LaneCounts() }
        let side = Self.side(kind)
        return LaneCounts(
            registered: scheduling.load(Scheduling.scheduled + side), ended: endedCount(side),
            peak: scheduling.load(Scheduling.peak + side))
    }
}
