import Dispatch
import ReactiveDiagnostics

/// What both diagnostic executors do with a job: count and time it through a
/// ``SchedulerProbe`` (a pending job is a live scheduled action), run it on the queue with the
/// executor marked as running, and check the thread expectation.
struct ExecutorCore: Sendable {
    let queue: DispatchQueue
    let probe: SchedulerProbe
    /// The test that created the executor.
    let test: TestIdentity
    /// Where the executor was made (when allocation stacks are on): every job's stack.
    let madeAt: StackID

    init(label: String, queue: DispatchQueue, expectation: ThreadExpectation?, longJobThreshold: Duration?, engine: DiagnosticsEngine) {
        self.queue = queue
        probe = engine.makeSchedulerProbe(label: label, expectation: expectation, longActionThreshold: longJobThreshold)
        test = engine.currentTest()
        madeAt = engine.captureAllocationStack()
    }

    /// A job is being enqueued: counted, and live until it runs. The runtime enqueues a task's
    /// job after taking the task off the thread, so the task's test (a task-local) is not
    /// visible here: the job is attributed to the thread's test (or an XCTest's), else to the
    /// test that made the executor.
    ///
    /// Its stack is where the executor was made: the thread's stack here is the runtime's
    /// (`swift_task_switch`, `swift_task_yield`, a continuation's resume) and this library's,
    /// with no frame of the code that awaits, so walking it per job would buy nothing.
    ///
    /// The test is resolved here, once: the thread's or the task's, else the executor's, else
    /// the engine's serial test (the probe's fallback for a test that is not known).
    @inline(__always)
    func willEnqueue() -> ScheduledAction {
        let contextual = TestIdentity.contextual
        return probe.willSchedule(stack: madeAt, test: contextual.isKnown ? contextual : test)
    }

    /// The job is starting on this thread for `executor`: latency, thread, expectation.
    @inline(__always)
    func willRun(_ action: ScheduledAction, for executor: AnyObject) -> JobRun {
        JobRun(run: probe.willRun(action), previous: RunningExecutor.enter(executor))
    }

    /// The job returned.
    @inline(__always)
    func didRun(_ action: ScheduledAction, _ job: JobRun) {
        RunningExecutor.leave(job.previous)
        probe.didRun(action, job.run)
    }
}

/// What ``ExecutorCore/willRun(_:for:)`` hands to ``ExecutorCore/didRun(_:_:)``.
struct JobRun {
    let run: ActionRun
    let previous: UnsafeMutableRawPointer?
}
