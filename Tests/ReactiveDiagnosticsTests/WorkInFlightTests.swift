import CReactiveDiagnostics
import Foundation
import Synchronization
import Testing

@testable import ReactiveDiagnostics

/// ``WorkInFlight``'s thread signal: a thread sleeping for a time is in flight, unless it is the
/// library's own work (``WorkInFlight/asOwnWork(_:)``).
@Suite("Work in flight: the library's own threads")
struct WorkInFlightTests {
    /// A thread that sleeps 2 ms at a time until stopped.
    private final class Sleeper: Sendable {
        private let stopped = Atomic(false)
        private let threadID = Atomic(0)

        /// Starts it, inside the library's own work when `own`; returns once it runs.
        init(own: Bool) {
            let started = DispatchSemaphore(value: 0)
            Thread.detachNewThread { [self] in
                let body = {
                    self.threadID.store(rdiag_current_thread_id(), ordering: .relaxed)
                    started.signal()
                    while !self.stopped.load(ordering: .relaxed) { usleep(2_000) }
                }
                if own { WorkInFlight.asOwnWork(body) } else { body() }
            }
            started.wait()
        }

        /// At how many of 20 looks, 1 ms apart, the thread counted as busy.
        func busyLooks() -> Int {
            (0..<20).filter { _ in
                usleep(1_000)
                return rdiag_thread_counts_as_busy(threadID.load(ordering: .relaxed)) != 0
            }.count
        }

        func stop() {
            stopped.store(true, ordering: .relaxed)
        }
    }

    @Test(.enabled(if: WorkInFlight.isKnown)) func aSleepingThreadIsInFlight() {
        let sleeper = Sleeper(own: false)
        defer { sleeper.stop() }
        #expect(sleeper.busyLooks() > 0, "a thread in usleep is work in flight")
    }

    @Test(.enabled(if: WorkInFlight.isKnown)) func theLibrarysOwnWorkIsNot() {
        let sleeper = Sleeper(own: true)
        defer { sleeper.stop() }
        #expect(sleeper.busyLooks() == 0, "the crash journal's naming queue is no test's work")
    }
}
