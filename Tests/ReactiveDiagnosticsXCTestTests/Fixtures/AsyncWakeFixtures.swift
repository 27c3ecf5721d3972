import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import XCTest

/// Fixtures for ``AsyncTestWakeTests``: the main thread waits in its run loop, as
/// swift-corelibs-xctest's `XCTWaiter` does for an async test, for a task it started.
final class AsyncWakeFixtures: DiagnosedTestCase {
    override class var diagnosticsEngine: DiagnosticsEngine {
        Fixture.isActive ? .shared : Fixture.quietEngine
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(Fixture.isActive, Fixture.skipReason)
    }

    /// The run loop is given nothing to do and nobody stops it: only the wake for the task's
    /// end can make it return before its deadline.
    func testTheEndOfATaskStartedOnTheMainThreadWakesTheRunLoop() {
        XCTAssertTrue(Thread.isMainThread)
        drainRunLoop()
        let ended = Task { 21 * 2 }
        let start = Date()
        let handled = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 10))
        let waited = Date().timeIntervalSince(start)
        print("AsyncWakeFixtures: waited \(waited) s, handled \(handled)")
        XCTAssertLessThan(waited, 5, "the run loop waited for its deadline: nothing woke it")
        _ = ended
    }

    /// Without a task that ends, the run loop returns only at its deadline: the wake is for
    /// ends, never a timer.
    func testNoTaskEndingLeavesTheRunLoopAlone() {
        XCTAssertTrue(Thread.isMainThread)
        drainRunLoop()
        let start = Date()
        let handled = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.3))
        let waited = Date().timeIntervalSince(start)
        print("AsyncWakeFixtures: waited \(waited) s, handled \(handled)")
        XCTAssertGreaterThanOrEqual(waited, 0.29, "something woke the run loop though no task ended")
    }

    /// Runs what the main run loop has pending (XCTest's own blocks) until it has nothing.
    private func drainRunLoop() {
        for _ in 0..<100 {
            let start = Date()
            _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
            if Date().timeIntervalSince(start) >= 0.049 { return }
        }
        XCTFail("the main run loop never ran out of work")
    }
}
