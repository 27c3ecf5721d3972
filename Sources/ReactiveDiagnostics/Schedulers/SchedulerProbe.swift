import CReactiveDiagnostics
import Dispatch
import ReactiveDiagnosticsReport
import Synchronization

/// The engine side of a diagnostic scheduler: counts, pending work, latency, threads.
///
/// An adapter wraps a framework scheduler and reports each action's life to its probe:
///
/// ```swift
/// let probe = engine.makeSchedulerProbe(label: "ui", expectation: .mainQueue)
/// let action = probe.willSchedule()                 // captures where it was scheduled
/// queue.async {
///     let run = probe.willRun(action)               // latency, thread check
///     work()
///     probe.didRun(action, run)                     // duration, long-action check
/// }
/// ```
///
/// A one-shot action is a live ``ResourceKind/scheduledAction`` until it runs or is
/// cancelled, so one still pending at its test's end is a ``FindingKind/pendingAction``.
/// A repeating action is a live ``ResourceKind/timer`` until cancelled.
public final class SchedulerProbe: Sendable {
    /// The engine findings go to.
    public let engine: DiagnosticsEngine
    /// The scheduler's label.
    public let label: DiagnosticLabel
    /// Where actions must run, if anywhere in particular.
    public let expectation: ThreadExpectation?
    /// Actions running longer than this are ``FindingKind/longAction``s.
    public let longActionThreshold: Duration

    private let counters = AtomicCounters(count: 6)  // scheduled, executed, cancelled, long, violations, pendingOneShot
    private let latency = LatencyHistogram()
    private let duration = LatencyHistogram()
    /// Runs per thread: one counter per thread number (see `rdiag_thread_shard`), so counting a
    /// run is one relaxed atomic add; a thread's name is read once, when it is first seen.
    private let threadRuns = AtomicCounters(count: SchedulerProbe.threadSlots)
    private let threadNames = LockedValue([Int: (name: String, isMainQueue: Bool)]())
    static let threadSlots = 64
    private let longThresholdNanos: UInt64

    init(engine: DiagnosticsEngine, label: DiagnosticLabel, expectation: ThreadExpectation?, longActionThreshold: Duration) {
        self.engine = engine
        self.label = label
        self.expectation = expectation
        self.longActionThreshold = longActionThreshold
        let (seconds, attoseconds) = longActionThreshold.components
        longThresholdNanos = UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
    }

    /// An action is being scheduled. Captures the scheduling stack and registers the action
    /// as live (``ResourceKind/timer`` when `repeating`).
    public func willSchedule(repeating: Bool = false) -> ScheduledAction {
        counters.add(0, 1)
        let stack = engine.captureAllocationStack()
        let test = engine.currentTest()
        let kind: ResourceKind = repeating ? .timer : .scheduledAction
        let token = engine.ledger.register(kind: kind, label: label, stack: stack, test: test)
        if !repeating {
            counters.add(5, 1)
        }
        return ScheduledAction(
            probe: self, stack: stack, test: test, token: token, isRepeating: repeating,
            enqueuedAt: DispatchTime.now().uptimeNanoseconds)
    }

    /// The action is starting on the current thread. Records latency and the thread, and
    /// checks the expectation. Pass the result to ``didRun(_:_:)``.
    public func willRun(_ action: ScheduledAction) -> ActionRun {
        let now = DispatchTime.now().uptimeNanoseconds
        let reference = action.claimRun(at: now)
        latency.record(nanoseconds: now &- reference)
        counters.add(1, 1)
        let onMain = MainQueue.isCurrent
        noteThread(onMain: onMain)
        if let expectation, !expectation.isSatisfied() {
            counters.add(4, 1)
            engine.record(FindingDraft(
                kind: .wrongThread,
                message: "scheduler '\(label.name)' ran an action off the \(expectation); it was scheduled from the allocation stack shown",
                label: label.name, resourceKind: action.isRepeating ? .timer : .scheduledAction, test: action.test,
                allocationStack: action.stack, details: ["expected": expectation.description, "event": "action"]))
        }
        let previous = action.test.isKnown ? TestIdentity.enterThreadTest(action.test) : 0
        return ActionRun(startedAt: now, previousTest: previous)
    }

    /// The action returned.
    public func didRun(_ action: ScheduledAction, _ run: ActionRun) {
        if action.test.isKnown {
            TestIdentity.leaveThreadTest(run.previousTest)
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds &- run.startedAt
        duration.record(nanoseconds: elapsed)
        if elapsed > longThresholdNanos {
            counters.add(3, 1)
            engine.record(FindingDraft(
                kind: .longAction,
                message: "scheduler '\(label.name)' ran an action for \(Self.milliseconds(elapsed)) ms, longer than the \(Self.milliseconds(longThresholdNanos)) ms threshold: it blocked the queue",
                label: label.name, resourceKind: action.isRepeating ? .timer : .scheduledAction, test: action.test,
                allocationStack: action.stack,
                details: ["durationNanos": "\(elapsed)", "thresholdNanos": "\(longThresholdNanos)"]))
        }
        if !action.isRepeating, action.finish() {
            counters.add(5, -1)
            engine.ledger.unregister(action.token)
        }
    }

    /// The action (or repeating action) was cancelled.
    public func didCancel(_ action: ScheduledAction) {
        guard action.finish() else { return }
        counters.add(2, 1)
        if !action.isRepeating {
            counters.add(5, -1)
        }
        engine.ledger.unregister(action.token)
    }

    private func noteThread(onMain: Bool) {
        let slot = Int(rdiag_thread_shard()) % Self.threadSlots
        if threadRuns.add(slot, 1) == 1 {
            let info = ThreadInfo.current
            let named = info.name ?? info.queue.map { "queue \($0)" }
            let name = onMain ? "main queue" : named.map { "\($0) (\(info.id))" } ?? "thread \(info.id)"
            threadNames.withLock { $0[slot] = (name, onMain) }
        }
    }

    static func milliseconds(_ nanos: UInt64) -> String {
        let value = Double(nanos) / 1_000_000
        return value >= 10 ? String(Int(value.rounded())) : String(Double(Int(value * 10)) / 10)
    }

    /// The probe's statistics.
    public func summary() -> SchedulerSummary {
        let names = threadNames.withLock { $0 }
        var merged: [String: ThreadCount] = [:]
        for slot in 0..<Self.threadSlots {
            let runs = threadRuns.load(slot)
            guard runs > 0 else { continue }
            // More threads than slots share a slot: its runs go to the first thread seen there.
            let (name, isMainQueue) = names[slot] ?? ("thread slot \(slot)", false)
            merged[name, default: ThreadCount(thread: name, isMainQueue: isMainQueue, count: 0)].count += runs
        }
        return SchedulerSummary(
            label: label.name, scheduled: counters.load(0), executed: counters.load(1), cancelled: counters.load(2),
            pending: max(counters.load(5), 0), activeRepeating: activeRepeatingCount(),
            longActions: counters.load(3), threadViolations: counters.load(4), expectation: expectation?.description,
            latency: latency.summary(), duration: duration.summary(),
            threads: merged.values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.thread < $1.thread })
    }

    private func activeRepeatingCount() -> Int {
        engine.ledger.liveResources(where: { $0.kind == ResourceKind.timer.index && $0.label == self.label.id }).count
    }
}

/// One scheduled action, as tracked by a ``SchedulerProbe``.
///
/// ```swift
/// let action = probe.willSchedule(repeating: true)   // a live timer from here
/// timer.onFire = {
///     let run = probe.willRun(action)
///     tick()
///     probe.didRun(action, run)
/// }
/// timer.onCancel = { probe.didCancel(action) }      // ended: no uncancelledTimer
/// ```
public final class ScheduledAction: Sendable {
    /// The probe that tracks it.
    public let probe: SchedulerProbe
    /// Where it was scheduled.
    public let stack: StackID
    /// The test that scheduled it.
    public let test: TestIdentity
    /// Its ledger token.
    public let token: ResourceToken
    /// Whether it repeats.
    public let isRepeating: Bool
    private let reference: Atomic<UInt64>
    private let done = Atomic<Bool>(false)

    init(probe: SchedulerProbe, stack: StackID, test: TestIdentity, token: ResourceToken, isRepeating: Bool, enqueuedAt: UInt64) {
        self.probe = probe
        self.stack = stack
        self.test = test
        self.token = token
        self.isRepeating = isRepeating
        reference = Atomic(enqueuedAt)
    }

    /// Sets the time the next run is expected (for delayed and repeating actions the
    /// latency is measured from the due time, not the enqueue time).
    public func expectRun(atUptimeNanoseconds due: UInt64) {
        reference.store(due, ordering: .relaxed)
    }

    /// Returns the reference time for this run's latency.
    func claimRun(at now: UInt64) -> UInt64 {
        let due = reference.load(ordering: .relaxed)
        return min(due, now)
    }

    /// Marks it finished; `true` for the first caller only.
    func finish() -> Bool {
        !done.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Whether it has run (one-shot) or been cancelled.
    public var isFinished: Bool {
        done.load(ordering: .relaxed)
    }
}

/// What ``SchedulerProbe/willRun(_:)`` hands to ``SchedulerProbe/didRun(_:_:)``.
///
/// ```swift
/// let run = probe.willRun(action)   // started: latency measured, thread checked
/// work()
/// probe.didRun(action, run)         // ended: duration measured, long action checked
/// ```
public struct ActionRun: Sendable {
    let startedAt: UInt64
    let previousTest: UInt32
}
