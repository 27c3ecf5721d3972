import ReactiveDiagnostics
public import XCTest

extension XCTestCase {
    /// This test's allowances and settle time, applied when it is checked.
    ///
    /// Starts as the options given to ``ReactiveDiagnosticsXCTest/install(engine:options:suppressions:file:line:)``
    /// or ``DiagnosedTestCase/defaultDiagnosticOptions``; change it in `setUp()` or in the test.
    /// Allowed kinds are still recorded in the report, as suppressed (`test allows KIND`). For a
    /// test that is not diagnosed, it is empty and setting it does nothing.
    ///
    /// ```swift
    /// func testCancelRace() {
    ///     diagnosticOptions.allowedKinds.insert(.valueAfterCancel)
    ///     diagnosticOptions.settleTime = .seconds(2)   // slow teardown in this test
    ///     // …
    /// }
    /// ```
    public var diagnosticOptions: TestOptions {
        get { TestCaseDiagnostics.options(of: self) ?? TestOptions() }
        set { TestCaseDiagnostics.setOptions(newValue, of: self) }
    }
}
