import Dispatch
import ReactiveDiagnostics

/// What both diagnostic executors do with a job: count and time it through a
/// ``SchedulerProbe`` (a pending job is a live scheduled action), run it on the queue with the
/// executor marked as running, and check the thread expectation.
struct ExecutorCore: Sendable {
    let queue: DispatchQueue
    let probe: SchedulerProbe

    init(label: String, queue: DispatchQueue, expectation: ThreadExpectation?, longJobThreshold: Duration?, engine: DiagnosticsEngine) {
        self.queue = queue
        probe = engine.makeSchedulerProbe(label: label, expectation: expectation, longActionThreshold: longJobThreshold)
    }

    /// A job is being enqueued: counted, and live until it runs.
    @inline(__always)
    func willEnqueue() -> ScheduledAction {
        probe.willSchedule()
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
