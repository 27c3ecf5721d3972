import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import Testing
import _ReactiveDiagnosticsSupport

/// The fixture tests of this target: Swift Testing tests that only run in a child process
/// started by the tests in this target (``ChildProcess``), which sets
/// `REACTIVE_DIAGNOSTICS_FIXTURE=1`. In the normal run they are disabled.
enum Fixture {
    /// Whether this process is a fixture child.
    static let isActive = ProcessInfo.processInfo.environment["REACTIVE_DIAGNOSTICS_FIXTURE"] == "1"

    /// Why fixtures are disabled in the normal run.
    static let disabledReason: Comment = "fixture: runs only in a child process started by the integration tests"

    private static let kept = LockedValue<[StreamMonitor]>([])

    /// Keeps a monitor alive to the end of the process: a leaked subscription. (Fixtures call
    /// `makeStreamMonitor` in the test method itself, as an adapter's wrapper would, so that
    /// the allocation stack's first user frame is the test.)
    static func keep(_ monitor: StreamMonitor) {
        kept.withLock { $0.append(monitor) }
    }

    /// A private engine for in-process tests: writes nothing, prints nothing, settles briefly.
    static func quietEngine(settle: Duration = .milliseconds(30)) -> DiagnosticsEngine {
        // Where a failure is placed is what these tests check: lines on, as in a user's run.
        ReactiveDiagnosticsTestSupport.quietEngine(settle: settle) { $0.resolvesSourceLines = true }
    }
}
