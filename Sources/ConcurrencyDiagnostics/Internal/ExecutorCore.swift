import Dispatch
@_spi(Integration) import ReactiveDiagnostics

/// What both diagnostic executors do with a job: count and time it through a
/// ``SchedulerProbe`` (a pending job is a live scheduled action), run it on the queue with the
/// executor marked as running, and check the thread expectation.
///
/// The job travels in its action: the action is handed to the queue as it is
/// (`DirectDispatch`), so that the only allocation per job is the closure that runs it, as for
/// a plain executor's `queue.async { job.run… }`, which also makes a block of it.
struct ExecutorCore: Sendable {
    let queue: DispatchQueue
    let probe: SchedulerProbe
    /// The queue's libdispatch object, when it can be found (else jobs go through `queue.async`).
    let direct: DirectDispatch?
    /// The test that created the executor.
    let test: TestIdentity
    /// Where the executor was made (when allocation stacks are on): every job's stack.
    let madeAt: StackID

    init(
        label: String, queue: DispatchQueue, expectation: ThreadExpectation?, longJobThreshold: Duration?,
        engine: DiagnosticsEngine
    ) {
        self.queue = queue
        probe = engine.makeSchedulerProbe(label: label, expectation: expectation, longActionThreshold: longJobThreshold)
        direct = DirectDispatch(queue)
        test = engine.currentTest()
        madeAt = engine.captureAllocationStack()
    }

    /// Enqueues `job` of `executor`: counted, live until it ran, then run on the queue
    /// (``JobRunning/runJob(_:)``) with the executor marked as running on the thread.
    ///
    /// The runtime enqueues a task's job after taking the task off the thread, so the task's
    /// test (a task-local) is not visible here: the job is attributed to the thread's test (or
    /// an XCTest's), else to the test that made the executor. The test is resolved here, once:
    /// the thread's or the task's, else the executor's, else the engine's serial test (the
    /// probe's fallback for a test that is not known).
    ///
    /// Its stack is where the executor was made: the thread's stack here is the runtime's
    /// (`swift_task_switch`, `swift_task_yield`, a continuation's resume) and this library's,
    /// with no frame of the code that awaits, so walking it per job would buy nothing.
    @inline(__always)
    func enqueue<Executor: JobRunning>(_ job: UnownedJob, of executor: Executor) {
        let contextual = TestIdentity.contextual
        // One closure, of the executor and the job: the job's only allocation.
        let action = probe.willSchedule(stack: madeAt, test: contextual.isKnown ? contextual : test) {
            let previous = RunningExecutor.enter(executor)
            executor.runJob(job)
            RunningExecutor.leave(previous)
        }
        if let direct {
            direct.async(action)
        } else {
            queue.async(execute: action.run)
        }
    }
}

/// A diagnostic executor: runs one of its jobs on the calling thread, the way the runtime
/// expects of it.
protocol JobRunning: AnyObject, Sendable {
    func runJob(_ job: UnownedJob)
}
