import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import _ReactiveDiagnosticsSupport

/// The fixture tests of this target: XCTest tests that only run in a child process started by
/// the tests in this target (``ChildProcess``), which sets `REACTIVE_DIAGNOSTICS_FIXTURE=1`.
/// In the normal run they are skipped.
enum Fixture {
    /// Whether this process is a fixture child.
    static let isActive = ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_FIXTURE"] == "1"

    /// Why fixtures are skipped in the normal run.
    static let skipReason = "fixture: runs only in a child process started by the integration tests"

    private static let kept = LockedValue<[StreamMonitor]>([])

    /// Keeps a monitor alive to the end of the process: a leaked subscription. (Fixtures call
    /// `makeStreamMonitor` in the test method itself, as an adapter's wrapper would, so that
    /// the allocation stack's first user frame is the test.)
    static func keep(_ monitor: StreamMonitor) {
        kept.withLock { $0.append(monitor) }
    }

    /// An engine that writes nothing and prints nothing, for fixture classes in the normal run.
    static let quietEngine: DiagnosticsEngine = {
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        return DiagnosticsEngine(configuration: configuration)
    }()
}
