import Dispatch
import ReactiveDiagnostics

/// A serial executor for actors, running jobs one at a time on a serial dispatch queue, that
/// tells what happens to them like ``DiagnosticTaskExecutor`` does (it is a task executor too).
///
/// Give an actor this executor in its tests to see how its work is scheduled: jobs enqueued and
/// pending, latency, long jobs (a `FindingKind.longAction` blocks every caller of the actor),
/// and, with `ThreadExpectation.executor(_:)`, work that should have run on the actor:
///
/// ```swift
/// actor Database {
///     let executor: DiagnosticSerialExecutor
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
///     init(executor: DiagnosticSerialExecutor = DiagnosticSerialExecutor("database")) {
///         self.executor = executor
///     }
///     func save(_ row: Row) { /* … */ }
/// }
/// ```
public final class DiagnosticSerialExecutor: SerialExecutor, TaskExecutor, DiagnosticExecutor, JobRunning {
    /// The executor's label.
    public let label: String
    /// The engine-side probe (the report's scheduler section).
    package let probe: SchedulerProbe

    /// The executor's statistics: jobs enqueued, run and pending; latency from enqueue to start,
    /// and run time, as histograms; long jobs; the threads the jobs ran on.
    public var summary: SchedulerSummary {
        probe.summary()
    }
    private let core: ExecutorCore

    /// Creates an executor on a serial queue of its own.
    ///
    /// - Parameters:
    ///   - label: The name the report and findings show (and the queue's label).
    ///   - expectation: Where jobs must run, if anywhere in particular.
    ///   - longJobThreshold: Jobs running longer are findings; `nil` uses the configured
    ///     long-action threshold.
    ///   - engine: Where findings and statistics go.
    public init(
        _ label: String, expecting expectation: ThreadExpectation? = nil, longJobThreshold: Duration? = nil,
        engine: DiagnosticsEngine = .shared
    ) {
        self.label = label
        core = ExecutorCore(
            label: label, queue: DispatchQueue(label: label), expectation: expectation,
            longJobThreshold: longJobThreshold,
            engine: engine)
        probe = core.probe
    }

    /// Runs a job on the serial queue, counted and timed, isolated to this executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        core.enqueue(UnownedJob(job), of: self)
    }

    func runJob(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }

    /// This executor, unowned, for an actor's `unownedExecutor`.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the process unless the caller runs a job of this executor (what
    /// `assumeIsolated` and `preconditionIsolated` ask when the runtime cannot tell).
    public func checkIsolated() {
        precondition(isCurrent, "ReactiveDiagnostics: not running on executor '\(label)'")
    }
}
