import Foundation
import ReactiveDiagnostics
import Synchronization
import XCTest
import _ReactiveDiagnosticsSupport

/// The `XCTestObservation` observer behind ``ReactiveDiagnosticsXCTest/install(engine:options:suppressions:file:line:)``
/// and ``DiagnosedTestCase``: begins each test, adds the teardown block that checks it (for a
/// test that keeps something in its own properties, its lifetime is checked again after
/// `tearDown()`, see ``TestCaseReferences``), and writes the report when the bundle finishes.
final class DiagnosticsObserver: NSObject, XCTestObservation, Sendable {
    /// What `install()` asked for.
    struct Settings: Sendable {
        var engine: DiagnosticsEngine
        var options: TestOptions
        var installedAt: SourceLine
    }

    static let shared = DiagnosticsObserver()

    private let isRegistered = Atomic<Bool>(false)
    /// `nil` until `install()`: then every test that starts is checked.
    private let settings = LockedValue<Settings?>(nil)

    /// Checks every test that starts from now on, with these settings, and activates the observer.
    func checkEveryTest(_ settings: Settings) {
        self.settings.withLock { $0 = settings }
        activate(for: settings.engine)
    }

    /// Whether ``checkEveryTest(_:)`` was called.
    var checksEveryTest: Bool {
        settings.withLock { $0 != nil }
    }

    /// Adds the observer to XCTest (once) and has `engine`'s report written at the end.
    func activate(for engine: DiagnosticsEngine) {
        FindingPresentation.foldGeneratedTestRunnerFrames()
        RunReports.register(engine)
        if !isRegistered.exchange(true, ordering: .acquiringAndReleasing) {
            XCTestObservationCenter.shared.addTestObserver(self)
        }
    }

    func testCaseWillStart(_ testCase: XCTestCase) {
        // A DiagnosedTestCase checks itself after tearDown.
        guard !(testCase is DiagnosedTestCase), let settings = settings.withLock({ $0 }) else { return }
        TestCaseDiagnostics.begin(
            testCase, engine: settings.engine, options: settings.options, fallback: settings.installedAt)
        // Added before setUp runs, so it runs after every teardown block the test adds (they
        // run last-in first-out) but before the test's tearDown methods.
        testCase.addTeardownBlock { [weak testCase] in
            if let testCase {
                // Resources kept in the test's own properties may be released by its
                // tearDown(), which runs after this block: judge those after it.
                TestCaseDiagnostics.finish(testCase, deferringLifetime: TestCaseReferences.keepsReferences(testCase))
            }
        }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        TestCaseDiagnostics.finishDeferred(testCase)
    }

    func testBundleDidFinish(_ testBundle: Bundle) {
        RunReports.writeAll()
    }
}
