import ReactiveDiagnostics
public import XCTest

/// An `XCTestCase` whose every test is checked by ReactiveDiagnostics **after** `tearDown()`.
///
/// XCTest never frees test case instances on Linux (and only late elsewhere), so whatever a
/// test keeps in its own properties stays alive until the end of the run. Clear such properties
/// in `tearDown()`: this class checks the test once `tearDown()` has run, so those
/// subscriptions have ended by then and are not leaks.
///
/// ```swift
/// import Combine
/// import ReactiveDiagnosticsXCTest
///
/// final class SearchViewModelTests: DiagnosedTestCase {
///     var cancellables: Set<AnyCancellable> = []
///
///     override func tearDown() {
///         cancellables = []        // ended before the check: not a leak
///         super.tearDown()
///     }
///
///     func testQueryDebounces() {
///         let model = SearchViewModel()
///         model.results.sink { _ in }.store(in: &cancellables)
///     }
/// }
/// ```
///
/// Override ``diagnosticsEngine`` or ``defaultDiagnosticOptions`` to change them for a class;
/// a test changes its own options with ``XCTest/XCTestCase/diagnosticOptions``. The report is
/// written when the bundle finishes, as with ``ReactiveDiagnosticsXCTest/install(engine:options:suppressions:file:line:)``.
open class DiagnosedTestCase: XCTestCase {
    /// The engine this class's tests are checked against (`DiagnosticsEngine.shared` by default).
    open class var diagnosticsEngine: DiagnosticsEngine {
        .shared
    }

    /// The allowances and settle time each test of this class starts with.
    open class var defaultDiagnosticOptions: TestOptions {
        TestOptions()
    }

    /// Runs the test (setUp, the test method, teardown blocks, tearDown) between a checkpoint
    /// and the check, which records one failure per finding that fails the test.
    override open func invokeTest() {
        let engine = Self.diagnosticsEngine
        DiagnosticsObserver.shared.activate(for: engine)
        let checkpoint = TestCaseDiagnostics.begin(
            self, engine: engine, options: Self.defaultDiagnosticOptions, fallback: nil)
        engine.trackingUnstructuredTasks(of: checkpoint) {
            super.invokeTest()
        }
        TestCaseDiagnostics.finish(self)
    }
}
