import CReactiveDiagnostics

/// Work that may still run after a test's body has returned and release what the test left
/// alive (work_in_flight.c): timed work scheduled through `dispatch_after` (`asyncAfter`, a
/// `DispatchQueue` scheduler's `schedule(after:)`, Swift Concurrency's sleeps), and threads of
/// the process that are running or in a timed sleep. Linux only; elsewhere nothing is known and
/// the settle loop waits its whole time, as it always did.
///
/// ```swift
/// WorkInFlight.arm()
/// if WorkInFlight.isKnown && !WorkInFlight.isPending(within: .milliseconds(500)) { /* decided */ }
/// ```
enum WorkInFlight {
    /// Whether work in flight can be read here.
    static let isKnown: Bool = rdiag_timed_work_available() != 0 && rdiag_other_threads_busy() >= 0

    /// Starts following timed work (until then it is forwarded untouched); process-wide. Each
    /// piece of work is kept with the test it was scheduled for (``TestIdentity/contextual``
    /// where `dispatch_after` is called).
    static func arm() {
        if isKnown {
            rdiag_timed_work_set_owner_reader(readOwner)
            rdiag_timed_work_arm()
        }
    }

    /// The test the calling code works for, read inside `dispatch_after` (a thread-local, then
    /// a task-local: no allocation, no lock).
    private static let readOwner: @convention(c) () -> UInt64 = { UInt64(TestIdentity.contextual.rawValue) }

    /// Whether timed work that `test` or no known test scheduled is due within `limit` (all
    /// timed work for ``TestIdentity/none``), or another thread of the process is running or in
    /// a timed sleep.
    static func isPending(within limit: Duration, for test: TestIdentity = .none) -> Bool {
        rdiag_timed_work_due_within(UInt64(limit.clampedNanoseconds), UInt64(test.rawValue)) > 0
            || rdiag_other_threads_busy() != 0
    }

    /// Runs `body` as the library's own work: the calling thread is not work in flight for a
    /// test meanwhile (the crash journal naming stacks would otherwise keep every leaking test
    /// waiting 7 to 25 ms: measured in OpenCombine's suite).
    static func asOwnWork<Result>(_ body: () throws -> Result) rethrows -> Result {
        rdiag_own_work_begin()
        defer { rdiag_own_work_end() }
        return try body()
    }
}
