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

    /// Starts following timed work (until then it is forwarded untouched); process-wide.
    static func arm() {
        if isKnown {
            rdiag_timed_work_arm()
        }
    }

    /// Whether timed work is due within `limit`, or another thread of the process is running
    /// or in a timed sleep.
    static func isPending(within limit: Duration) -> Bool {
        rdiag_timed_work_due_within(UInt64(limit.clampedNanoseconds)) > 0 || rdiag_other_threads_busy() != 0
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
