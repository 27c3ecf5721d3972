import ReactiveDiagnostics

/// What the diagnostic executors have in common: a label, their statistics, and whether the
/// caller runs one of their jobs.
///
/// ```swift
/// let executor = DiagnosticSerialExecutor("database")
/// let summary = executor.summary          // jobs enqueued, run, pending; latency; threads
/// ```
public protocol DiagnosticExecutor: AnyObject, Sendable {
    /// The executor's label, as the report shows it.
    var label: String { get }
    /// The executor's statistics: jobs enqueued, run and pending; latency from enqueue to start,
    /// and run time, as histograms; long jobs; the threads the jobs ran on.
    var summary: SchedulerSummary { get }
    /// Whether the calling code runs inside a job of this executor.
    var isCurrent: Bool { get }
}

extension DiagnosticExecutor {
    /// Whether the calling code runs inside a job of this executor.
    public var isCurrent: Bool {
        RunningExecutor.isRunning(self)
    }
}

extension ThreadExpectation {
    /// Satisfied inside a job of `executor`: for work that must run on an actor or task executor
    /// the tests control.
    ///
    /// ```swift
    /// let database = DiagnosticSerialExecutor("database")
    /// let rows = AsyncStream.makeDiagnosedStream("rows", of: Row.self, expecting: .executor(database))
    /// ```
    public static func executor(_ executor: some DiagnosticExecutor) -> ThreadExpectation {
        .custom("executor '\(executor.label)'") { [executor] in executor.isCurrent }
    }
}
