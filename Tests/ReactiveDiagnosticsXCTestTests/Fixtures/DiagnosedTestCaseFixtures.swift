import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import XCTest

/// Fixtures for the ``DiagnosedTestCase`` path; run by ``DiagnosedTestCaseTests`` in a child process.
final class DiagnosedFixtures: DiagnosedTestCase {
    static let file = #filePath

    // In the normal run these tests are skipped: check them against an engine that writes nothing.
    override class var diagnosticsEngine: DiagnosticsEngine {
        Fixture.isActive ? .shared : Fixture.quietEngine
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(Fixture.isActive, Fixture.skipReason)
    }

    var cancellables: [StreamMonitor] = []

    override func tearDown() {
        cancellables = []  // the monitors end here, before the check
        super.tearDown()
    }

    func testLeaksASubscription() {
        // swift-format-ignore
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("base-leak"))  // SITE: base-leak
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    func testClearsItsPropertyInTearDown() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("base-property"))
        monitor.receivedSubscription()
        cancellables.append(monitor)
    }

    func testLeaksInAnAsyncTest() async throws {
        try await Task.sleep(for: .milliseconds(10))
        // swift-format-ignore
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("base-async"))  // SITE: base-async
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    func testSchedulesWorkThatNeverRuns() {
        let probe = DiagnosticsEngine.shared.makeSchedulerProbe(label: "base-scheduler")
        _ = probe.willSchedule()  // SITE: base-scheduler
    }
}
