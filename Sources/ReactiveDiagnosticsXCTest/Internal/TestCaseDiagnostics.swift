import Foundation
import ReactiveDiagnostics
import XCTest

/// The diagnostics of the XCTest tests running now: a checkpoint when a test starts, the
/// settle-attribute-fail check when it ends.
///
/// Entries are keyed by the test case instance, which XCTest keeps alive for the whole test
/// (on Linux, for the whole run); an entry is removed when its test is checked.
enum TestCaseDiagnostics {
    struct Entry: Sendable {
        var engine: DiagnosticsEngine
        var checkpoint: TestCheckpoint
        var options: TestOptions
        /// Where a failure points when no frame of the finding resolves to a source line.
        var fallback: SourceLine?
    }

    private static let running = LockedValue<[ObjectIdentifier: Entry]>([:])

    /// Starts `testCase`: a checkpoint, and the engine's serial test identity (XCTest runs
    /// one test at a time in a process).
    @discardableResult
    static func begin(_ testCase: XCTestCase, engine: DiagnosticsEngine, options: TestOptions, fallback: SourceLine?) -> TestCheckpoint {
        let checkpoint = engine.beginTest(named: testName(of: testCase), serial: true)
        let entry = Entry(engine: engine, checkpoint: checkpoint, options: options, fallback: fallback)
        running.withLock { $0[ObjectIdentifier(testCase)] = entry }
        return checkpoint
    }

    /// Whether `testCase` has begun and is not checked yet.
    static func isRunning(_ testCase: XCTestCase) -> Bool {
        running.withLock { $0[ObjectIdentifier(testCase)] != nil }
    }

    /// The options of a running test.
    static func options(of testCase: XCTestCase) -> TestOptions? {
        running.withLock { $0[ObjectIdentifier(testCase)]?.options }
    }

    /// Changes the options of a running test; does nothing for a test that is not diagnosed.
    static func setOptions(_ options: TestOptions, of testCase: XCTestCase) {
        running.withLock { $0[ObjectIdentifier(testCase)]?.options = options }
    }

    /// Ends `testCase`: settles, records what it left alive, and records one XCTest failure
    /// per finding that fails it. Must run while the test run is still going (from
    /// `invokeTest()` or a teardown block, never from `testCaseDidFinish`).
    @discardableResult
    static func finish(_ testCase: XCTestCase) -> TestOutcome? {
        guard let entry = running.withLock({ $0.removeValue(forKey: ObjectIdentifier(testCase)) }) else {
            return nil
        }
        let engine = entry.engine
        let outcome = engine.finishTest(entry.checkpoint, options: entry.options)
        for failure in outcome.failures {
            let shown = FindingPresentation.failure(for: failure, engine: engine, allowHint: allowHint(for: failure.kind))
            FailureRecorder.record(shown.message, at: shown.line ?? entry.fallback, in: testCase)
        }
        return outcome
    }

    /// `Module.Class/testMethod`: the form `swift test --filter` accepts, the same on every
    /// platform (Linux names a test `Class.testMethod`, Apple platforms `-[Class testMethod]`).
    static func testName(of testCase: XCTestCase) -> String {
        var method = Substring(testCase.name)
        if method.hasPrefix("-["), method.hasSuffix("]"), let space = method.lastIndex(of: " ") {
            method = method[method.index(after: space)..<method.index(before: method.endIndex)]
        } else if let dot = method.lastIndex(of: ".") {
            method = method[method.index(after: dot)...]
        }
        return "\(String(reflecting: type(of: testCase)))/\(method)"
    }

    static func allowHint(for kind: FindingKind) -> String {
        let value = FindingKind.allKnown.contains(kind) ? ".\(kind.rawValue)" : "FindingKind(rawValue: \"\(kind.rawValue)\")"
        return "allow it in this test with diagnosticOptions.allowedKinds.insert(\(value))"
    }
}
