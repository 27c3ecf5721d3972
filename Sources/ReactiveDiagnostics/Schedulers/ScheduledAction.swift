import CReactiveDiagnostics
import Synchronization

/// One scheduled action, as tracked by a ``SchedulerProbe``.
///
/// An action made with ``SchedulerProbe/willSchedule(running:)`` carries the work itself:
/// hand its ``run()`` to the wrapped scheduler, and the action is the only object the wrapper
/// adds (a closure of one method on one object needs no context of its own). Actions are kept
/// in a lane of the thread that scheduled them, which is both what checkpoints read to find
/// pending actions and the thread's pool: once an action ran and nothing else refers to it,
/// it is filled again for a later one, so a warm scheduler allocates nothing per action.
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
@usableFromInline package final class ScheduledAction: @unchecked Sendable {
    // Unchecked: an action is filled again only by the thread whose lane holds it, once it
    // ended (ran or was cancelled) and nothing else refers to it. Everything a scheduler's
    // thread may read after the action ended (a timer's late fire, a cancel racing a run) is
    // atomic, and so is what a checkpoint reads while the action may be filled again (read as
    // a seqlock, see `record(ledger:)`). The work is the one plain field: written when filled,
    // read and released by the thread that runs it before it ends. The probe reference is
    // changed only where the action is filled again, or by a checkpoint that has excluded the
    // lane's owner (`ActionLane.reclaimQuietLanes`), both for an ended action nothing else holds.
    /// The probe that tracks it. The action holds it (one reference, taken when the action is
    /// filled for a probe other than the one it held, and given back then or when the action is
    /// released), so a run that comes after its scheduler was dropped (a timer's late fire, a
    /// cancelled action's block) still finds it; refilled for the same probe, as a warm
    /// scheduler's actions are, it writes no reference count (see ``SchedulerProbe``).
    package var probe: SchedulerProbe {
        probeReference.takeUnretainedValue()
    }

    private var probeReference: Unmanaged<SchedulerProbe> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: probeWord.load(ordering: .relaxed)).unsafelyUnwrapped)
    }

    /// Where it was scheduled.
    package var stack: StackID {
        StackID(rawValue: stackWord.load(ordering: .relaxed))
    }

    /// The test that scheduled it.
    package var test: TestIdentity {
        TestIdentity(rawValue: testWord.load(ordering: .relaxed))
    }

    /// Its token from a recorder of its own (see ``DiagnosticsRecorder``); ``ResourceToken/none``
    /// for an engine's probe, whose actions the engine finds in the lanes of the threads that
    /// scheduled them instead of registering each one.
    package var token: ResourceToken {
        ResourceToken(rawValue: tokenWord.load(ordering: .relaxed))
    }

    /// Whether it repeats.
    package var isRepeating: Bool {
        kind == .timer
    }

    /// ``ResourceKind/timer`` when it repeats, else ``ResourceKind/scheduledAction``.
    var kind: ResourceKind {
        ResourceKind(index: UInt8(truncatingIfNeeded: state.load(ordering: .relaxed) >> 8))
    }

    /// Generation (upper 48 bits), resource kind (8 bits) and phase (live or ended).
    private let state = Atomic<UInt64>(0)
    private let probeWord = Atomic<UInt>(0)
    private let tokenWord = Atomic<UInt64>(0)
    private let stackWord = Atomic<UInt32>(0)
    private let testWord = Atomic<UInt32>(0)
    private let labelWord = Atomic<UInt32>(0)
    private let epochWord = Atomic<UInt32>(0)
    /// The ledger that counts it (``ResourceLedger/id``), 0 for none.
    private let ledgerWord = Atomic<UInt32>(0)
    private let reference = Atomic<UInt64>(0)
    /// The work, handed over to the thread that runs it the way a scheduler hands over any
    /// action (Combine's and RxSwift's actions are not `Sendable`).
    @exclusivity(unchecked) private var body: () -> Void = ScheduledAction.nothing

    private static let live: UInt64 = 1

    /// The bytes of an instance, header included (16, then the fields above and below: 72):
    /// what a lane prefetches before it fills an action again. A test checks it against the
    /// allocation.
    @inline(__always)
    static var instanceBytes: Int { 88 }

    /// A new action, live with `filling`.
    init(_ filling: borrowing Filling, body: @escaping () -> Void) {
        fill(filling, body: body)
    }

    deinit {
        releaseProbe()
    }

    /// Gives back the action's reference to its probe (the probe may be released with it).
    private func releaseProbe() {
        let held = takeProbe()
        if held != 0 {
            Self.giveBack(held)
        }
    }

    /// The address of the probe the action holds, whose reference the caller now owns (0 for
    /// none): for an ended action that its lane alone refers to, by the lane's owner or a
    /// checkpoint that excluded it (see `ActionLane.reclaimQuietLanes`).
    func takeProbe() -> UInt {
        let held = probeWord.load(ordering: .relaxed)
        probeWord.store(0, ordering: .relaxed)
        return held
    }

    /// What an action is filled with when it is scheduled, besides its work.
    struct Filling: ~Copyable {
        /// Not retained here: the action takes its own reference if it held another probe.
        unowned(unsafe) var probe: SchedulerProbe
        var kind: ResourceKind
        var stack: StackID
        var test: TestIdentity
        var token: ResourceToken
        var ledger: UInt32
        var epoch: UInt32
        /// When it was scheduled, in ticks of `rdiag_ticks`; 0 when its latency is not measured.
        var enqueuedAt: UInt64
    }

    /// Makes an ended action live again with `filling` and `body` (its work, or
    /// ``nothing``); on the thread whose lane holds it.
    @inline(__always)
    func fill(_ filling: borrowing Filling, body: @escaping () -> Void) {
        let previous = state.load(ordering: .acquiring)
        // The checkpoints reading this action as a seqlock must see the end of its previous use
        // before any of the new values (see `record(ledger:)`).
        atomicMemoryFence(ordering: .releasing)
        self.body = body
        let probe = UInt(bitPattern: Unmanaged.passUnretained(filling.probe).toOpaque())
        let held = probeWord.load(ordering: .relaxed)
        if held != probe {
            hold(filling.probe)
        }
        tokenWord.store(filling.token.rawValue, ordering: .relaxed)
        stackWord.store(filling.stack.rawValue, ordering: .relaxed)
        testWord.store(filling.test.rawValue, ordering: .relaxed)
        labelWord.store(filling.probe.label.id, ordering: .relaxed)
        epochWord.store(filling.epoch, ordering: .relaxed)
        ledgerWord.store(filling.ledger, ordering: .relaxed)
        reference.store(filling.enqueuedAt, ordering: .relaxed)
        let generation = (previous >> 16) &+ 1
        state.store(generation << 16 | UInt64(filling.kind.index) << 8 | Self.live, ordering: .releasing)
        if held != probe, held != 0 {
            // Once the action is filled: the probe's release may release its recorder.
            Self.giveBack(held)
        }
    }

    /// Holds `probe` instead of the probe it held, which `fill` gives back once the action is
    /// filled. Out of line, as is ``giveBack(_:)``: a warm scheduler's actions are filled again
    /// for the probe they hold, with no reference counted.
    @inline(never)
    private func hold(_ probe: SchedulerProbe) {
        probeWord.store(UInt(bitPattern: Unmanaged.passRetained(probe).toOpaque()), ordering: .relaxed)
    }

    /// Releases the probe at `address`, a reference an action held.
    @inline(never)
    private static func giveBack(_ address: UInt) {
        Unmanaged<SchedulerProbe>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped).release()
    }

    /// The work of an action that carries none.
    static let nothing: @Sendable () -> Void = {}

    /// Runs the work it was made with (``SchedulerProbe/willSchedule(running:)``), bracketed
    /// by ``SchedulerProbe/willRun(_:)`` and ``SchedulerProbe/didRun(_:_:)``; then the work is
    /// released (the action stays in its lane, to be filled again).
    @usableFromInline package func run() {
        probeReference._withUnsafeGuaranteedRef { probe in
            let run = probe.willRun(self)
            // Taken out before the action ends (in `didRun`): once it ended, its thread may
            // fill it again. The work itself is released after the run.
            let work = body
            body = Self.nothing
            work()
            probe.didRun(self, run)
        }
    }

    /// Sets the time the next run is expected (for delayed and repeating actions the
    /// latency is measured from the due time, not the enqueue time).
    package func expectRun(atUptimeNanoseconds due: UInt64) {
        reference.store(rdiag_ticks_at_uptime(due), ordering: .relaxed)
    }

    /// Returns the reference time for this run's latency, in ticks of `rdiag_ticks`: when it
    /// was scheduled, or when it was due; 0 when its latency is not measured (see
    /// ``SchedulerProbe/timesLatency(ofAction:)``).
    func claimRun(at now: UInt64) -> UInt64 {
        let due = reference.load(ordering: .relaxed)
        return min(due, now)
    }

    /// Marks it finished; `true` for the first caller only.
    func finish() -> Bool {
        var current = state.load(ordering: .relaxed)
        while current & Self.live != 0 {
            let (exchanged, original) = state.weakCompareExchange(
                expected: current, desired: current & ~Self.live, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Whether it has run (one-shot) or been cancelled.
    package var isFinished: Bool {
        state.load(ordering: .acquiring) & Self.live == 0
    }

    /// What a checkpoint sees of it while it is live and counted by the ledger `ledger`, read
    /// without a lock while its thread may fill it again: the state is read before and after
    /// the fields, and a change means it ended (or was reused) meanwhile.
    func record(ledger: UInt32) -> (slot: ResourceLedger.Slot, generation: UInt64)? {
        let before = state.load(ordering: .acquiring)
        guard before & Self.live != 0 else { return nil }
        let slot = ResourceLedger.Slot(
            stack: stackWord.load(ordering: .relaxed), label: labelWord.load(ordering: .relaxed),
            test: testWord.load(ordering: .relaxed), epoch: epochWord.load(ordering: .relaxed),
            kind: UInt8(truncatingIfNeeded: before >> 8))
        let owner = ledgerWord.load(ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiring)
        guard state.load(ordering: .relaxed) == before, owner == ledger else { return nil }
        return (slot, before >> 16)
    }
}

/// What ``SchedulerProbe/willRun(_:)`` hands to ``SchedulerProbe/didRun(_:_:)``.
///
/// ```swift
/// let run = probe.willRun(action)   // started: latency measured, thread checked
/// work()
/// probe.didRun(action, run)         // ended: duration measured, long action checked
/// ```
package struct ActionRun: Sendable {
    /// When it started, in ticks of `rdiag_ticks`.
    let startedAt: UInt64
    let previousTest: UInt32
    /// Whether its latency was measured: its duration then goes to the histogram too.
    let sampled: Bool
}
