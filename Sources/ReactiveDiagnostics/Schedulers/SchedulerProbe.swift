import CReactiveDiagnostics
import Dispatch
import ReactiveDiagnosticsReport
import Synchronization
import _ReactiveDiagnosticsSupport

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
///
/// A probe depends on its ``DiagnosticsRecorder`` only (the engine, for adapters). Under the
/// ``FindingPolicy/trap`` policy it traps once it is done with the action's bookkeeping.
///
/// The thread that schedules and the one that runs write different cache lines: what is
/// counted when scheduling and when running are kept apart. What a probe counts is its label's:
/// an engine's probes of one label share their statistics and are one row of the report, so a
/// probe itself is small and lives as long as what uses it: its schedulers (which hold it) and
/// its actions, each of which holds its probe until it is filled again for another probe or
/// released (a warm scheduler's actions are filled again for the probe they hold, so
/// scheduling counts no reference). An ended action its lane alone holds gives its probe back
/// when its thread has gone quiet, at the engine's next checkpoint (see `ActionLane`).
@usableFromInline package final class SchedulerProbe: Sendable {
    /// Where actions are registered and findings go (the engine, unless a test gave its own).
    package let recorder: any DiagnosticsRecorder
    /// The scheduler's label.
    package let label: DiagnosticLabel
    /// Where actions must run, if anywhere in particular.
    package let expectation: ThreadExpectation?
    /// Actions running longer than this are ``FindingKind/longAction``s.
    package let longActionThreshold: Duration
    /// Whether every action runs on one dispatch queue (see ``init(recorder:label:expectation:longActionThreshold:fixedQueue:)``).
    package let fixedQueue: Bool
    /// With ``fixedQueue``: whether the actions run on the main queue, as the first run found
    /// (0 not known yet, 1 on it, 2 off it).
    private let fixedQueueIsMain = Atomic<UInt8>(0)

    /// What the schedulers of this probe's label counted, together (an engine's probes of one
    /// label share it: see `SchedulerStatistics`).
    let statistics: SchedulerStatistics
    /// Scheduled, run, cancelled…: what the scheduling threads write and what the running
    /// threads write on separate cache lines (the label's, kept here for the hot path).
    let counts: SchedulerCounts
    private let latency: LatencyHistogram
    private let duration: LatencyHistogram
    /// Runs per thread of the label (see `SchedulerStatistics`).
    private let threadRuns: AtomicCounters
    /// Thread slots (a power of two): threads beyond share them.
    static let threadSlots = SchedulerStatistics.threadSlots
    /// Counters between two threads' slots.
    static let threadSlotStride = SchedulerStatistics.threadSlotStride
    private let longThresholdNanos: UInt64
    /// The same in ticks of `rdiag_ticks`, what runs are timed in.
    private let longThresholdTicks: UInt64
    /// `true` for ``ThreadExpectation/mainQueue``, `false` for ``ThreadExpectation/offMainQueue``,
    /// `nil` otherwise.
    private let expectsMainQueue: Bool?
    /// When the recorder keeps actions in lanes (`ActionLaneHost`: an engine), who an action
    /// scheduled now belongs to: actions are then kept in the scheduling threads' lanes and
    /// counted for its ledger by ``counts``, not registered one by one (see `ActionLane`). The
    /// owners are held unretained (the host keeps them, and ``recorder`` the host): the threads
    /// that schedule would otherwise all write their count.
    private let laneOwners: Unmanaged<LaneOwners>
    /// Whether ``laneOwners`` is the host's (else the probe registers every action).
    private let keepsLanes: Bool
    /// The number of the host's ledger (0 without a host), which actions carry.
    private let ledgerID: UInt32

    /// Creates a probe that records to `recorder`. Adapters use
    /// `DiagnosticsEngine.makeSchedulerProbe(label:expectation:longActionThreshold:fixedQueue:)` (`@_spi(Integration)`),
    /// which also lists the probe in the report.
    ///
    /// - Parameters:
    ///   - recorder: Where actions are registered and findings go.
    ///   - label: The scheduler's name in findings and the report.
    ///   - expectation: Where actions must run, if anywhere in particular.
    ///   - longActionThreshold: Actions running longer are ``FindingKind/longAction``s.
    ///   - fixedQueue: `true` when every action runs on one dispatch queue (the scheduler
    ///     wraps a `DispatchQueue`): whether a queue's blocks run on the main queue is set by
    ///     the queues it targets, so the main-queue rule of `expectation` is then asked of the
    ///     first run only (a `dispatch_get_specific` less per run). Leave it `false` for
    ///     schedulers that run actions where they are called (an immediate or test scheduler),
    ///     on a run loop, or on an operation queue, whose runs are each asked.
    package init(
        recorder: any DiagnosticsRecorder, label: DiagnosticLabel, expectation: ThreadExpectation? = nil,
        longActionThreshold: Duration = .milliseconds(250), fixedQueue: Bool = false
    ) {
        self.recorder = recorder
        self.label = label
        self.expectation = expectation
        self.fixedQueue = fixedQueue
        expectsMainQueue = expectation?.mainQueueRule
        self.longActionThreshold = longActionThreshold
        let (seconds, attoseconds) = longActionThreshold.components
        longThresholdNanos = UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
        rdiag_ticks_prepare()
        longThresholdTicks = rdiag_nanoseconds_to_ticks(longThresholdNanos)
        let host = recorder as? any ActionLaneHost
        keepsLanes = host != nil
        laneOwners = .passUnretained(host?.laneOwners ?? Self.noLanes)
        ledgerID = host?.laneLedgerID ?? 0
        let statistics =
            host?.schedulerStatistics(label: label.name, expectation: expectation?.description)
            ?? SchedulerStatistics(label: label.name, expectation: expectation?.description)
        statistics.noteInstance()
        self.statistics = statistics
        counts = statistics.counts
        latency = statistics.latency
        duration = statistics.duration
        threadRuns = statistics.threadRuns
    }

    deinit {
        statistics.noteInstanceReleased()
    }

    /// The owners of a probe that keeps no lanes (never asked).
    private static let noLanes = LaneOwners()

    /// An action is being scheduled. Registers it as live (``ResourceKind/timer`` when
    /// `repeating`) with the scheduling stack: `stack`, or the caller's stack captured now
    /// when `nil`, for the test `test`, or the caller's (``DiagnosticsRecorder/currentTest()``)
    /// when `nil`.
    ///
    /// Pass a stack when the caller's says nothing of where the action comes from: a task
    /// executor's job is enqueued by the Swift runtime (an `async` caller reaches it by a tail
    /// call, so no user frame is on the thread's stack), and the executor passes the stack
    /// where it was made instead, captured once. Pass a test when the caller has resolved it
    /// already (with an engine, a test that is not known falls back to its serial test).
    ///
    /// ```swift
    /// let madeAt = engine.captureAllocationStack()           // once, where the executor is made
    /// let action = probe.willSchedule(stack: madeAt)          // per job: no stack walk
    /// ```
    package func willSchedule(
        repeating: Bool = false, stack: StackID? = nil, test: TestIdentity? = nil
    ) -> ScheduledAction {
        schedule(repeating ? .timer : .scheduledAction, stack: stack, test: test, body: ScheduledAction.nothing)
    }

    /// A one-shot action that carries `work`: hand its ``ScheduledAction/run()`` to the wrapped
    /// scheduler (the action is then the only object the wrapper adds per action).
    ///
    /// ```swift
    /// let action = probe.willSchedule(running: work)
    /// queue.async(execute: action.run)
    /// ```
    @usableFromInline package func willSchedule(running work: @escaping () -> Void) -> ScheduledAction {
        schedule(.scheduledAction, stack: nil, test: nil, body: work)
    }

    /// A one-shot action that carries `work`, scheduled from the stack `stack` for the test
    /// `test` (either captured or resolved here when `nil`, as for
    /// ``willSchedule(repeating:stack:test:)``): what an executor uses, which knows both better
    /// than the thread that enqueues its jobs.
    ///
    /// ```swift
    /// let action = probe.willSchedule(stack: madeAt, test: test) { job.runSynchronously(on: executor) }
    /// direct.async(action)   // or queue.async(execute: action.run)
    /// ```
    package func willSchedule(
        stack: StackID?, test: TestIdentity?, running work: @escaping () -> Void
    ) -> ScheduledAction {
        schedule(.scheduledAction, stack: stack, test: test, body: work)
    }

    /// Fills an action of this thread's lane (or a new one): with an engine, counted by its
    /// ledger and found in the lane by checkpoints; with another recorder, registered with it.
    @inline(__always)
    private func schedule(
        _ kind: ResourceKind, stack: StackID?, test: TestIdentity?, body: @escaping () -> Void
    ) -> ScheduledAction {
        let enqueuedAt = Self.timesLatency(ofAction: counts.noteScheduled(kind)) ? rdiag_ticks() : 0
        if keepsLanes {
            let owner = laneOwners._withUnsafeGuaranteedRef { $0.owner(stack: stack, test: test) }
            let filling = ScheduledAction.Filling(
                probe: self, kind: kind, stack: owner.stack, test: owner.test, token: .none, ledger: ledgerID,
                epoch: owner.epoch, enqueuedAt: enqueuedAt)
            return ActionLane.take(filling, body: body)
        }
        let resource = recorder.register(kind, label: label, stack: stack, test: test.flatMap { $0.isKnown ? $0 : nil })
        let filling = ScheduledAction.Filling(
            probe: self, kind: kind, stack: resource.stack, test: resource.test, token: resource.token, ledger: 0,
            epoch: 0, enqueuedAt: enqueuedAt)
        return ActionLane.take(filling, body: body)
    }

    /// Whether the `number`th action a probe schedules (from 1) has its latency measured: every
    /// one of the first ``latencyEveryActionUpTo``, then one in ``latencySampling``. The
    /// scheduling thread then reads the clock for one action in eight, while a test's few
    /// actions are all measured; actions with a due time (``ScheduledAction/expectRun(atUptimeNanoseconds:)``)
    /// are always measured, from it. The runs of the same actions go to the duration
    /// histogram; every run is checked against the long-action threshold and kept in the
    /// duration's shortest and longest.
    @inline(__always)
    static func timesLatency(ofAction number: Int) -> Bool {
        number <= latencyEveryActionUpTo || number & (latencySampling - 1) == 0
    }

    /// Actions of a probe whose latency is always measured.
    package static let latencyEveryActionUpTo = 256
    /// Beyond them, one action in this many has its latency measured (a power of two).
    package static let latencySampling = 8

    /// Unregisters an ended action from a recorder that keeps no lanes (a lane host's ledger
    /// counts actions through ``counts``). `token` is read before the action ended: its thread
    /// may fill it again from then on.
    @inline(__always)
    private func unregister(_ token: ResourceToken) {
        if !keepsLanes {
            recorder.unregister(token)
        }
    }

    /// The action is starting on the current thread. Records latency and the thread, and
    /// checks the expectation. Pass the result to ``didRun(_:_:)``.
    package func willRun(_ action: ScheduledAction) -> ActionRun {
        let now = rdiag_ticks()
        let reference = action.claimRun(at: now)
        if reference != 0 {
            latency.record(nanoseconds: rdiag_ticks_to_nanoseconds(now &- reference))
        }
        var onMain: Bool?  // asked at most once: the main-queue check is a queue lookup
        noteThread(onMain: &onMain)
        var trap = PendingTrap()
        if !expectationMet(onMain: &onMain) {
            reportWrongThread(action, &trap)
        }
        let previous = action.test.isKnown ? TestIdentity.enterThreadTest(action.test) : 0
        trap.fire(recorder)
        return ActionRun(startedAt: now, previousTest: previous, sampled: reference != 0)
    }

    /// Whether the calling thread is where actions must run (the main-queue rules without
    /// copying the expectation).
    @inline(__always)
    private func expectationMet(onMain: inout Bool?) -> Bool {
        if let wantsMainQueue = expectsMainQueue {
            let isMain = onMain ?? runsOnMainQueue()
            onMain = isMain
            return isMain == wantsMainQueue
        }
        return expectation?.isSatisfied() ?? true
    }

    /// Whether this run is on the main queue: asked of Dispatch, or with ``fixedQueue``, of
    /// the first run only.
    @inline(__always)
    private func runsOnMainQueue() -> Bool {
        guard fixedQueue else { return MainQueue.isCurrent }
        let known = fixedQueueIsMain.load(ordering: .relaxed)
        if known != 0 {
            return known == 1
        }
        let isMain = MainQueue.isCurrent
        fixedQueueIsMain.store(isMain ? 1 : 2, ordering: .relaxed)
        return isMain
    }

    @inline(never)
    private func reportWrongThread(_ action: ScheduledAction, _ trap: inout PendingTrap) {
        guard let expectation else { return }
        counts.noteViolation()
        trap.note(
            recorder.report(
                FindingDraft(
                    kind: .wrongThread,
                    message:
                        "scheduler '\(label.name)' ran an action off the \(expectation); it was scheduled from the allocation stack shown",
                    label: label.name, resourceKind: action.isRepeating ? .timer : .scheduledAction, test: action.test,
                    allocationStack: action.stack, details: ["expected": expectation.description, "event": "action"])))
    }

    /// The action returned.
    package func didRun(_ action: ScheduledAction, _ run: ActionRun) {
        if action.test.isKnown {
            TestIdentity.leaveThreadTest(run.previousTest)
        }
        let now = rdiag_ticks()
        // Where ticks are nanoseconds of the uptime clock, it is re-anchored every millisecond
        // and may step back a fraction of a microsecond.
        let ticks = now > run.startedAt ? now - run.startedAt : 0
        let elapsed = rdiag_ticks_to_nanoseconds(ticks)
        // The distribution from the runs whose latency was measured, the extremes from every run.
        if run.sampled {
            duration.record(nanoseconds: elapsed)
        } else {
            duration.noteExtremes(nanoseconds: elapsed)
        }
        var trap = PendingTrap()
        if ticks > longThresholdTicks {
            counts.noteLong()
            trap.note(
                recorder.report(
                    FindingDraft(
                        kind: .longAction,
                        message:
                            "scheduler '\(label.name)' ran an action for \(Self.milliseconds(elapsed)) ms, longer than the \(Self.milliseconds(longThresholdNanos)) ms threshold: it blocked the queue",
                        label: label.name, resourceKind: action.isRepeating ? .timer : .scheduledAction,
                        test: action.test,
                        allocationStack: action.stack,
                        details: ["durationNanos": "\(elapsed)", "thresholdNanos": "\(longThresholdNanos)"])))
        }
        if !action.isRepeating {
            let token = keepsLanes ? .none : action.token
            if action.finish() {
                counts.noteRanToEnd()
                unregister(token)
            }
        }
        trap.fire(recorder)
    }

    /// The action (or repeating action) was cancelled.
    package func didCancel(_ action: ScheduledAction) {
        let kind = action.kind
        let token = keepsLanes ? .none : action.token
        guard action.finish() else { return }
        counts.noteCancelled(kind)
        unregister(token)
    }

    /// Counts a run on the calling thread's slot; names the slot on its first run.
    @inline(__always)
    private func noteThread(onMain: inout Bool?) {
        let slot = Int(rdiag_thread_shard() & UInt32(Self.threadSlots - 1))
        if threadRuns.add(slot * Self.threadSlotStride, 1) == 1 {
            nameThreadSlot(slot, onMain: &onMain)
        }
    }

    @inline(never)
    private func nameThreadSlot(_ slot: Int, onMain: inout Bool?) {
        let isMain = onMain ?? runsOnMainQueue()
        onMain = isMain
        let info = ThreadInfo.current
        let named = info.name ?? info.queue.map { "queue \($0)" }
        let name = isMain ? "main queue" : named.map { "\($0) (\(info.id))" } ?? "thread \(info.id)"
        statistics.threadNames.withLock { $0[slot] = $0[slot] ?? (name, isMain) }
    }

    static func milliseconds(_ nanos: UInt64) -> String {
        let value = Double(nanos) / 1_000_000
        return value >= 10 ? String(Int(value.rounded())) : String(Double(Int(value * 10)) / 10)
    }

    /// The statistics of this probe's label: with an engine, of every scheduler made with the
    /// same label (its `instances`); with another recorder, of this probe.
    package func summary() -> SchedulerSummary {
        statistics.summary()
    }
}
