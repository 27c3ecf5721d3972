import Dispatch
import Foundation
@_spi(Integration) import ReactiveDiagnostics
import ReactiveDiagnosticsXCTest
import XCTest

/// Fixtures for the `install()` path; run by ``InstallTests`` in a child process.
final class InstallFixtures: XCTestCase {
    static let file = #filePath

    override class func setUp() {
        super.setUp()
        if Fixture.isActive {
            ReactiveDiagnosticsXCTest.install()  // SITE: install
        }
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(Fixture.isActive, Fixture.skipReason)
    }

    var kept: [StreamMonitor] = []

    override func tearDown() {
        kept = []  // too late for install(): its check runs before tearDown
        super.tearDown()
    }

    func testLeaksASubscription() {
        // swift-format-ignore
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("install-leak"))  // SITE: install-leak
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    func testEndsItsSubscription() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("install-clean"))
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        monitor.didDeliverValue(monitor.willDeliverValue())
        monitor.didTerminate(monitor.willTerminate(failure: nil))
        Fixture.keep(monitor)
    }

    func testDeliversAfterCompletion() {
        // swift-format-ignore
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("install-grammar"))  // SITE: install-grammar
        monitor.receivedSubscription()
        monitor.requested(.unlimited)
        monitor.didTerminate(monitor.willTerminate(failure: nil))
        monitor.didDeliverValue(monitor.willDeliverValue())
    }

    func testAllowsItsLeak() {
        diagnosticOptions.allowedKinds.insert(.leakedSubscription)
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("install-allowed"))
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    func testLeaksInVendorCode() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("vendor-sdk-cache"))
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }

    func testEndsLateWithARaisedSettleTime() {
        diagnosticOptions.settleTime = .seconds(10)
        endLate(label: "install-slow")
    }

    func testEndsLateWithTheDefaultSettleTime() {
        endLate(label: "install-slow-default")
    }

    /// A subscription cancelled 300 ms after the test body returns, on another thread.
    private func endLate(label: String) {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel(label))
        monitor.receivedSubscription()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { monitor.cancelled() }
    }

    func testClearsItsPropertyInTearDown() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("install-property"))
        monitor.receivedSubscription()
        kept.append(monitor)
    }
}

/// Three tests run one after another in one process (``InstallTests``): each finding must
/// belong to the test that made it.
final class SequenceFixtures: XCTestCase {
    override class func setUp() {
        super.setUp()
        if Fixture.isActive {
            ReactiveDiagnosticsXCTest.install()
        }
    }

    override func setUpWithError() throws {
        try XCTSkipUnless(Fixture.isActive, Fixture.skipReason)
    }

    func test1LeaksOnABackgroundThread() {
        let done = expectation(description: "subscribed")
        DispatchQueue.global().async {
            let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("sequence-1"))
            monitor.receivedSubscription()
            Fixture.keep(monitor)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func test2IsClean() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("sequence-2"))
        monitor.receivedSubscription()
        monitor.cancelled()
    }

    func test3Leaks() {
        let monitor = DiagnosticsEngine.shared.makeStreamMonitor(label: DiagnosticLabel("sequence-3"))
        monitor.receivedSubscription()
        Fixture.keep(monitor)
    }
}
