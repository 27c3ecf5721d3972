public import Dispatch
import ReactiveDiagnostics

/// A task executor that runs its jobs on a dispatch queue and tells what happens to them: the
/// report's scheduler section, for Swift Concurrency.
///
/// Every job enqueued is counted (enqueued, run, pending), timed (the latency from enqueue to
/// start, and how long it ran, as histograms) and placed (the threads it ran on). A job running
/// longer than the threshold is a `FindingKind.longAction` (it blocked the executor's
/// threads); a job still pending when its test ends is a `FindingKind.pendingAction`.
///
/// Run code on it with task executor preference; child tasks (`async let`, task groups)
/// inherit the preference, unstructured `Task { … }` does not:
///
/// ```swift
/// let executor = DiagnosticTaskExecutor("image decoding")
/// let images = await withTaskExecutorPreference(executor) {
///     await withTaskGroup(of: Image.self) { group in
///         for file in files { group.addTask { decode(file) } }
///         return await group.reduce(into: []) { $0.append($1) }
///     }
/// }
/// print(executor.summary.latency.p99Nanoseconds)
/// ```
public final class DiagnosticTaskExecutor: TaskExecutor, DiagnosticExecutor, JobRunning {
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

    /// Creates an executor that runs jobs on `queue` (by default a concurrent queue of its own).
    ///
    /// - Parameters:
    ///   - label: The name the report and findings show.
    ///   - queue: Where jobs run.
    ///   - expectation: Where jobs must run, if anywhere in particular.
    ///   - longJobThreshold: Jobs running longer are findings; `nil` uses the configured
    ///     long-action threshold.
    ///   - engine: Where findings and statistics go.
    public init(
        _ label: String, queue: DispatchQueue? = nil, expecting expectation: ThreadExpectation? = nil,
        longJobThreshold: Duration? = nil, engine: DiagnosticsEngine = .shared
    ) {
        self.label = label
        let queue = queue ?? DispatchQueue(label: label, attributes: .concurrent)
        core = ExecutorCore(
            label: label, queue: queue, expectation: expectation, longJobThreshold: longJobThreshold, engine: engine)
        probe = core.probe
    }

    /// Runs a job on the queue, counted and timed.
    public func enqueue(_ job: consuming ExecutorJob) {
        core.enqueue(UnownedJob(job), of: self)
    }

    func runJob(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
