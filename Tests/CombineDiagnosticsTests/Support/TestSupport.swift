@_spi(Integration) import ReactiveDiagnostics
import CombineDiagnostics
import Dispatch
import Foundation
import OpenCombineShim
import ReactiveDiagnosticsTestSupport
import Testing

/// Every suite of this target runs one test at a time: global instrumentation is
/// process-wide and would otherwise see (and count) the streams of tests running beside it.
@Suite(.serialized) struct CombineAdapterTests {}

/// An engine for one test: stacks on, nothing written to disk, nothing printed.
func makeEngine(_ change: (inout Configuration) -> Void = { _ in }) -> DiagnosticsEngine {
    quietEngine(change)
}

/// Runs `body` as a test of a parallel runner (the task-local identity bound), then
/// finishes it: settles, records leaks, returns what the test left behind.
func runTest(
    _ engine: DiagnosticsEngine, _ name: String = #function, options: TestOptions = TestOptions(),
    _ body: () throws -> Void
) rethrows -> TestOutcome {
    let checkpoint = engine.beginTest(named: "CombineAdapterTests.\(name)", serial: false)
    try TestIdentity.$current.withValue(checkpoint.test) { try body() }
    return engine.finishTest(checkpoint, options: options)
}

/// Runs `body` with global instrumentation reporting to `engine`, stopping it afterwards.
func instrumented<Result>(
    _ engine: DiagnosticsEngine, _ body: (CombineInstrumentation) throws -> Result
) rethrows -> Result {
    let instrumentation = CombineInstrumentation.start(engine: engine)
    defer { instrumentation.stop() }
    return try body(instrumentation)
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

/// Asserts what every finding must name: its kind, label, test and an allocation stack that
/// contains the test's own function (the subscribe call made in it).
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
    expectDescription(finding, engine, function: function, sourceLocation: sourceLocation)
}

/// Asserts that `describe` names the finding's kind, label, test and, among the allocation
/// stack's frames, the test's own function. With `COMBINE_DIAGNOSTICS_DESCRIBE_DIR` set, the
/// text is also written there (the examples in Docs/Combine.md come from such a run).
func expectDescription(
    _ finding: Finding, _ engine: DiagnosticsEngine, function: String = #function,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let text = engine.describe(finding)
    let name = function.split(separator: "(").first.map(String.init) ?? function
    let allocation = text.components(separatedBy: "  allocated at:\n").dropFirst().first ?? ""
    #expect(text.hasPrefix("\(finding.kind) ["), sourceLocation: sourceLocation)
    #expect(text.contains("test: \(finding.test)") && text.contains("fingerprint "), sourceLocation: sourceLocation)
    #expect(finding.label.map { text.contains($0) } ?? true, sourceLocation: sourceLocation)
    #expect(
        allocation.contains(name), "the allocation stack shown does not name \(name):\n\(text)",
        sourceLocation: sourceLocation)
    if let directory = ProcessInfo.processInfo.environment["COMBINE_DIAGNOSTICS_DESCRIBE_DIR"] {
        let file = URL(fileURLWithPath: directory).appendingPathComponent(
            "\(finding.kind)-\(name)-\(finding.label ?? "").txt")
        try? text.write(to: file, atomically: true, encoding: .utf8)
    }
}

/// Asserts that `stack` was captured and has a frame inside `function` (by default the
/// calling test, closures inside it included).
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

/// Asserts the engine tracks no subscription or timer any more, sweeping deallocated ones and
/// giving teardown on other threads (a queue finishing a cancel) up to two seconds.
func expectNoLiveSubscriptions(_ engine: DiagnosticsEngine, sourceLocation: SourceLocation = #_sourceLocation) {
    let deadline = Date(timeIntervalSinceNow: 2)
    repeat {
        engine.ledger.sweep()
        if engine.ledger.liveCount(of: .subscription) == 0 && engine.ledger.liveCount(of: .timer) == 0 {
            return
        }
        Thread.sleep(forTimeInterval: 0.01)
    } while Date() < deadline
    let live = engine.ledger.liveResources().filter { $0.kind == .subscription || $0.kind == .timer }
    #expect(
        engine.ledger.liveCount(of: .subscription) == 0 && engine.ledger.liveCount(of: .timer) == 0,
        "still live: \(live.map(\.label.name))", sourceLocation: sourceLocation)
}

/// Waits (bounded) for `semaphore`, recording an issue on timeout instead of hanging.
func wait(
    _ semaphore: DispatchSemaphore, seconds: Double = 5, _ what: String = "the signal",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    if semaphore.wait(timeout: .now() + seconds) == .timedOut {
        Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
    }
}

/// A box for values written from callbacks and read after the stream ended (guarded by a lock).
final class Recorder<Value>: @unchecked Sendable {
    // Unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var storage: [Value] = []

    func append(_ value: Value) {
        lock.lock()
        storage.append(value)
        lock.unlock()
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// Wraps a value the test deliberately shares with another thread (OpenCombine's types are
/// not marked `Sendable`; the tests synchronize them themselves).
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// Runs `body` on a global queue (in `group`, when given).
func onBackground(group: DispatchGroup? = nil, _ body: @escaping () -> Void) {
    let work = Unchecked(body)
    if let group {
        DispatchQueue.global().async(group: group) { work.value() }
    } else {
        DispatchQueue.global().async { work.value() }
    }
}

/// Runs `body` on a new thread in `group` (no wait for a pool thread to free up).
func onThread(group: DispatchGroup, _ body: @escaping () -> Void) {
    let work = Unchecked(body)
    group.enter()
    Thread {
        work.value()
        group.leave()
    }.start()
}

/// Waits (bounded) until `condition` holds, for state that settles on another thread just
/// after the signal a test waited for (a scheduler counts an action after it returns).
func eventually(
    seconds: Double = 2, _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        if Date() >= deadline {
            Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
            return
        }
        Thread.sleep(forTimeInterval: 0.002)
    }
}
