/// The state of the engine when a test started; hand it to
/// ``DiagnosticsEngine/finishTest(_:options:)-6zcu0`` (from async code, to its async form
/// ``DiagnosticsEngine/finishTest(_:options:)-7bxny``).
///
/// ```swift
/// let checkpoint = engine.beginTest(named: "FeedTests.refresh", serial: false)
/// TestIdentity.$current.withValue(checkpoint.test) {
///     model.refresh()
/// }
/// let outcome = engine.finishTest(checkpoint)
/// ```
public struct TestCheckpoint: Sendable, Hashable {
    /// The test.
    public let test: TestIdentity
    /// The ledger epoch the test started.
    public let epoch: UInt32
    /// How many findings existed when it started.
    public let findingIndex: Int
    /// Whether the test is its engine's serial test (XCTest) while it runs.
    public let isSerial: Bool
}

/// Per-test adjustments: allowed finding kinds and settle time.
///
/// ```swift
/// var options = TestOptions()
/// options.allowedKinds = [.valueAfterCancel, .longAction]
/// options.settleTime = .seconds(2)      // slow deallocation in this test
/// ```
public struct TestOptions: Sendable, Hashable {
    /// Kinds this test tolerates: recorded as suppressed, never failing the test.
    public var allowedKinds: Set<FindingKind>
    /// Overrides the configured settle time.
    public var settleTime: Duration?

    /// No allowances, the configured settle time.
    public init(allowedKinds: Set<FindingKind> = [], settleTime: Duration? = nil) {
        self.allowedKinds = allowedKinds
        self.settleTime = settleTime
    }
}

/// What a finished test left behind.
///
/// ```swift
/// let outcome = engine.finishTest(checkpoint)
/// for finding in outcome.failures {
///     Issue.record(Comment(rawValue: engine.describe(finding)))
/// }
/// print(outcome.unsuppressed.count, "findings, settled in", outcome.settleDuration)
/// ```
public struct TestOutcome: Sendable {
    /// The test.
    public let test: TestIdentity
    /// Every finding attributed to it, suppressed ones included.
    public let findings: [Finding]
    /// How long the end-of-test settle waited.
    public let settleDuration: Duration

    /// The findings that fail the test (policy `fail`/`trap`, not suppressed).
    public var failures: [Finding] {
        findings.filter(\.failsTest)
    }

    /// Findings that are not suppressed.
    public var unsuppressed: [Finding] {
        findings.filter { $0.suppressedBy == nil }
    }
}
