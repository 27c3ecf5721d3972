import Dispatch
import Foundation
@_spi(Testing) import ReactiveDiagnostics
import RxDiagnostics
import Testing

/// An engine for one test: stacks on, nothing written to disk, nothing printed.
///
/// - Parameter settle: How long a test's end waits for live resources to end before they
///   count as leaks (short where a test leaks on purpose).
func makeEngine(settle: Duration = .seconds(3)) -> DiagnosticsEngine {
    var configuration = Configuration()
    configuration.writesReport = false
    configuration.printsSummary = false
    configuration.settleTime = settle
    // Wall time: a thread preempted on a loaded machine must not make a clean test's action
    // "long" (the long-action test gives its scheduler a threshold of its own).
    configuration.longActionThreshold = .seconds(10)
    // A retain path's answer must not depend on how loaded the machine is.
    configuration.retainPathLimits.time = .seconds(60)
    return DiagnosticsEngine(configuration: configuration)
}

/// Runs `body` as the test `name` (bound like the Swift Testing trait binds it), then
/// finishes the test: settles, records what is still alive, returns its findings.
func runTest(
    _ engine: DiagnosticsEngine, _ name: String = #function, options: TestOptions = TestOptions(),
    _ body: () throws -> Void
) rethrows -> TestOutcome {
    let checkpoint = engine.beginTest(named: "RxIntegrationTests.\(name)", serial: false)
    try TestIdentity.$current.withValue(checkpoint.test) { try body() }
    return engine.finishTest(checkpoint, options: options)
}

/// ``runTest(_:_:options:_:)`` with ``RxDiagnosticsHooks`` installed on `engine` for the test:
/// every closure-based `subscribe` of the body is counted too, so a correct pipeline must
/// also end every one of those (the false-positive suites run this way).
///
/// - Parameter closureSubscriptions: Whether the body subscribes with closures (then the hooks
///   must have counted some); `false` for bodies that subscribe observers only (RxTest's, or
///   `Single`'s closures, which do not call the hook).
func runHookedTest(
    _ engine: DiagnosticsEngine, _ name: String = #function, options: TestOptions = TestOptions(),
    closureSubscriptions: Bool = true, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) rethrows -> TestOutcome {
    RxDiagnosticsHooks.install(engine: engine)
    defer { RxDiagnosticsHooks.uninstall() }
    let outcome = try runTest(engine, name, options: options, body)
    #expect(
        (RxDiagnosticsHooks.subscriptionsCounted > 0) == closureSubscriptions,
        "the hooks counted \(RxDiagnosticsHooks.subscriptionsCounted) closure subscriptions",
        sourceLocation: sourceLocation)
    return outcome
}

/// The one finding of `kind` in `outcome`, after asserting there is exactly one, that it
/// carries `label`, belongs to the test, and that its allocation stack contains `function`
/// (by default the calling test).
@discardableResult
func expectFinding(
    _ engine: DiagnosticsEngine, _ outcome: TestOutcome, _ kind: FindingKind, label: String?,
    stackContains function: String = #function, sourceLocation: SourceLocation = #_sourceLocation
) -> Finding? {
    let matching = outcome.findings.filter { $0.kind == kind }
    #expect(
        matching.count == 1, "expected one \(kind), found:\n\(describe(engine, outcome.findings))",
        sourceLocation: sourceLocation)
    guard let finding = matching.first else { return nil }
    #expect(finding.label == label, sourceLocation: sourceLocation)
    #expect(finding.test == outcome.test, "attributed to \(finding.test)", sourceLocation: sourceLocation)
    expectStack(engine, finding.allocationStack, contains: function, sourceLocation: sourceLocation)
    return finding
}

/// Asserts `stack` was captured and has a frame inside `function`.
func expectStack(
    _ engine: DiagnosticsEngine, _ stack: StackID, contains function: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(stack.isCaptured, "no stack was captured", sourceLocation: sourceLocation)
    let name = function.split(separator: "(").first.map(String.init) ?? function
    let frames = engine.symbolize(stack).frames
    #expect(
        frames.contains { $0.function?.contains(name) == true },
        "no frame inside \(name) in:\n\(frames.map(\.displayName).joined(separator: "\n"))",
        sourceLocation: sourceLocation)
}

/// Asserts a correct pipeline left nothing behind: no finding at all, and nothing of the
/// kinds this integration tracks still alive, while at least `subscriptions` subscriptions
/// were diagnosed (so the check really ran).
func expectClean(
    _ engine: DiagnosticsEngine, _ outcome: TestOutcome, subscriptions: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        outcome.findings.isEmpty, "unexpected findings:\n\(describe(engine, outcome.findings))",
        sourceLocation: sourceLocation)
    #expect(engine.liveCount(of: .subscription) == 0, sourceLocation: sourceLocation)
    #expect(engine.liveCount(of: .scheduledAction) == 0, sourceLocation: sourceLocation)
    #expect(engine.liveCount(of: .timer) == 0, sourceLocation: sourceLocation)
    #expect(
        engine.registeredCount(of: .subscription) >= subscriptions,
        "only \(engine.registeredCount(of: .subscription)) subscriptions were diagnosed",
        sourceLocation: sourceLocation)
}

func describe(_ engine: DiagnosticsEngine, _ findings: [Finding]) -> String {
    findings.isEmpty ? "(none)" : findings.map { engine.describe($0) }.joined(separator: "\n")
}

/// Waits for `semaphore`, failing the test instead of hanging when it is not signalled.
func expectSignal(
    _ semaphore: DispatchSemaphore, within seconds: Double = 10, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let result = semaphore.wait(timeout: .now() + seconds)
    #expect(result == .success, "timed out waiting for \(what)", sourceLocation: sourceLocation)
}

/// A mutable value shared with other threads in a test. The tests order every access with
/// semaphores or the subscription's own serialization.
final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func mutate(_ change: (inout Value) -> Void) {
        lock.withLock { change(&stored) }
    }
}

/// Starts `body` on a new thread; the returned semaphore is signalled when it returns.
@discardableResult
func onNewThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done
}
