import ReactiveDiagnosticsTestSupport
import Foundation
import ReactiveDiagnostics
import Testing

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
        var configuration = Configuration()
        configuration.writesReport = false
        configuration.printsSummary = false
        configuration.settleTime = settle
        return DiagnosticsEngine(configuration: configuration)
    }
}

/// Finds the line of a `// SITE: name` marker in a fixture source file, so that tests can
/// assert where a failure points without hard-coding line numbers.
func siteLine(_ name: String, in file: String) throws -> Int {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let index = lines.firstIndex(where: { $0.hasSuffix("// SITE: \(name)") }) else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file])
    }
    return index + 1
}
