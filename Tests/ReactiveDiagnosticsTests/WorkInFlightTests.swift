import CReactiveDiagnostics
import Foundation
import Synchronization
import Testing

@_spi(Integration) @testable import ReactiveDiagnostics

/// ``WorkInFlight``'s thread signal: a thread sleeping for a time is in flight, unless it is the
/// library's own work (``WorkInFlight/asOwnWork(_:)``); and its timed work, kept per test.
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
        // A look itself runs (microseconds; a few milliseconds under a sanitizer, where CI saw
        // 4 of 20): some looks may see it running. Counted as busy while it sleeps, it reads 19
        // or 20 of 20, so half is the line between the two outcomes whatever the machine's load.
        #expect(busy < 10, "the settling thread counted as busy at \(busy) of 20 looks")
    }

    /// The timed work still pending for `test`, looked at until none is (at most a second): a
    /// slot is given back just after its work has run, on the thread that ran it.
    private func pendingAfterItsWorkRan(for test: TestIdentity) -> Int {
        var pending = Int(rdiag_timed_work_pending_for(UInt64(test.rawValue)))
        for _ in 0..<500 where pending > 0 {
            usleep(2_000)
            pending = Int(rdiag_timed_work_pending_for(UInt64(test.rawValue)))
        }
        return pending
    }

    /// Timed work is kept with the test it was scheduled for (the task-local test where
    /// `asyncAfter` is called), so that one test's settle does not wait for another's timers.
    @Test(.enabled(if: WorkInFlight.isKnown)) func timedWorkIsKeptWithTheTestThatScheduledIt() {
        _ = makeEngine()
        WorkInFlight.arm()
        // Identities no test of this process has (they are interned by name from 1).
        let scheduling = TestIdentity(rawValue: UInt32.random(in: 1_000_000...2_000_000_000))
        let other = TestIdentity(rawValue: scheduling.rawValue + 1)
        let ran = DispatchSemaphore(value: 0)
        TestIdentity.$current.withValue(scheduling) {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { ran.signal() }
        }
        #expect(rdiag_timed_work_pending_for(UInt64(scheduling.rawValue)) == 1)
        #expect(rdiag_timed_work_pending_for(UInt64(other.rawValue)) == 0)
        ran.wait()
        #expect(pendingAfterItsWorkRan(for: scheduling) == 0, "its slot is given back once it has run")
    }

    /// Slots are taken from a stack of free ones and given back to it: work that is due far
    /// ahead and never runs during the tests (XCTest's 30-day timeout per async test) is kept
    /// beside short-lived work that comes and goes, each counted for its own test.
    @Test(.enabled(if: WorkInFlight.isKnown)) func slotsGivenBackAreTakenAgainBesideFarFutureWork() {
        _ = makeEngine()
        WorkInFlight.arm()
        let farAhead = TestIdentity(rawValue: UInt32.random(in: 1_000_000...2_000_000_000))
        let shortLived = TestIdentity(rawValue: farAhead.rawValue + 1)
        TestIdentity.$current.withValue(farAhead) {
            for _ in 0..<100 {
                DispatchQueue.global().asyncAfter(deadline: .now() + 30 * 86_400) {}
            }
        }
        for round in 0..<3 {
            let ran = DispatchGroup()
            TestIdentity.$current.withValue(shortLived) {
                for _ in 0..<50 {
                    ran.enter()
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { ran.leave() }
                }
            }
            #expect(rdiag_timed_work_pending_for(UInt64(shortLived.rawValue)) > 0, "round \(round)")
            #expect(rdiag_timed_work_due_within(1_000_000_000, UInt64(shortLived.rawValue)) > 0)
            ran.wait()
            #expect(
                pendingAfterItsWorkRan(for: shortLived) == 0,
                "round \(round): every slot is given back once its work has run")
        }
        #expect(rdiag_timed_work_pending_for(UInt64(farAhead.rawValue)) == 100)
    }

    /// Work submitted with `async` for a test runs as that test's: timed work it schedules on
    /// the queue it hopped to (`subscribe(on:)`, then a `Future`'s `asyncAfter`) is the test's,
    /// and so is timed work that timed work schedules. Without the hop kept, such work was no
    /// known test's, and held every other test's settle (the demo's Swift Testing suite waited
    /// 20–60 ms at each leak).
    @Test(.enabled(if: WorkInFlight.isKnown)) func workHoppedToAQueueStaysTheTests() {
        _ = makeEngine()
        WorkInFlight.arm()
        let scheduling = TestIdentity(rawValue: UInt32.random(in: 1_000_000...2_000_000_000))
        let scheduled = DispatchSemaphore(value: 0)
        let ran = DispatchSemaphore(value: 0)
        TestIdentity.$current.withValue(scheduling) {
            DispatchQueue.global().async {
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                    DispatchQueue(label: "later").asyncAfter(deadline: .now() + 1) { ran.signal() }
                    scheduled.signal()
                }
                scheduled.signal()
            }
        }
        scheduled.wait()
        #expect(rdiag_timed_work_pending_for(UInt64(scheduling.rawValue)) == 1, "scheduled after a hop")
        scheduled.wait()
        // The work that scheduled it holds its own slot until it has returned.
        var pending = 0
        for _ in 0..<500 where pending != 1 {
            pending = Int(rdiag_timed_work_pending_for(UInt64(scheduling.rawValue)))
            if pending != 1 { usleep(1_000) }
        }
        #expect(pending == 1, "scheduled by timed work")
        ran.wait()
        // Work submitted for no known test runs as none.
        let none = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            #expect(TestIdentity.contextual == .none)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { none.signal() }
        }
        none.wait()
    }

    @Test(.enabled(if: WorkInFlight.isKnown)) func theLibrarysOwnWorkIsNot() {
        let sleeper = Sleeper(own: true)
        defer { sleeper.stop() }
        #expect(sleeper.busyLooks() == 0, "the crash journal's naming queue is no test's work")
    }
}
