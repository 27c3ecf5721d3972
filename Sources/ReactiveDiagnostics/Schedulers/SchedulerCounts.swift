/// What a probe counts, written where the work happens: the scheduling side by the threads that
/// schedule, the running side by the threads that run or cancel, each on cache lines of its own,
/// and each event counted by one atomic add.
///
/// An engine's ledger reads these counts for the actions its probes keep in lanes (see
/// `ActionLane`): registered, ended and the most alive at once, per kind.
///
/// ```swift
/// counts.noteScheduled(.scheduledAction)   // on the scheduling thread
/// counts.noteRunning()                      // on the thread that runs it
/// counts.noteRanToEnd()                     // it returned, and that ended it
/// ```
final class SchedulerCounts: Sendable {
    /// Written when scheduling: one-shot scheduled, repeating scheduled, then per kind the most
    /// alive at once and the ended count as the scheduling side last read it.
    private let scheduling = AtomicCounters(count: 6, isolated: true)
    /// Written when running or cancelling.
    private let running = AtomicCounters(count: Running.count, isolated: true)

    /// The running side's counters.
    private enum Running {
        /// Runs started, of every kind.
        static let runs = 0
        /// One-shot actions ended by their run.
        static let oneShotRan = 1
        static let oneShotCancelled = 2
        static let repeatingCancelled = 3
        static let long = 4
        static let violations = 5
        static let count = 6
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

    /// Counts a run starting.
    @inline(__always)
    func noteRunning() {
        running.add(Running.runs, 1)
    }

    /// Counts a one-shot action ended by its run.
    @inline(__always)
    func noteRanToEnd() {
        running.add(Running.oneShotRan, 1)
    }

    /// Counts a cancellation that ended an action.
    @inline(__always)
    func noteCancelled(_ kind: ResourceKind) {
        running.add(kind == .timer ? Running.repeatingCancelled : Running.oneShotCancelled, 1)
    }

    /// Counts an action that ran longer than its threshold.
    func noteLong() {
        running.add(Running.long, 1)
    }

    /// Counts a run off the expected thread.
    func noteViolation() {
        running.add(Running.violations, 1)
    }

    private func endedCount(_ side: Int) -> Int {
        side == 0
            ? running.load(Running.oneShotRan) + running.load(Running.oneShotCancelled)
            : running.load(Running.repeatingCancelled)
    }

    // MARK: Reading

    /// Actions scheduled, one-shot and repeating.
    var scheduled: Int { scheduling.load(0) + scheduling.load(1) }
    /// Runs started, of one-shot and repeating actions.
    var executed: Int { running.load(Running.runs) }
    /// Cancellations that ended an action.
    var cancelled: Int { running.load(Running.oneShotCancelled) + running.load(Running.repeatingCancelled) }
    /// One-shot actions neither run nor cancelled yet.
    var pending: Int { max(scheduling.load(0) - endedCount(0), 0) }
    /// Repeating actions not cancelled yet.
    var activeRepeating: Int { max(scheduling.load(1) - endedCount(1), 0) }
    /// Actions that ran too long.
    var longActions: Int { running.load(Running.long) }
    /// Runs off the expected thread.
    var threadViolations: Int { running.load(Running.violations) }

    /// Registered, ended and the most alive at once, of `kind` (zero for kinds probes do not make).
    func counts(of kind: ResourceKind) -> LaneCounts {
        guard kind == .scheduledAction || kind == .timer else { return LaneCounts() }
        let side = Self.side(kind)
        return LaneCounts(registered: scheduling.load(side), ended: endedCount(side), peak: scheduling.load(2 + side))
    }
}
