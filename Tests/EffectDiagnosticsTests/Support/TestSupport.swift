import Dispatch
import Foundation
import ReactiveDiagnostics
import ReactiveDiagnosticsTestSupport
import Testing
import _ReactiveDiagnosticsSupport

/// An engine for one test: stacks on, nothing written to disk, nothing printed.
func makeEngine(settle: Duration = .milliseconds(200)) -> DiagnosticsEngine {
    quietEngine(settle: settle)
}

/// Runs `body` as a parallel-runner test named after the calling test (what the Swift Testing
/// trait does): the test identity is bound as a task local, then the checkpoint settles and
/// returns what the test left behind.
func runTest(
    _ engine: DiagnosticsEngine, _ name: String = #function, _ body: () throws -> Void
) rethrows -> TestOutcome {
    let checkpoint = engine.beginTest(named: name, serial: false)
    try TestIdentity.$current.withValue(checkpoint.test) { try body() }
    return engine.finishTest(checkpoint)
}

/// ``runTest(_:_:_:)`` for an `async` body.
func runAsyncTest(
    _ engine: DiagnosticsEngine, _ name: String = #function, _ body: () async throws -> Void
) async rethrows -> TestOutcome {
    let checkpoint = engine.beginTest(named: name, serial: false)
    try await TestIdentity.$current.withValue(checkpoint.test) { try await body() }
    return await engine.finishTest(checkpoint)
}

/// The one finding of `kind` in `outcome`, asserting there is exactly one.
func onlyFinding(
    _ outcome: TestOutcome, _ kind: FindingKind, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Finding {
    let matching = outcome.findings.filter { $0.kind == kind }
    #expect(
        matching.count == 1, "expected one \(kind), found \(outcome.findings.map(\.kind))",
        sourceLocation: sourceLocation)
    return try #require(matching.first, sourceLocation: sourceLocation)
}

/// Asserts the evidence every finding must name: kind, label, the test it belongs to, and an
/// allocation stack with a frame inside the test function.
func expectEvidence(
    _ engine: DiagnosticsEngine, _ finding: Finding, kind: FindingKind, label: String, test: TestIdentity,
    function: String = #function, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(finding.kind == kind, sourceLocation: sourceLocation)
    #expect(finding.label == label, sourceLocation: sourceLocation)
    #expect(
        finding.test == test && finding.test.name == function, "attributed to \(finding.test)",
        sourceLocation: sourceLocation)
    #expect(finding.failsTest, sourceLocation: sourceLocation)
    expectStack(engine, finding.allocationStack, contains: function, sourceLocation: sourceLocation)
    show(engine, finding)
}

/// Asserts `stack` was captured and contains a frame inside `function`.
func expectStack(
    _ engine: DiagnosticsEngine, _ stack: StackID, contains function: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(stack.isCaptured, "no stack was captured", sourceLocation: sourceLocation)
    let name = function.split(separator: "(").first.map(String.init) ?? function
    let frames = engine.symbolize(stack).frames
    #expect(
        frames.contains { $0.function?.contains(name) == true },
        "no frame inside \(name) in \(frames.map(\.displayName))", sourceLocation: sourceLocation)
}

/// Writes `engine.describe(finding)` to standard error when `EFFECT_DIAGNOSTICS_SHOW` is set
/// (how the examples in Docs/EffectsAndNotifications.md were captured).
func show(_ engine: DiagnosticsEngine, _ finding: Finding) {
    guard ProcessInfo.processInfo.environment["EFFECT_DIAGNOSTICS_SHOW"] != nil else { return }
    FileHandle.standardError.write(Data("\n\(engine.describe(finding))\n".utf8))
}

/// Polls `condition` (evaluated on the main queue) until it holds or `timeout` passes. The bound
/// is generous: other suites of the process run long synchronous work on the cooperative pool's
/// few threads, and on a loaded 2-core machine the main queue's work can wait 30 s and more.
func eventually(
    timeout: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @escaping @MainActor @Sendable () -> Bool
) async {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if await MainActor.run(body: condition) { return }
        try? await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
}

/// A thread-safe counter and log for callbacks running on any queue.
final class Recorder<Value: Sendable>: Sendable {
    private let values = LockedValue([Value]())

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] {
        values.withLock { $0 }
    }

    var count: Int {
        values.withLock { $0.count }
    }

    /// Forgets (and releases) everything recorded.
    func removeAll() {
        let removed = values.withLock { values in
            defer { values.removeAll() }
            return values
        }
        _ = removed  // released here, outside the lock
    }
}

/// The error long-lived effects fail with in these tests.
struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}
