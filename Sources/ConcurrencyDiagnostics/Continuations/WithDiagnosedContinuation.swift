import ReactiveDiagnostics

/// Suspends the current task like `withCheckedContinuation`, with a continuation whose misuse
/// is a finding (see ``DiagnosedContinuation``).
///
/// ```swift
/// let image = await withDiagnosedContinuation("thumbnail", expecting: .mainQueue) { continuation in
///     loader.load(url) { continuation.resume(returning: $0) }   // must call back on the main queue
/// }
/// ```
///
/// The continuation is tracked from the call, with the chain of async callers as its stack (the
/// function that awaits it). Calling this adds no suspension point before `body` runs.
///
/// - Parameters:
///   - label: The name findings and the report show.
///   - expectation: Where the continuation must be resumed, if anywhere in particular.
///   - engine: Where findings go.
///   - isolation: The actor the caller runs on (filled in by the compiler); `body` runs there.
///   - function: The calling function (filled in by the compiler), for the checked
///     continuation's own misuse messages.
///   - body: Receives the continuation; runs at once, on the caller's actor.
public func withDiagnosedContinuation<T>(
    _ label: String, expecting expectation: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
    isolation: isolated (any Actor)? = #isolation, function: String = #function,
    _ body: (DiagnosedContinuation<T, Never>) -> Void
) async -> sending T {
    let stack = engine.isEnabled ? await engine.captureAsyncAllocationStack(isolation: isolation) : .none
    return await withCheckedContinuation(isolation: isolation, function: function) { continuation in
        // Made here, so that only the continuation handed out keeps it: released unresumed is seen.
        let tracker = ContinuationTracker(
            engine: engine, label: DiagnosticLabel(label), stack: stack, expectation: expectation)
        body(DiagnosedContinuation(base: continuation, tracker: tracker))
    }
}

/// Suspends the current task like `withCheckedThrowingContinuation`, with a continuation whose
/// misuse is a finding (see ``DiagnosedContinuation``).
///
/// ```swift
/// let data = try await withDiagnosedThrowingContinuation("download") { continuation in
///     session.download(url) { result in continuation.resume(with: result) }
/// }
/// ```
public func withDiagnosedThrowingContinuation<T>(
    _ label: String, expecting expectation: ThreadExpectation? = nil, engine: DiagnosticsEngine = .shared,
    isolation: isolated (any Actor)? = #isolation, function: String = #function,
    _ body: (DiagnosedContinuation<T, any Error>) -> Void
) async throws -> sending T {
    let stack = engine.isEnabled ? await engine.captureAsyncAllocationStack(isolation: isolation) : .none
    return try await withCheckedThrowingContinuation(isolation: isolation, function: function) { continuation in
        let tracker = ContinuationTracker(
            engine: engine, label: DiagnosticLabel(label), stack: stack, expectation: expectation)
        body(DiagnosedContinuation(base: continuation, tracker: tracker))
    }
}
