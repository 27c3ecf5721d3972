import Foundation
import ReactiveDiagnostics
import XCTest
import _ReactiveDiagnosticsSupport

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
    static func begin(
        _ testCase: XCTestCase, engine: DiagnosticsEngine, options: TestOptions, fallback: SourceLine?
    ) -> TestCheckpoint {
        let checkpoint = engine.beginTest(named: testName(of: testCase), serial: true)
        let entry = Entry(engine: engine, checkpoint: checkpoint, options: options, fallback: fallback)
        running.withLock { $0[ObjectIdentifier(testCase)] = entry }
        AsyncTestWake.shared.watch(checkpoint, of: engine)
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
    ///
    /// With `deferringLifetime`, what the test left alive is judged later, by
    /// ``finishDeferred(_:)`` once `tearDown()` has run: only the other findings can fail the
    /// test now.
    @discardableResult
    static func finish(_ testCase: XCTestCase, deferringLifetime: Bool = false) -> TestOutcome? {
        guard let entry = running.withLock({ $0.removeValue(forKey: ObjectIdentifier(testCase)) }) else {
            return nil
        }
        AsyncTestWake.shared.stop(entry.checkpoint)
        let engine = entry.engine
        let outcome = engine.finishTest(entry.checkpoint, options: entry.options, deferringLifetime: deferringLifetime)
        if deferringLifetime {
            deferred.withLock { $0[ObjectIdentifier(testCase)] = DeferredCheck(entry: entry, first: outcome) }
        }
        for failure in outcome.failures {
            let shown = FindingPresentation.failure(
                for: failure, engine: engine, allowHint: allowHint(for: failure.kind))
            FailureRecorder.record(shown.message, at: shown.line ?? entry.fallback, in: testCase)
        }
        return outcome
    }

    /// A test whose lifetime check waits for its `tearDown()`.
    private struct DeferredCheck: Sendable {
        var entry: Entry
        var first: TestOutcome
    }

    private static let deferred = LockedValue<[ObjectIdentifier: DeferredCheck]>([:])

    /// The lifetime check of a test ended with `deferringLifetime`, after its `tearDown()`:
    /// what the test still has alive becomes lifetime findings, recorded in the report. XCTest
    /// cannot fail a test that has finished, so each finding that would have failed it is
    /// printed on standard error instead. Returns `nil` when the test's check was not deferred.
    @discardableResult
    static func finishDeferred(_ testCase: XCTestCase) -> TestOutcome? {
        guard let check = deferred.withLock({ $0.removeValue(forKey: ObjectIdentifier(testCase)) }) else {
            return nil
        }
        let engine = check.entry.engine
        let outcome = engine.checkDeferredLifetime(
            of: check.entry.checkpoint, after: check.first, options: check.entry.options)
        for failure in outcome.failures {
            let shown = FindingPresentation.failure(
                for: failure, engine: engine, allowHint: allowHint(for: failure.kind))
            let place = (shown.line ?? check.entry.fallback).map { "\($0.file):\($0.line): " } ?? ""
            FileHandle.standardError.write(
                Data(
                    """
                    \(place)error: \(testCase.name) : \(shown.message)
                      (found after tearDown(), when XCTest no longer lets a test fail: the test passed, the \
                    report keeps the finding; subclass DiagnosedTestCase to fail the test for it)

                    """.utf8))
        }
        return outcome
    }

    /// `Module.Class/testMethod`: the form `swift test --filter` accepts, the same on every
    /// platform (Linux names a test `Class.testMethod`, Apple platforms `-[Class testMethod]`).
    static func testName(of testCase: XCTestCase) -> String {
        let type = type(of: testCase)
        let key = ObjectIdentifier(type)
        let typeName =
            typeNames.withLock { $0[key] }
            ?? {
                let name = String(reflecting: type)
                typeNames.withLock { $0[key] = name }
                return name
            }()
        return typeName + "/" + methodName(testCase.name)
    }

    /// `String(reflecting:)` of each test case class, made once per class: it reads the
    /// class's metadata, and with the name's parsing by characters it was a fifth of what a
    /// clean test's start and end cost in a debug build (Docs/Performance.md, longSuite).
    private static let typeNames = LockedValue<[ObjectIdentifier: String]>([:])

    /// The method in an XCTest name: `-[FeedTests testRefresh]` (Apple's XCTest) or
    /// `FeedTests.testRefresh` (swift-corelibs-xctest) → `testRefresh`; any other name whole.
    /// Read by bytes (`[`, ` `, `]` and `.` are ASCII).
    static func methodName(_ name: String) -> String {
        var name = name
        return name.withUTF8 { bytes -> String in
            /// The bytes after the last `separator` before `end`, if there is one.
            func after(_ separator: UInt8, before end: Int) -> Range<Int>? {
                var index = end
                while index > 0 {
                    index -= 1
                    if bytes[index] == separator { return (index + 1)..<end }
                }
                return nil
            }
            let count = bytes.count
            let bracketed =
                count >= 3 && bytes[0] == UInt8(ascii: "-") && bytes[1] == UInt8(ascii: "[")
                && bytes[count - 1] == UInt8(ascii: "]")
            let range =
                (bracketed ? after(UInt8(ascii: " "), before: count - 1) : nil)
                ?? after(UInt8(ascii: "."), before: count) ?? 0..<count
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
    }

    static func allowHint(for kind: FindingKind) -> String {
        let value =
            FindingKind.allKnown.contains(kind) ? ".\(kind.rawValue)" : "FindingKind(rawValue: \"\(kind.rawValue)\")"
        return "allow it in this test with diagnosticOptions.allowedKinds.insert(\(value))"
    }
}
