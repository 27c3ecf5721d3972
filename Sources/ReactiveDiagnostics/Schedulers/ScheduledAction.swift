import Synchronization

/// One scheduled action, as tracked by a ``SchedulerProbe``.
///
/// An action made with ``SchedulerProbe/willSchedule(running:)`` carries the work itself:
/// hand its ``run()`` to the wrapped scheduler, and the action is the only object the wrapper
/// adds (a closure of one method on one object needs no context of its own).
public final class ScheduledAction: Sendable {
    /// The probe that tracks it. Not reference-counted: the thread that schedules and the one
    /// that runs never write the probe's count (probes live as long as the process; see
    /// ``SchedulerProbe``).
    public var probe: SchedulerProbe {
        probeReference.takeUnretainedValue()
    }

    private let probeReference: Unmanaged<SchedulerProbe>
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
    /// The work, handed over to the thread that runs it the way a scheduler hands over any
    /// action (Combine's and RxSwift's actions are not `Sendable`).
    private nonisolated(unsafe) let body: () -> Void

    init(
        probe: SchedulerProbe, stack: StackID, test: TestIdentity, token: ResourceToken, isRepeating: Bool,
        enqueuedAt: UInt64, body: @escaping () -> Void
    ) {
        probeReference = Unmanaged.passUnretained(probe)
        self.stack = stack
        self.test = test
        self.token = token
        self.isRepeating = isRepeating
        self.body = body
        reference = Atomic(enqueuedAt)
    }

    /// Runs the work it was made with (``SchedulerProbe/willSchedule(running:)``), bracketed
    /// by ``SchedulerProbe/willRun(_:)`` and ``SchedulerProbe/didRun(_:_:)``.
    public func run() {
        probeReference._withUnsafeGuaranteedRef { probe in
            let run = probe.willRun(self)
            body()
            probe.didRun(self, run)
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
public struct ActionRun: Sendable {
    let startedAt: UInt64
    let previousTest: UInt32
}
