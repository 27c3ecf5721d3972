@_spi(Integration) import ReactiveDiagnostics
import ConcurrencyDiagnostics
import Foundation
import ReactiveDiagnosticsTestSupport
import Testing

/// An engine for one test: stacks on, nothing written to disk, nothing printed.
func makeEngine(_ change: (inout Configuration) -> Void = { _ in }) -> DiagnosticsEngine {
    quietEngine(change)
}

/// An engine for a test of correct code: what the code started may take long to end when other
/// suites keep the cooperative pool busy, so the end of the test waits up to 120 s for it (it
/// returns as soon as everything has ended).
func makePatientEngine() -> DiagnosticsEngine {
    quietEngine(settle: .seconds(120))
}

/// Waits until `count` iterations wait for elements (or run) in `engine`.
func waitForIterations(
    _ count: Int, in engine: DiagnosticsEngine, sourceLocation: SourceLocation = #_sourceLocation
) async {
    await eventually("\(count) iteration(s) are live", sourceLocation: sourceLocation) {
        engine.ledger.liveCount(of: .iteration) == count
    }
}

/// Runs `body` as a test of a parallel runner (the task-local identity bound), then finishes
/// it: settles, records leaks, returns what the test left behind.
func runTest(
    _ engine: DiagnosticsEngine, _ name: String = #function, options: TestOptions = TestOptions(),
    _ body: () async throws -> Void
) async rethrows -> TestOutcome {
    let checkpoint = engine.beginTest(named: "ConcurrencyTests.\(name)", serial: false)
    try await TestIdentity.$current.withValue(checkpoint.test) { try await body() }
    return await engine.finishTest(checkpoint, options: options)
}

/// The one finding of `kind` in `outcome`, asserting there is exactly one.
func onlyFinding(
    _ outcome: TestOutcome, _ kind: FindingKind, sourceLocation: SourceLocation = #_sourceLocation
) -> Finding? {
    let matching = outcome.findings.filter { $0.kind == kind }
    #expect(
        matching.count == 1, "expected one \(kind), found \(outcome.findings.map { "\($0.kind) \($0.label ?? "")" })",
        sourceLocation: sourceLocation)
    return matching.first
}

/// Asserts that `outcome` has no finding at all.
func expectNoFindings(
    _ outcome: TestOutcome, _ engine: DiagnosticsEngine, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        outcome.findings.isEmpty, "\(outcome.findings.map { engine.describe($0) }.joined(separator: "\n"))",
        sourceLocation: sourceLocation)
}

/// Asserts what every finding must name: its kind, label, test, and an allocation stack that
/// contains `function` (by default the calling test; pass the app-style function that iterates
/// or awaits when that is where the resource was allocated).
func expectEvidence(
    _ finding: Finding?, _ engine: DiagnosticsEngine, kind: FindingKind, label: String, outcome: TestOutcome,
    function: String = #function, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let finding else {
        Issue.record("no \(kind) finding", sourceLocation: sourceLocation)
        return
    }
    #expect(finding.kind == kind, sourceLocation: sourceLocation)
    #expect(finding.label == label, "label is \(finding.label ?? "nil")", sourceLocation: sourceLocation)
    #expect(finding.test == outcome.test, "attributed to \(finding.test)", sourceLocation: sourceLocation)
    expectStack(engine, finding.allocationStack, contains: function, sourceLocation: sourceLocation)
    let text = engine.describe(finding)
    #expect(
        text.hasPrefix("\(finding.kind) [") && text.contains("test: \(finding.test)"), sourceLocation: sourceLocation)
    saveDescription(finding, engine, function)
}

/// With `CONCURRENCY_DIAGNOSTICS_DESCRIBE_DIR` set, writes `engine.describe(finding)` there (the
/// examples in Docs/Concurrency.md come from such a run).
func saveDescription(_ finding: Finding?, _ engine: DiagnosticsEngine, _ function: String = #function) {
    guard let finding, let directory = ProcessInfo.processInfo.environment["CONCURRENCY_DIAGNOSTICS_DESCRIBE_DIR"]
    else { return }
    let name = function.split(separator: "(").first.map(String.init) ?? function
    let file = URL(fileURLWithPath: directory).appendingPathComponent("\(finding.kind)-\(name).txt")
    try? engine.describe(finding).write(to: file, atomically: true, encoding: .utf8)
}

/// Asserts that `stack` was captured and has a frame inside `function` (closures inside it
/// included).
func expectStack(
    _ engine: DiagnosticsEngine, _ stack: StackID, contains function: String = #function,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(stack.isCaptured, "no stack was captured", sourceLocation: sourceLocation)
    let name = function.split(separator: "(").first.map(String.init) ?? function
    let frames = engine.symbolize(stack).frames
    #expect(
        frames.contains { $0.function?.contains(name) == true },
        "no frame inside \(name) in \(frames.map(\.displayName))", sourceLocation: sourceLocation)
}

/// Waits (bounded, without blocking a thread of the cooperative pool) until `condition` holds.
/// The bound is generous: other suites of the process run long synchronous work (the tool's
/// scale tests, child processes) on the pool's threads, as many as the machine has cores, and on
/// a loaded 2-core machine async work can wait 30 s and more for one of them.
func eventually(
    seconds: Double = 120, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        if Date() >= deadline {
            Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
            return
        }
        try? await Task.sleep(for: .milliseconds(2))
    }
}

/// A value shared with other tasks, guarded by a lock.
final class Box<Value: Sendable>: @unchecked Sendable {
    // Unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var storage: Value

    init(_ value: Value) {
        storage = value
    }

    var value: Value {
        get { lock.withLock { storage } }
        set { lock.withLock { storage = newValue } }
    }

    func mutate(_ change: (inout Value) -> Void) {
        lock.withLock { change(&storage) }
    }
}
