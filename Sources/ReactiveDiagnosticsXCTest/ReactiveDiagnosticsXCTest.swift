public import Foundation
import ReactiveDiagnostics
import XCTest

/// Turns ReactiveDiagnostics on for XCTest tests with one line.
///
/// After ``install(engine:options:suppressions:file:line:)`` every XCTest test that starts gets
/// a checkpoint; when it ends, deallocation and pending main-queue work get a bounded chance to
/// settle, then every resource the test allocated and left alive is a leak finding attributed
/// to it, along with the grammar, contract and scheduler findings raised while it ran. Each
/// finding whose policy is `fail` (errors, by default) fails the test, pointing at the first
/// line of the test's own code in the finding's allocation stack. When the test bundle finishes,
/// the report is written and a summary is printed on standard error.
///
/// ```swift
/// import ReactiveDiagnosticsXCTest
/// import XCTest
///
/// final class FeedViewModelTests: XCTestCase {
///     override class func setUp() {
///         super.setUp()
///         ReactiveDiagnosticsXCTest.install()
///     }
///
///     func testRefreshLoadsItems() {
///         let model = FeedViewModel()
///         model.refresh()      // leaks a subscription: this test fails, pointing here
///     }
/// }
/// ```
///
/// The check runs in a teardown block, **before** the test's `tearDown()`. A test whose
/// instance keeps something in its own properties (a `cancellables` set, a view model) has
/// what it left alive judged after `tearDown()` instead, so that a subscription `tearDown()`
/// ends is no leak; XCTest cannot fail a test by then, so such a leak is reported (and
/// printed), not failed. Subclass ``DiagnosedTestCase``, which checks after `tearDown()`
/// while the test can still fail, to fail those tests too.
public enum ReactiveDiagnosticsXCTest {
    /// Checks every XCTest test that starts from now on.
    ///
    /// Calling it again is harmless; the latest call's settings apply to tests that start after
    /// it. Call it from `override class func setUp()` of each class you want checked (XCTest
    /// calls that before the class's first test), or once from a shared base class.
    ///
    /// - Parameters:
    ///   - engine: The engine the code under test reports to (the adapters use `DiagnosticsEngine.shared`).
    ///   - options: Allowances and settle time for every test; a test can change its own with
    ///     ``XCTest/XCTestCase/diagnosticOptions``.
    ///   - suppressions: Known findings in code you do not own, added to the engine's
    ///     suppressions for the whole run (as if they were in the `REACTIVE_DIAGNOSTICS_SUPPRESSIONS` file).
    ///   - file: Where a failure points when no frame of a finding resolves to a source line.
    ///   - line: The line for `file`.
    public static func install(
        engine: DiagnosticsEngine = .shared, options: TestOptions = TestOptions(),
        suppressions: Suppressions = Suppressions(), file: StaticString = #filePath, line: UInt = #line
    ) {
        addSuppressions(suppressions, to: engine)
        let location = SourceLine(file: "\(file)", line: Int(line), column: 0)
        DiagnosticsObserver.shared.checkEveryTest(
            DiagnosticsObserver.Settings(engine: engine, options: options, installedAt: location))
    }

    /// Whether ``install(engine:options:suppressions:file:line:)`` was called.
    public static var isInstalled: Bool {
        DiagnosticsObserver.shared.checksEveryTest
    }

    /// Writes the report of every engine the test glue used now, instead of waiting for the end
    /// of the run (it is written again then if anything changed). Returns the files written.
    @discardableResult
    public static func writeReports() -> [URL] {
        RunReports.writeAll()
    }

    static func addSuppressions(_ suppressions: Suppressions, to engine: DiagnosticsEngine) {
        guard !suppressions.rules.isEmpty else { return }
        engine.updateConfiguration { configuration in
            for rule in suppressions.rules where !configuration.suppressions.rules.contains(rule) {
                configuration.suppressions.rules.append(rule)
            }
        }
    }
}
