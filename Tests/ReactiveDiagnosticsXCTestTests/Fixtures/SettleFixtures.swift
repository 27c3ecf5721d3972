import Dispatch
import Foundation
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
