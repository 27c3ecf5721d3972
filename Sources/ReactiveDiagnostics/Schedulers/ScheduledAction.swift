import Synchronization

/// One scheduled action, as tracked by a ``SchedulerProbe``.
///
/// An action made with ``SchedulerProbe/willSchedule(running:)`` carries the work itself:
/// hand its ``run()`` to the wrapped scheduler, and the action is the only object the wrapper
/// adds (a closure of one method on one object needs no context of its own). Once it ran and
/// nothing else refers to it, it is used again for a later action: no allocation per action
/// once a scheduler is warm.
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
public final class ScheduledAction: @unchecked Sendable {
    // Unchecked: the fields change only when an action is reused, after every use of it ended
    // (it was handed back through a thread's pool, and is referenced by nothing else), and an
    // action reaches the thread that runs it through the scheduler, as any action does. For
    // the same reason their accesses need no dynamic exclusivity checks.
    /// The probe that tracks it. Not reference-counted: the thread that schedules and the one
    /// that runs never write the probe's count (probes live as long as the process; see
    /// ``SchedulerProbe``).
    public var probe: SchedulerProbe {
        probeReference.takeUnretainedValue()
    }

    @exclusivity(unchecked) private var probeReference: Unmanaged<SchedulerProbe>
    /// Where it was scheduled.
    @exclusivity(unchecked) public private(set) var stack: StackID
    /// The test that scheduled it.
    @exclusivity(unchecked) public private(set) var test: TestIdentity
    /// Its ledger token.
    @exclusivity(unchecked) public private(set) var token: ResourceToken
    /// Whether it repeats.
    @exclusivity(unchecked) public private(set) var isRepeating: Bool
    private let reference: Atomic<UInt64>
    private let done = Atomic<Bool>(false)
    /// The work, handed over to the thread that runs it the way a scheduler hands over any
    /// action (Combine's and RxSwift's actions are not `Sendable`).
    @exclusivity(unchecked) private var body: () -> Void
    /// Whether it carries its work (and goes back to a pool once it ran).
    @exclusivity(unchecked) private var carriesWork: Bool

    init(
        probe: SchedulerProbe, stack: StackID, test: TestIdentity, token: ResourceToken, isRepeating: Bool,
        enqueuedAt: UInt64, body: (() -> Void)?
    ) {
        probeReference = Unmanaged.passUnretained(probe)
        self.stack = stack
        self.test = test
        self.token = token
        self.isRepeating = isRepeating
        self.body = body ?? Self.nothing
        carriesWork = body != nil
        reference = Atomic(enqueuedAt)
    }

    /// A one-shot action carrying `body`: one from the thread's pool when there is one.
    static func make(
        probe: SchedulerProbe, stack: StackID, test: TestIdentity, token: ResourceToken, enqueuedAt: UInt64,
        body: @escaping () -> Void
    ) -> ScheduledAction {
        guard let action = ScheduledActionPool.take() else {
            return ScheduledAction(
                probe: probe, stack: stack, test: test, token: token, isRepeating: false, enqueuedAt: enqueuedAt,
                body: body)
        }
        action.probeReference = Unmanaged.passUnretained(probe)
        action.stack = stack
        action.test = test
        action.token = token
        action.isRepeating = false
        action.body = body
        action.carriesWork = true
        action.reference.store(enqueuedAt, ordering: .relaxed)
        action.done.store(false, ordering: .relaxed)
        return action
    }

    private static let nothing: @Sendable () -> Void = {}

    /// Runs the work it was made with (``SchedulerProbe/willSchedule(running:)``), bracketed
    /// by ``SchedulerProbe/willRun(_:)`` and ``SchedulerProbe/didRun(_:_:)``; then the work is
    /// released and the action handed to this thread's pool.
    public func run() {
        probeReference._withUnsafeGuaranteedRef { probe in
            let run = probe.willRun(self)
            body()
            probe.didRun(self, run)
        }
        if carriesWork {
            body = Self.nothing
            ScheduledActionPool.recycle(self)
        }
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
