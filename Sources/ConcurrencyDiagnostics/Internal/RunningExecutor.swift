import CReactiveDiagnostics

/// Which diagnostic executor the calling thread is running a job of: a thread-local pointer
/// set around each job (a plain initial-exec thread-local of the package's C support target).
enum RunningExecutor {
    /// The executor of the job running on this thread, as an opaque pointer, or `nil`.
    static var current: UnsafeMutableRawPointer? {
        rdiag_running_executor_get()
    }

    /// Marks `executor` as running a job on this thread; returns what to restore.
    @inline(__always)
    static func enter(_ executor: AnyObject) -> UnsafeMutableRawPointer? {
        let previous = rdiag_running_executor_get()
        rdiag_running_executor_set(Unmanaged.passUnretained(executor).toOpaque())
        return previous
    }

    /// Restores the marker saved by ``enter(_:)``.
    @inline(__always)
    static func leave(_ previous: UnsafeMutableRawPointer?) {
        rdiag_running_executor_set(previous)
    }

    /// Whether the calling thread runs a job of `executor`.
    static func isRunning(_ executor: AnyObject) -> Bool {
        current == Unmanaged.passUnretained(executor).toOpaque()
    }
}
