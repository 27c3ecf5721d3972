import Foundation
import ReactiveDiagnostics
public import Testing

/// A Swift Testing trait that checks a test (or every test of a suite) with ReactiveDiagnostics.
///
/// Each test case gets a checkpoint. When its body returns, deallocation and pending
/// main-queue work get a bounded chance to settle, then every resource the test allocated and
/// left alive is a leak finding attributed to it, along with the grammar, contract and
/// scheduler findings raised while it ran. Each finding whose policy is `fail` (errors, by
/// default) is recorded as an issue of the test, at the first line of the test's own code in
/// the finding's allocation stack. The report is written when the process exits.
///
/// ```swift
/// import ReactiveDiagnosticsTesting
/// import Testing
///
/// @Suite(.diagnosed)
/// struct FeedViewModelTests {
///     @Test func refreshLoadsItems() async {
///         let model = FeedViewModel()
///         await model.refresh()      // leaks a subscription: this test fails, pointing here
///     }
///
///     @Test(.diagnosed(allowing: [.valueAfterCancel], settle: .seconds(2)))
///     func cancelWhileLoading() async { /* … */ }
/// }
/// ```
///
/// Swift Testing runs tests in parallel in one process, so the test is identified through the
/// task-local `TestIdentity.current`, bound around the test's body: child tasks inherit it,
/// and diagnosed streams and schedulers carry it to the threads they deliver on. A resource
/// created on a thread that has neither (a `DispatchQueue`, `Thread` or `Task.detached` the
/// library did not start) is not attributed to any test: it cannot fail one, and appears in the
/// report's live sites without a test.
public struct DiagnosedTrait: TestTrait, SuiteTrait, TestScoping {
    /// Finding kinds the test tolerates: recorded in the report as suppressed, never failing it.
    public var allowedKinds: Set<FindingKind>
    /// How long the end of the test waits for resources to end; `nil` uses the configured
    /// settle time (`REACTIVE_DIAGNOSTICS_SETTLE_MS`, 500 ms by default).
    public var settleTime: Duration?
    /// Known findings in code you do not own, added to the engine's suppressions for the whole
    /// run before any test runs (as if they were in the `REACTIVE_DIAGNOSTICS_SUPPRESSIONS` file).
    public var suppressions: Suppressions
    /// The engine the code under test reports to; `nil` means `DiagnosticsEngine.shared`.
    public var engine: DiagnosticsEngine?

    /// Creates the trait; most code uses ``Testing/Trait/diagnosed`` or
    /// ``Testing/Trait/diagnosed(allowing:settle:suppressing:engine:)`` instead.
    public init(
        allowedKinds: Set<FindingKind> = [], settleTime: Duration? = nil, suppressions: Suppressions = Suppressions(),
        engine: DiagnosticsEngine? = nil
    ) {
        self.allowedKinds = allowedKinds
        self.settleTime = settleTime
        self.suppressions = suppressions
        self.engine = engine
    }

    /// On a suite, the trait applies to every test in it, each test case checked on its own.
    public var isRecursive: Bool { true }

    /// The engine in use.
    var resolvedEngine: DiagnosticsEngine {
        engine ?? .shared
    }

    /// The per-test options this trait contributes.
    var options: TestOptions {
        TestOptions(allowedKinds: allowedKinds, settleTime: settleTime)
    }

    /// Adds the trait's suppressions to the engine while the run is planned, before any test
    /// runs, so they apply to every test whatever the order.
    public func prepare(for test: Test) async throws {
        guard !suppressions.rules.isEmpty else { return }
        resolvedEngine.updateConfiguration { configuration in
            for rule in suppressions.rules where !configuration.suppressions.rules.contains(rule) {
                configuration.suppressions.rules.append(rule)
            }
        }
    }

    /// Scopes each test case; the suite-level call (no test case) is skipped.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    /// Runs one test case between a checkpoint and the check, with the test's identity bound,
    /// then records one issue per finding that fails it.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard let testCase else {
            return try await function()
        }
        if let outer = ActiveScope.current {
            // `.diagnosed` on the suite and on the test: one check, with both options.
            outer.merge(options)
            return try await function()
        }
        let engine = resolvedEngine
        FindingPresentation.foldGeneratedTestRunnerFrames()
        RunReports.register(engine)
        let checkpoint = engine.beginTest(named: TestNaming.name(of: test, testCase: testCase), serial: false)
        let scope = ActiveScope(options)
        var thrown: (any Error)?
        do {
            try await ActiveScope.$current.withValue(scope) {
                try await TestIdentity.$current.withValue(checkpoint.test) {
                    try await engine.trackingUnstructuredTasks(of: checkpoint) {
                        try await function()
                    }
                }
            }
        } catch {
            thrown = error
        }
        let outcome = await engine.finishTest(checkpoint, options: scope.options)
        for failure in outcome.failures {
            IssueRecorder.record(failure, engine: engine, test: test)
        }
        if let thrown {
            throw thrown
        }
    }
}
