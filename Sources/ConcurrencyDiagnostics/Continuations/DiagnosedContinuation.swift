import CReactiveDiagnostics
@_spi(Integration) import ReactiveDiagnostics

/// A checked continuation that reports its misuse instead of crashing or hanging quietly: made
/// by ``withDiagnosedContinuation(_:expecting:engine:isolation:function:_:)`` and
/// ``withDiagnosedThrowingContinuation(_:expecting:engine:isolation:function:_:)``.
///
/// - Never resumed by the end of the test: a `FindingKind.callbackNeverCalled` showing where
///   it was awaited (the runtime only prints a warning if the continuation is ever freed);
///   released without a resume: the same finding at once.
/// - Resumed twice: a `FindingKind.callbackCalledTwice`, and the second resume is dropped
///   instead of stopping the process.
/// - Resumed off the expected thread or executor: a `FindingKind.wrongThread`.
///
/// ```swift
/// func loadSettings() async -> Settings {
///     await withDiagnosedContinuation("settings") { continuation in
///         api.loadSettings { settings in continuation.resume(returning: settings) }
///     }
/// }
/// ```
public struct DiagnosedContinuation<T, E: Error>: Sendable {
    let base: CheckedContinuation<T, E>
    let tracker: ContinuationTracker

    /// Resumes the awaiting task with `value` (the first resume only).
    public func resume(returning value: sending T) {
        if tracker.willResume() {
            rdiag_stream_hook_suppress(1)
            defer { rdiag_stream_hook_suppress(-1) }
            base.resume(returning: value)
        }
    }

    /// Resumes the awaiting task by throwing `error` (the first resume only).
    public func resume(throwing error: E) {
        if tracker.willResume() {
            DiagnosticsEngine.callingOwnStreams { base.resume(throwing: error) }
        }
    }

    /// Resumes the awaiting task with `result` (the first resume only).
    public func resume(with result: sending Result<T, E>) {
        if tracker.willResume() {
            rdiag_stream_hook_suppress(1)
            defer { rdiag_stream_hook_suppress(-1) }
            base.resume(with: result)
        }
    }
}

extension DiagnosedContinuation where T == Void {
    /// Resumes the awaiting task (the first resume only).
    public func resume() {
        resume(returning: ())
    }
}
