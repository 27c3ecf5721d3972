#if RxSwift  // the package trait RxSwift (Package.swift): without it, this module is empty
public import ReactiveDiagnostics

extension FindingKind {
    /// An error reached a subscriber that has no error handler: RxSwift hands it to
    /// `Hooks.defaultErrorHandler`, which only prints it, and only in debug builds.
    ///
    /// Reported by ``DiagnosedObserver`` and `subscribe(diagnosed:…)` without `onError`, and,
    /// once ``RxDiagnosticsHooks/install(engine:forwardingToPreviousHandler:)`` ran, by every
    /// closure-based `subscribe` without `onError`.
    ///
    /// ```swift
    /// let outcome = engine.finishTest(checkpoint)
    /// let unhandled = outcome.findings.filter { $0.kind == .unhandledError }
    /// ```
    public static let unhandledError = FindingKind(rawValue: "unhandledError")
}
#endif
