import CReactiveDiagnostics
import Foundation
import Synchronization
import Testing

@_spi(Integration) @testable import ReactiveDiagnostics

/// ``WorkInFlight``'s thread signal: a thread sleeping for a time is in flight, unless it is the
/// library's own work (``WorkInFlight/asOwnWork(_:)``).
@Suite("Work in flight: the library's own threads")
struct WorkInFlightTests {
    /// A thread's id, set by the thread.
    private final class ThreadID: Sendable {
        let value = Atomic(0)
    }

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

    /// A test's settle loop sleeping between looks is not work in flight for the tests settling
    /// beside it (Swift Testing runs them in parallel): else two leaking tests ending together
    /// wait out each other's settle time (the buggy demo's Swift Testing run took 0.59 s for
    /// 0.17 s, two tests waiting 0.5 s each).
    @Test(.enabled(if: WorkInFlight.isKnown)) func aSettleLoopSleepingIsNotInFlight() {
        let engine = makeEngine {
            $0.settleTime = .milliseconds(400)
            $0.settlesWhenIdle = false  // sleeps its whole settle time
        }
        let checkpoint = engine.beginTest(named: "settling", serial: false)
        let monitor = TestIdentity.$current.withValue(checkpoint.test) {
            engine.makeStreamMonitor(label: DiagnosticLabel("settling"))
        }
        monitor.receivedSubscription()
        let thread = ThreadID()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            thread.value.store(rdiag_current_thread_id(), ordering: .relaxed)
            engine.settle(checkpoint, for: .milliseconds(400))
            done.signal()
        }
        while thread.value.load(ordering: .relaxed) == 0 { usleep(100) }
        usleep(50_000)  // past its first looks, into the poll interval's sleeps
        let busy = (0..<20).filter { _ in
            usleep(5_000)
            return rdiag_thread_counts_as_busy(thread.value.load(ordering: .relaxed)) != 0
        }.count
        done.wait()
        _ = engine.finishTest(checkpoint)
        withExtendedLifetime(monitor) {}
        // A look itself runs (microseconds): at most a few of 20 looks may see it running.
        #expect(busy <= 3, "the settling thread counted as busy at \(busy) of 20 looks")
    }

    @Test(.enabled(if: WorkInFlight.isKnown)) func theLibrarysOwnWorkIsNot() {
        let sleeper = Sleeper(own: true)
        defer { sleeper.stop() }
        #expect(sleeper.busyLooks() == 0, "the crash journal's naming queue is no test's work")
    }
}
