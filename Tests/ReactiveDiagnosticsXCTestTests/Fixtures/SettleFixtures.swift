import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import XCTest

/// Fixtures for ``SettleWhenIdleTests``: a leak with nothing in flight, and subscriptions that
/// end after the test's body through work in flight of each kind the settle loop waits for.
/// Run in a child process of their own (no other test's threads) with a 20 s settle time.
final class SettleFixtures: DiagnosedTestCase {
    static let file = #filePath
    static let delay = 0.3

    override class var diagnosticsEngine: DiagnosticsEngine {
        Fixture.isActive ? .shared : Fixture.quietEngine
    }

    /// More far-future timed work than the table of due times has slots (2,048), pending while
    /// every fixture runs: a framework's "never" (a timeout 30 days ahead) must neither count as
    /// work in flight nor push the soon-due work of the fixtures that wait out of the table.
    static let farFutureWork = 3000

    /// Whether the far-future work was scheduled (by the first fixture to run: the engine
    /// follows timed work from its first test's start, so not in the class's `setUp()`).
    nonisolated(unsafe) private static var flooded = false

    override func setUpWithError() throws {
        try XCTSkipUnless(Fixture.isActive, Fixture.skipReason)
        if !Self.flooded {
            Self.flooded = true
            for _ in 0..<Self.farFutureWork {
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(30 * 24 * 3600)) {}
            }
        }
    }

    /// An engine apart from the shared one: 20 s settle, no report, no summary.
    private static func engineOfItsOwn() -> DiagnosticsEngine {
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        configuration.settleTime = .seconds(20)
        return DiagnosticsEngine(configuration: configuration)
    }

    private func subscribed(_ label: String) -> StreamMonitor {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel(label))
        monitor.receivedSubscription()
        return monitor
    }

    func testLeaksWithNothingInFlight() {
        // swift-format-ignore
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("idle-leak"))  // SITE: idle-leak
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    /// Two tests that leak and end at the same time on two threads (as Swift Testing runs them):
    /// each one's settle loop sleeping between looks is the library's own work, not work in
    /// flight for the other, so both are decided at once rather than each waiting out the
    /// other's settle time. On an engine of its own (20 s settle, no report).
    func testTwoLeakingTestsSettlingTogetherAreBothDecided() {
        let engine = Self.engineOfItsOwn()
        let group = DispatchGroup()
        let settled = LockedSettles()
        for index in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                let checkpoint = engine.beginTest(named: "together-\(index)", serial: false)
                let monitor = TestIdentity.$current.withValue(checkpoint.test) {
                    engine.makeStreamMonitor(label: DiagnosticLabel("together-\(index)"))
                }
                monitor.receivedSubscription()
                let outcome = engine.finishTest(checkpoint)
                settled.append(outcome.settleDuration, leaks: outcome.findings.count)
                withExtendedLifetime(monitor) {}
                group.leave()
            }
        }
        // The main queue keeps running meanwhile (the settle loop waits for it to drain), as
        // under Swift Testing, whose main thread no test blocks.
        let deadline = Date(timeIntervalSinceNow: 60)
        while group.wait(timeout: .now()) != .success, Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.001))
        }
        let (durations, leaks) = settled.values
        XCTAssertEqual(leaks, 2, "each test's leak is found")
        // Under a sanitizer the settle never ends early: its runtime keeps a thread of its own
        // sleeping in `nanosleep` (SettleWhenIdleTests says more).
        if dlsym(nil, "__tsan_init") == nil && dlsym(nil, "__asan_init") == nil {
            XCTAssertTrue(durations.allSatisfy { $0 < .seconds(10) }, "waited: \(durations)")
        }
    }

    /// A leak is decided while another test's timer is pending (Swift Testing's parallel tests
    /// each waited for the others' `asyncAfter`), and its own timer is still waited for. On an
    /// engine of its own (20 s settle, no report); in this child process no other test runs, so
    /// nothing else holds the settle.
    func testAnotherTestsTimerDoesNotHoldALeak() {
        let engine = Self.engineOfItsOwn()
        let other = engine.beginTest(named: "SettleFixtures.timer's test", serial: false)
        TestIdentity.$current.withValue(other.test) {
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) {}
        }
        let leaking = engine.beginTest(named: "SettleFixtures.leaking test", serial: false)
        let monitor = TestIdentity.$current.withValue(leaking.test) {
            engine.makeStreamMonitor(label: DiagnosticLabel("beside-a-timer"))
        }
        monitor.receivedSubscription()
        let waited = engine.settle(leaking, for: .seconds(20))
        TestIdentity.$current.withValue(leaking.test) {
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {}
        }
        let own = engine.settle(leaking, for: .seconds(20))
        // Under a sanitizer the settle never ends early (see the fixture above).
        if dlsym(nil, "__tsan_init") == nil && dlsym(nil, "__asan_init") == nil {
            // Bimodal: decided at its first looks, or held until the other test's timer (10 s).
            XCTAssertLessThan(waited, .seconds(5), "held by another test's timer")
            XCTAssertGreaterThanOrEqual(own, .milliseconds(900), "its own timer is waited for")
            XCTAssertLessThan(own, .seconds(5), "and only that")
        }
        _ = engine.finishTest(leaking)
        _ = engine.finishTest(other)
        withExtendedLifetime(monitor) {}
    }

    func testEndedByAsyncAfter() {
        let monitor = subscribed("after-async-after")
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.delay) { monitor.cancelled() }
    }

    func testEndedByAWorkItemAfter() {
        let monitor = subscribed("after-work-item")
        let item = DispatchWorkItem(qos: .utility) { monitor.cancelled() }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.delay, execute: item)
    }

    func testEndedOnTheMainQueueLater() {
        let monitor = subscribed("after-main-queue")
        DispatchQueue.main.asyncAfter(deadline: .now() + Self.delay) { monitor.cancelled() }
    }

    func testEndedAfterATaskSleeps() {
        let monitor = subscribed("after-task-sleep")
        let milliseconds = Int(Self.delay * 1000)
        Task {
            try? await Task.sleep(for: .milliseconds(milliseconds))
            monitor.cancelled()
        }
    }

    func testEndedByASleepingThread() {
        let monitor = subscribed("after-thread-sleep")
        let delay = Self.delay
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: delay)
            monitor.cancelled()
        }
    }

    func testEndedByABusyThread() {
        let monitor = subscribed("after-busy-thread")
        let delay = Self.delay
        Thread.detachNewThread {
            let start = Date()
            var spins = 0
            while Date().timeIntervalSince(start) < delay { spins &+= 1 }
            monitor.cancelled()
            withExtendedLifetime(spins) {}
        }
    }
}

/// Settle times and leak counts appended from two threads.
private final class LockedSettles: @unchecked Sendable {
    // Unchecked: every access takes the lock.
    private let lock = NSLock()
    private var durations: [Duration] = []
    private var leaks = 0

    func append(_ duration: Duration, leaks count: Int) {
        lock.withLock {
            durations.append(duration)
            leaks += count
        }
    }

    var values: ([Duration], Int) {
        lock.withLock { (durations, leaks) }
    }
}
