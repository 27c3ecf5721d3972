import ReactiveDiagnostics
public import Testing

extension Trait where Self == DiagnosedTrait {
    /// Checks the test, or every test of the suite, for leaks, stream grammar and scheduler
    /// findings, with the configured settle time and no allowances.
    ///
    /// ```swift
    /// @Suite(.diagnosed) struct SearchTests { /* every test is checked */ }
    /// ```
    public static var diagnosed: Self {
        DiagnosedTrait()
    }

    /// Checks the test, or every test of the suite, with allowances and a settle time of its own.
    ///
    /// ```swift
    /// @Test(.diagnosed(allowing: [.valueAfterCancel], settle: .seconds(2)))
    /// func cancelWhileLoading() async { /* … */ }
    /// ```
    ///
    /// - Parameters:
    ///   - allowing: Finding kinds this test tolerates (recorded as suppressed, not hidden).
    ///   - settle: How long the end of the test waits for resources to end.
    ///   - suppressing: Known findings in code you do not own, suppressed for the whole run.
    ///   - engine: The engine the code under test reports to (`DiagnosticsEngine.shared` by default).
    public static func diagnosed(
        allowing: Set<FindingKind> = [], settle: Duration? = nil, suppressing: Suppressions = Suppressions(),
        engine: DiagnosticsEngine? = nil
    ) -> Self {
        DiagnosedTrait(allowedKinds: allowing, settleTime: settle, suppressions: suppressing, engine: engine)
    }
}
