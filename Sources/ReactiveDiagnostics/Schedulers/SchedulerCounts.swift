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
final class SchedulerCounts: Sendable {
    /// Written when scheduling: one-shot scheduled, repeating scheduled, then per kind the most
    /// alive at once and the ended count as the scheduling side last read it.
    private let scheduling = AtomicCounters(count: 6, isolated: true)
    /// Written when running or cancelling, by every thread that runs the probe's actions: a
    /// stripe each.
    private let running = StripedCounters(count: Running.count)
    /// One-shot actions ended (run or cancelled) and repeating ones cancelled: one line, which
    /// the scheduling side reads in one load.
    private let ended = AtomicCounters(count: 2, isolated: true)

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

    /// Counts an action scheduled now, and raises the most alive at once.
    ///
    /// The peak is computed from the ended count as this side last read it, which can only be
    /// lower than the true one, so the figure is never below the true peak; it is read afresh
    /// only when it would raise the peak, so a thread that schedules into a standing backlog
    /// reads nothing the running threads write.
    ///
    /// - Returns: How many actions of this kind the probe has scheduled, this one included.
    @inline(__always)
    @discardableResult
    func noteScheduled(_ kind: ResourceKind) -> Int {
        let side = Self.side(kind)
        let scheduled = scheduling.add(side, 1)
        let peak = scheduling.load(2 + side)
        guard scheduled - scheduling.load(4 + side) > peak else { return scheduled }
        let ended = endedCount(side)
        scheduling.store(4 + side, ended)
        if scheduled - ended > peak {
            scheduling.raise(2 + side, to: scheduled - ended)
        }
        return scheduled
    }

    /// Counts a one-shot action ended by its run.
    @inline(__always)
    func noteRanToEnd() {
        ended.add(0, 1)
    }

    /// Counts a cancellation that ended an action.
    @inline(__always)
    func noteCancelled(_ kind: ResourceKind) {
        running.add(Running.cancelled, 1)
        ended.add(Self.side(kind), 1)
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
    var scheduled: Int { scheduling.load(0) + scheduling.load(1) }
    /// Cancellations that ended an action.
    var cancelled: Int { running.sum(Running.cancelled) }
    /// One-shot actions neither run nor cancelled yet.
    var pending: Int { max(scheduling.load(0) - endedCount(0), 0) }
    /// Repeating actions not cancelled yet.
    var activeRepeating: Int { max(scheduling.load(1) - endedCount(1), 0) }
    /// Actions that ran too long.
    var longActions: Int { running.sum(Running.long) }
    /// Runs off the expected thread.
    var threadViolations: Int { running.sum(Running.violations) }

    /// Registered, ended and the most alive at once, of `kind` (zero for kinds probes do not make).
    func counts(of kind: ResourceKind) -> LaneCounts {
        guard kind == .scheduledAction || kind == .timer else { return LaneCounts() }
        let side = Self.side(kind)
        return LaneCounts(registered: scheduling.load(side), ended: endedCount(side), peak: scheduling.load(2 + side))
    }
}
